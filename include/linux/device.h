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

/*
 * device_is_bound() exported -- the export of device_is_bound() (title and
 * version not verified: no 6.1 ABI the archive serves exports it, up to
 * 6.1.192, and every 6.12 ABI does; every kernel declares it): whether a
 * driver is bound to the device. KUnit's platform helpers
 * (lib/kunit/platform.c) ask it under device_lock(). Before, a module
 * cannot link against it, and its test (the device on its driver's klist)
 * reads the driver core's private struct device_private, so this answers
 * from dev->driver: the driver core sets it before probing and clears it
 * when probing fails, both under the device lock, so under that lock (as
 * the kernel's own callers outside drivers/base hold it) a device has a
 * driver exactly when it is bound. Structural (an export, which no header
 * shows).
 */
#if RETROFI_LINUX_LESS(6, 12, 0)
static inline bool LINUX_BACKPORT(device_is_bound)(struct device *dev)
{
	return READ_ONCE(dev->driver) != NULL;
}
#define device_is_bound LINUX_BACKPORT(device_is_bound)
RETROFI_CENSUS(device_is_bound, "6.1.192..6.12", "structural",
	       "the export of device_is_bound() (title and version not verified)");
#endif /* < 6.12 */

#endif /* _RETROFI_LINUX_DEVICE_H */
