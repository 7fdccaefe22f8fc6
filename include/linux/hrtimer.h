/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/hrtimer.h>
 */
#ifndef _RETROFI_LINUX_HRTIMER_H
#define _RETROFI_LINUX_HRTIMER_H

#include_next <linux/hrtimer.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * hrtimer_setup() -- "hrtimers: Introduce hrtimer_setup() to replace
 * hrtimer_init()" (v6.13): initialise a timer and set its callback in
 * one call. The shim is hrtimer_init() (every target up to 6.12 has it)
 * and the assignment of ->function that callers made before. Probed:
 * stable kernels may carry it.
 */
#if RETROFI_API_NEED(6, 13, 0, RETROFI_HAVE_hrtimer_setup)
static inline void
LINUX_BACKPORT(hrtimer_setup)(struct hrtimer *timer,
			      enum hrtimer_restart (*function)(struct hrtimer *),
			      clockid_t clock_id, enum hrtimer_mode mode)
{
	/*
	 * "hrtimers: Delete hrtimer_init()" (v6.15): an API level forced
	 * below 6.13 on such a kernel has only the kernel's own call.
	 */
#if RETROFI_LINUX_LESS(6, 15, 0)
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
#else
	hrtimer_setup(timer, function, clock_id, mode);
#endif /* < 6.15 */
}
#define hrtimer_setup LINUX_BACKPORT(hrtimer_setup)
RETROFI_CENSUS(hrtimer_setup, "6.13", "probed",
	       "hrtimers: Introduce hrtimer_setup() to replace hrtimer_init() (v6.13)");
#endif /* < 6.13 */

#endif /* _RETROFI_LINUX_HRTIMER_H */
