/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/timekeeping.h>
 */
#ifndef _RETROFI_LINUX_TIMEKEEPING_H
#define _RETROFI_LINUX_TIMEKEEPING_H

#include_next <linux/timekeeping.h>
#include <linux/math64.h>
#include <linux/time64.h>
#include <retrofi/backport.h>

/*
 * ktime_get_seconds() -- 3.19 (hauke/backports' guard < 3.19; the
 * upstream commit title is not verified here): CLOCK_MONOTONIC in whole
 * seconds. 6.12 reads the timekeeper's cached second; the shim divides
 * ktime_get(), the same clock. Additive.
 */
#if RETROFI_API_LESS(3, 19, 0)
static inline time64_t LINUX_BACKPORT(ktime_get_seconds)(void)
{
	return div_u64(ktime_to_ns(ktime_get()), NSEC_PER_SEC);
}
#define ktime_get_seconds LINUX_BACKPORT(ktime_get_seconds)
RETROFI_CENSUS(ktime_get_seconds, "3.19", "additive",
	       "hauke/backports backport-include guard (title not verified)");
#endif /* < 3.19 */

/*
 * ktime_get_boottime_seconds() -- 4.18 (hauke/backports' guard < 4.18;
 * the upstream commit title is not verified here): CLOCK_BOOTTIME in whole
 * seconds (6.12 reads the coarse clock; the shim the precise one).
 * Additive.
 */
#if RETROFI_API_LESS(4, 18, 0)
static inline time64_t LINUX_BACKPORT(ktime_get_boottime_seconds)(void)
{
	return div_u64(ktime_to_ns(ktime_get_boottime()), NSEC_PER_SEC);
}
#define ktime_get_boottime_seconds LINUX_BACKPORT(ktime_get_boottime_seconds)
RETROFI_CENSUS(ktime_get_boottime_seconds, "4.18", "additive",
	       "hauke/backports backport-include guard (title not verified)");
#endif /* < 4.18 */

#endif /* _RETROFI_LINUX_TIMEKEEPING_H */
