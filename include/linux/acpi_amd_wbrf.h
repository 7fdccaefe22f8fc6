/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/acpi_amd_wbrf.h>
 *
 * "platform/x86/amd: Add support for AMD ACPI based Wifi band RFI
 * mitigation feature" (v6.8) added this header; mac80211's wbrf.c uses its
 * producer side. Older kernels have no AMD_WBRF driver, so they get the
 * header's own !CONFIG_AMD_WBRF stubs: mac80211 then reports no WBRF
 * support, as a 6.8+ kernel built without AMD_WBRF does. Structural (a
 * header that appeared, backed by a driver the old kernel lacks).
 */
#ifndef _RETROFI_LINUX_ACPI_AMD_WBRF_H
#define _RETROFI_LINUX_ACPI_AMD_WBRF_H

#include <retrofi/backport.h>

#if RETROFI_LINUX_LESS(6, 8, 0)
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/notifier.h>

#define MAX_NUM_OF_WBRF_RANGES		11

#define WBRF_RECORD_ADD		0x0
#define WBRF_RECORD_REMOVE	0x1

struct freq_band_range {
	u64		start;
	u64		end;
};

struct wbrf_ranges_in_out {
	u64			num_of_ranges;
	struct freq_band_range	band_list[MAX_NUM_OF_WBRF_RANGES];
};

enum wbrf_notifier_actions {
	WBRF_CHANGED,
};

static inline bool acpi_amd_wbrf_supported_consumer(struct device *dev)
{
	return false;
}

static inline int acpi_amd_wbrf_add_remove(struct device *dev, uint8_t action,
					   struct wbrf_ranges_in_out *in)
{
	return -ENODEV;
}

static inline bool acpi_amd_wbrf_supported_producer(struct device *dev)
{
	return false;
}

static inline int amd_wbrf_retrieve_freq_band(struct device *dev,
					      struct wbrf_ranges_in_out *out)
{
	return -ENODEV;
}

static inline int amd_wbrf_register_notifier(struct notifier_block *nb)
{
	return -ENODEV;
}

static inline int amd_wbrf_unregister_notifier(struct notifier_block *nb)
{
	return -ENODEV;
}
RETROFI_CENSUS(acpi_amd_wbrf_h, "6.8", "structural",
	       "platform/x86/amd: Add support for AMD ACPI based Wifi band RFI mitigation feature (v6.8)");
#else
#include_next <linux/acpi_amd_wbrf.h>
#endif /* < 6.8 */

#endif /* _RETROFI_LINUX_ACPI_AMD_WBRF_H */
