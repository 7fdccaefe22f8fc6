/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/device.h>
 */
#ifndef _RETROFI_LINUX_DEVICE_H
#define _RETROFI_LINUX_DEVICE_H

#include_next <linux/device.h>
#include <linux/overflow.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * devm_kmemdup_array() -- "devres: Introduce devm_kmemdup_array()"
 * (v6.15: stable took it into 6.14.y as a dependency, and Debian's 6.12
 * has it, every 6.12 ABI the archive serves, 6.1 not): a device-managed copy of an array, the size multiplication
 * saturating so that an overflow fails the allocation. Upstream's body.
 * Probed.
 */
#if RETROFI_API_NEED(6, 15, 0, RETROFI_HAVE_devm_kmemdup_array)
static inline void *LINUX_BACKPORT(devm_kmemdup_array)(struct device *dev,
						       const void *src,
						       size_t n, size_t size,
						       gfp_t flags)
{
	return devm_kmemdup(dev, src, size_mul(size, n), flags);
}
#define devm_kmemdup_array LINUX_BACKPORT(devm_kmemdup_array)
RETROFI_CENSUS(devm_kmemdup_array, "6.15", "probed",
	       "devres: Introduce devm_kmemdup_array() (v6.15)");
#endif /* < 6.15 */

#endif /* _RETROFI_LINUX_DEVICE_H */
