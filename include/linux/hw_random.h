/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/hw_random.h>
 */
#ifndef _RETROFI_LINUX_HW_RANDOM_H
#define _RETROFI_LINUX_HW_RANDOM_H

#include_next <linux/hw_random.h>
#include <linux/delay.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * hwrng_msleep() -- "hwrng: core - let sleep be interrupted when
 * unregistering hwrng" (v6.0): a driver's read() sleeps until the delay
 * is over, a signal arrives or the hwrng is being unregistered, and a
 * nonzero return tells it to stop. Before 6.0, struct hwrng has no
 * completion for the unregistering, so the shim sleeps as ath9k's read()
 * did before that change (msleep_interruptible(): nonzero when a signal
 * cut the sleep short). Probed: stable kernels may carry it (Debian's 6.1
 * does).
 */
#if RETROFI_API_NEED(6, 0, 0, RETROFI_HAVE_hwrng_msleep)
#define hwrng_msleep LINUX_BACKPORT(hwrng_msleep)
static inline long hwrng_msleep(struct hwrng *rng, unsigned int msecs)
{
	return msleep_interruptible(msecs);
}
RETROFI_CENSUS(hwrng_msleep, "6.0", "probed",
	       "hwrng: core - let sleep be interrupted when unregistering hwrng (v6.0)");
#endif /* < 6.0 */

#endif /* _RETROFI_LINUX_HW_RANDOM_H */
