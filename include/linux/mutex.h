/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/mutex.h>
 */
#ifndef _RETROFI_LINUX_MUTEX_H
#define _RETROFI_LINUX_MUTEX_H

#include_next <linux/mutex.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * guard(mutex), scoped_guard(mutex, ...) -- the mutex lock guard of
 * "locking: Introduce __cleanup() based infrastructure" (v6.5), which
 * stable 5.10.y carries with <linux/cleanup.h> (Debian 5.10.0-46 has it,
 * 5.10.0-30 does not). mutex_lock() on entry, mutex_unlock() on leaving
 * the scope, as upstream. Structural: a lock class cannot be renamed for
 * an API shape (guard() pastes its name), so it is defined only where the
 * target's headers lack it (probed). With probes forced off
 * (<retrofi/backport.h>), backport_mutex beside the target's own.
 */
#if RETROFI_LINUX_LESS(6, 5, 0) && RETROFI_PROBED_ON(RETROFI_HAVE_mutex_guard)
#include <linux/cleanup.h>
DEFINE_GUARD(RETROFI_PROBED_NAME(mutex, RETROFI_HAVE_mutex_guard), struct mutex *,
	     mutex_lock(_T), mutex_unlock(_T))
RETROFI_CENSUS(mutex_guard, "6.5", "structural",
	       "locking: Introduce __cleanup() based infrastructure (v6.5)");
#endif /* < 6.5 */

#endif /* _RETROFI_LINUX_MUTEX_H */
