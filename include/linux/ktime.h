/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/ktime.h>
 */
#ifndef _RETROFI_LINUX_KTIME_H
#define _RETROFI_LINUX_KTIME_H

#include_next <linux/ktime.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * us_to_ktime() -- a ktime_t of a count of microseconds, beside
 * ms_to_ktime() (in 7.3's <linux/ktime.h>; 6.12 lacks it: the commit
 * and the version between are not verified here, 6.13 is the guard).
 * Probed. 7.3's body.
 */
#if RETROFI_API_NEED(6, 13, 0, RETROFI_HAVE_us_to_ktime)
static inline ktime_t LINUX_BACKPORT(us_to_ktime)(u64 us)
{
	return us * NSEC_PER_USEC;
}
#define us_to_ktime LINUX_BACKPORT(us_to_ktime)
RETROFI_CENSUS(us_to_ktime, "6.13", "probed",
	       "us_to_ktime() as in 7.3 (commit and version not verified)");
#endif /* < 6.13 */

#endif /* _RETROFI_LINUX_KTIME_H */
