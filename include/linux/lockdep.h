/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/lockdep.h>
 */
#ifndef _RETROFI_LINUX_LOCKDEP_H
#define _RETROFI_LINUX_LOCKDEP_H

#include_next <linux/lockdep.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * lockdep_is_held() without CONFIG_LOCKDEP -- "lockdep: Provide
 * dummy forward declaration of *_is_held() helpers" (v5.11) declares it,
 * never defined, so that checks such as mac80211's
 * lockdep_vif_wiphy_mutex_held() compile without lockdep and are removed
 * as dead code (their only users are lockdep-only expressions). The same
 * declaration as upstream's. Structural: it exists only where lockdep
 * does not.
 */
#if RETROFI_LINUX_LESS(5, 11, 0)
#if !defined(CONFIG_LOCKDEP) && !defined(lockdep_is_held)
extern int lockdep_is_held(const void *);
RETROFI_CENSUS(lockdep_is_held, "5.11", "structural",
	       "lockdep: Provide dummy forward declaration of *_is_held() helpers (v5.11)");
#endif
#endif /* < 5.11 */

/*
 * lockdep_assert_in_softirq() -- "lockdep: Add lockdep_assert_in_softirq()"
 * (title and release not verified, 5.14 is likely): every 5.10 ABI the
 * archive serves lacks it, up to 5.10.262, and every 6.1 one has it, from
 * 6.1.170: the record is that bound and the guard its high end (safe:
 * probed). With lockdep, warn once unless running in softirq context (and
 * not in a hard IRQ or NMI); without lockdep, nothing. 6.1's bodies.
 * Structural and probed: it exists where lockdep's internals do.
 */
#if RETROFI_LINUX_LESS(6, 1, 170) && !RETROFI_HAVE_lockdep_assert_in_softirq
#ifdef CONFIG_PROVE_LOCKING
#define lockdep_assert_in_softirq()					\
do {									\
	WARN_ON_ONCE(__lockdep_enabled &&				\
		     (!in_softirq() || in_irq() || in_nmi()));		\
} while (0)
#else
#define lockdep_assert_in_softirq() do { } while (0)
#endif
RETROFI_CENSUS(lockdep_assert_in_softirq, "5.10.262..6.1.170", "structural",
	       "lockdep: Add lockdep_assert_in_softirq() (title and release not verified)");
#endif /* < 6.1.170 */

/*
 * lockdep_assert_not_held() -- "lockdep: Add lockdep_assert_not_held()"
 * (v5.14): with lockdep, warn when the lock is held (ath10k's mac.c);
 * without, nothing but the evaluation of its argument. Upstream's bodies
 * of 5.14, where lockdep_is_held() answers 1 for a held lock as before.
 * Structural (a macro of lockdep's): the target's own wherever it has one.
 */
#if RETROFI_LINUX_LESS(5, 14, 0) && !defined(lockdep_assert_not_held)
#ifdef CONFIG_LOCKDEP
#define lockdep_assert_not_held(l)					\
	do { WARN_ON(debug_locks && lockdep_is_held(l) == 1); } while (0)
#else
#define lockdep_assert_not_held(l) do { (void)(l); } while (0)
#endif
RETROFI_CENSUS(lockdep_assert_not_held, "5.14", "structural",
	       "lockdep: Add lockdep_assert_not_held() (v5.14)");
#endif /* < 5.14 */

#endif /* _RETROFI_LINUX_LOCKDEP_H */
