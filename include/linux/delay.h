/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/delay.h>
 */
#ifndef _RETROFI_LINUX_DELAY_H
#define _RETROFI_LINUX_DELAY_H

#include_next <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <retrofi/backport.h>

/*
 * usleep_range() -- "timer: Added usleep_range timer" (Patrick Pannuto,
 * commit 5e7f5a178bba, v2.6.36; quoted by NVIDIA's conftest.sh; guard
 * < 2.6.36 in compat-2.6.36.h of mcgrof/compat and hauke/backports, which
 * approximated it with msleep()): sleep at least min microseconds,
 * letting the timer fire anywhere up to max so that wakeups coalesce.
 * Additive; 6.12's usleep_range_state() body, uninterruptible, over
 * schedule_hrtimeout_range() (2.6.28).
 */
#if RETROFI_API_LESS(2, 6, 36)
static inline void LINUX_BACKPORT(usleep_range)(unsigned long min,
						unsigned long max)
{
	ktime_t exp = ktime_add_us(ktime_get(), min);
	u64 delta = (u64)(max - min) * NSEC_PER_USEC;

	for (;;) {
		__set_current_state(TASK_UNINTERRUPTIBLE);
		/* Do not return before the requested sleep time has elapsed */
		if (!schedule_hrtimeout_range(&exp, delta, HRTIMER_MODE_ABS))
			break;
	}
}
#define usleep_range LINUX_BACKPORT(usleep_range)
RETROFI_CENSUS(usleep_range, "2.6.36", "additive",
	       "timer: Added usleep_range timer (v2.6.36)");
#endif /* < 2.6.36 */

#endif /* _RETROFI_LINUX_DELAY_H */
