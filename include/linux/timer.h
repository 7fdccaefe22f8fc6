/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/timer.h>
 */
#ifndef _RETROFI_LINUX_TIMER_H
#define _RETROFI_LINUX_TIMER_H

#include_next <linux/timer.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * timer_delete() -- "timers: Rename del_timer() to timer_delete()"
 * (v6.2): deactivate a timer; 1 if it was pending, else 0. The shim is
 * del_timer(), which every target up to 6.12 has (the old name). Probed:
 * Debian's 6.1.192 has it from stable, its 5.10.262 has not.
 */
#if RETROFI_API_NEED(6, 2, 0, RETROFI_HAVE_timer_delete)
static inline int LINUX_BACKPORT(timer_delete)(struct timer_list *timer)
{
	/*
	 * "treewide: Switch/rename to timer_delete[_sync]()" (v6.15) removed
	 * the old name: an API level forced below 6.2 on such a kernel has
	 * only the kernel's own call.
	 */
#if RETROFI_LINUX_LESS(6, 15, 0)
	return del_timer(timer);
#else
	return timer_delete(timer);
#endif /* < 6.15 */
}
#define timer_delete LINUX_BACKPORT(timer_delete)
RETROFI_CENSUS(timer_delete, "6.2", "probed",
	       "timers: Rename del_timer() to timer_delete() (v6.2)");
#endif /* < 6.2 */

/*
 * timer_delete_sync() -- "timers: Rename del_timer_sync() to
 * timer_delete_sync()" (v6.2): deactivate a timer and wait for a running
 * handler. The shim is del_timer_sync(). Probed: Debian's 5.10.262 and
 * 6.1.192 have it from stable.
 */
#if RETROFI_API_NEED(6, 2, 0, RETROFI_HAVE_timer_delete_sync)
static inline int LINUX_BACKPORT(timer_delete_sync)(struct timer_list *timer)
{
	/*
	 * "treewide: Switch/rename to timer_delete[_sync]()" (v6.15) removed
	 * the old name: an API level forced below 6.2 on such a kernel has
	 * only the kernel's own call.
	 */
#if RETROFI_LINUX_LESS(6, 15, 0)
	return del_timer_sync(timer);
#else
	return timer_delete_sync(timer);
#endif /* < 6.15 */
}
#define timer_delete_sync LINUX_BACKPORT(timer_delete_sync)
RETROFI_CENSUS(timer_delete_sync, "6.2", "probed",
	       "timers: Rename del_timer_sync() to timer_delete_sync() (v6.2)");
#endif /* < 6.2 */

/*
 * timer_container_of() -- "timers: Rename from_timer() to
 * timer_container_of()" (v6.16): the structure that holds a timer, from
 * the timer a callback gets. The same container_of() as from_timer().
 * Probed (stable kernels may carry it); a macro, redirected so that a
 * case can name the shim.
 */
#if RETROFI_API_NEED(6, 16, 0, RETROFI_HAVE_timer_container_of)
#undef timer_container_of
#define timer_container_of LINUX_BACKPORT(timer_container_of)
#define backport_timer_container_of(var, callback_timer, timer_fieldname) \
	container_of(callback_timer, typeof(*var), timer_fieldname)
RETROFI_CENSUS(timer_container_of, "6.16", "probed",
	       "timers: Rename from_timer() to timer_container_of() (v6.16)");
#endif /* < 6.16 */

#endif /* _RETROFI_LINUX_TIMER_H */
