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
 * ms_to_ktime(): "ktime: Add us_to_ktime()" (v6.14, from the rxrpc
 * series merged through net-next). Probed. Upstream's body.
 */
#if RETROFI_API_NEED(6, 14, 0, RETROFI_HAVE_us_to_ktime)
static inline ktime_t LINUX_BACKPORT(us_to_ktime)(u64 us)
{
	return us * NSEC_PER_USEC;
}
#define us_to_ktime LINUX_BACKPORT(us_to_ktime)
RETROFI_CENSUS(us_to_ktime, "6.14", "probed",
	       "ktime: Add us_to_ktime() (v6.14)");
#endif /* < 6.14 */

#endif /* _RETROFI_LINUX_KTIME_H */
