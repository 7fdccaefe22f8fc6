/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/spinlock.h>
 */
#ifndef _RETROFI_LINUX_SPINLOCK_H
#define _RETROFI_LINUX_SPINLOCK_H

#include_next <linux/spinlock.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * guard(spinlock), scoped_guard(spinlock, ...) -- the spinlock lock guard
 * of "locking: Introduce __cleanup() based infrastructure" (v6.5), which
 * stable 5.10.y carries with <linux/cleanup.h> (Debian 5.10.0-43 has it,
 * 5.10.0-32 does not). spin_lock() on entry, spin_unlock() on leaving
 * the scope, as upstream. Structural and probed, like the mutex guard;
 * with probes forced off, backport_spinlock beside the target's own.
 */
#if RETROFI_LINUX_LESS(6, 5, 0) && RETROFI_PROBED_ON(RETROFI_HAVE_spinlock_guard)
#include <linux/cleanup.h>
DEFINE_LOCK_GUARD_1(RETROFI_PROBED_NAME(spinlock, RETROFI_HAVE_spinlock_guard), spinlock_t,
		    spin_lock(_T->lock),
		    spin_unlock(_T->lock))
RETROFI_CENSUS(spinlock_guard, "6.5", "structural",
	       "locking: Introduce __cleanup() based infrastructure (v6.5)");
#endif /* < 6.5 */

/*
 * guard(spinlock_irqsave), scoped_guard(spinlock_irqsave, ...) -- the
 * spinlock_irqsave lock guard of the same change, "locking: Introduce
 * __cleanup() based infrastructure" (v6.5), which stable 5.10.y carries
 * with <linux/cleanup.h> (5.10.0-46 has it, 5.10.0-30 does not; rtw89
 * takes it). spin_lock_irqsave() on entry into the guard's own flags,
 * spin_unlock_irqrestore() on leaving the scope, as upstream. Structural
 * and probed, like the spinlock guard; with probes forced off,
 * backport_spinlock_irqsave beside the target's own.
 */
#if RETROFI_LINUX_LESS(6, 5, 0) && RETROFI_PROBED_ON(RETROFI_HAVE_spinlock_irqsave_guard)
#include <linux/cleanup.h>
DEFINE_LOCK_GUARD_1(RETROFI_PROBED_NAME(spinlock_irqsave, RETROFI_HAVE_spinlock_irqsave_guard),
		    spinlock_t,
		    spin_lock_irqsave(_T->lock, _T->flags),
		    spin_unlock_irqrestore(_T->lock, _T->flags),
		    unsigned long flags)
RETROFI_CENSUS(spinlock_irqsave_guard, "6.5", "structural",
	       "locking: Introduce __cleanup() based infrastructure (v6.5)");
#endif /* < 6.5 */

/*
 * guard(spinlock_bh), scoped_guard(spinlock_bh, ...) -- the spinlock_bh
 * lock guard of <linux/cleanup.h>'s scope-based locking: "spinlock:
 * extend guard with spinlock_bh variants" (v6.15), which stable took
 * into 6.12.37. So 6.12.0 to 6.12.36, 6.13 and 6.14 lack it, and every
 * 6.12 ABI the archive serves (6.12.107 and later) has it; 6.1 and 5.10
 * (which carry cleanup.h from stable) have only spinlock and
 * spinlock_irqsave. spin_lock_bh() on entry, spin_unlock_bh() on leaving
 * the scope, as upstream. Structural: a lock class cannot be renamed for
 * an API shape (guard() pastes its name), so it is defined only where
 * the target's headers lack it (probed); it needs DEFINE_LOCK_GUARD_1(),
 * the target's or <linux/cleanup.h>'s shim.
 */
#if RETROFI_LINUX_LESS(6, 15, 0) && !RETROFI_HAVE_spinlock_bh_guard
#include <linux/cleanup.h>
DEFINE_LOCK_GUARD_1(spinlock_bh, spinlock_t,
		    spin_lock_bh(_T->lock),
		    spin_unlock_bh(_T->lock))
RETROFI_CENSUS(spinlock_bh_guard, "6.15", "structural",
	       "spinlock: extend guard with spinlock_bh variants (v6.15; stable 6.12.37)");
#endif /* < 6.15 */

#endif /* _RETROFI_LINUX_SPINLOCK_H */
