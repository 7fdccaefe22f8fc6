/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/rcupdate.h>
 */
#ifndef _RETROFI_LINUX_RCUPDATE_H
#define _RETROFI_LINUX_RCUPDATE_H

#include_next <linux/rcupdate.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * RCU_LOCKDEP_WARN() without CONFIG_PROVE_RCU evaluating its condition --
 * "rcu: Prevent RCU_LOCKDEP_WARN() from swallowing the condition" (v5.11):
 * before it, the macro dropped the condition, so a variable used only in
 * the condition of rcu_dereference_protected() was unused (7.3's
 * wiphy_dereference(wiphy, ...) in mac80211's ieee80211_set_sta_4addr()
 * and ieee80211_update_apvlan_links(): "unused variable 'wiphy'"). The
 * condition is compiled and then removed as dead code, as upstream's.
 * The same series declared the lockdep helpers such conditions call
 * where lockdep is off: lockdep_is_held() (<linux/lockdep.h>) and
 * lockdep_sock_is_held() (<net/sock.h>). Structural: the target's own
 * macro changed.
 */
#if RETROFI_LINUX_LESS(5, 11, 0) && !defined(CONFIG_PROVE_RCU)
#include <linux/lockdep.h>
#undef RCU_LOCKDEP_WARN
#define RCU_LOCKDEP_WARN(c, s) do { } while (0 && (c))
RETROFI_CENSUS(RCU_LOCKDEP_WARN, "5.11", "structural",
	       "rcu: Prevent RCU_LOCKDEP_WARN() from swallowing the condition (v5.11)");
#endif /* < 5.11 */

/*
 * guard(rcu), scoped_guard(rcu) -- the RCU read-side guard of "locking:
 * Introduce __cleanup() based infrastructure" (v6.5), which stable
 * 5.10.y carries with <linux/cleanup.h> (Debian 5.10.0-43 has it,
 * 5.10.0-32 does not). rcu_read_lock() on entry, rcu_read_unlock() on
 * leaving the scope: the stable backport's body. Structural and probed,
 * like the mutex guard; with probes forced off, backport_rcu beside the
 * target's own.
 */
#if RETROFI_LINUX_LESS(6, 5, 0) && RETROFI_PROBED_ON(RETROFI_HAVE_rcu_guard)
#include <linux/cleanup.h>
DEFINE_LOCK_GUARD_0(RETROFI_PROBED_NAME(rcu, RETROFI_HAVE_rcu_guard),
		    rcu_read_lock(), rcu_read_unlock())
RETROFI_CENSUS(rcu_guard, "6.5", "structural",
	       "locking: Introduce __cleanup() based infrastructure (v6.5)");
#endif /* < 6.5 */

/*
 * lockdep_assert_in_rcu_read_lock() -- "rcu: Add
 * lockdep_assert_in_rcu_read_lock() and friends" (v6.11; title and
 * version not verified: every 6.1 the archive serves lacks it, every 6.12
 * has it): with CONFIG_PROVE_RCU, warn once where lockdep tracks RCU and
 * no rcu_read_lock() is held (ath12k); nothing without it. The body is
 * 6.12's, whose helpers every target has. Probed, by the preprocessor: a
 * macro, and at a forced API level defined again as upstream's.
 */
#ifdef lockdep_assert_in_rcu_read_lock
#define RETROFI_HAVE_lockdep_assert_in_rcu_read_lock 1
#else
#define RETROFI_HAVE_lockdep_assert_in_rcu_read_lock 0
#endif
#if RETROFI_API_NEED(6, 11, 0, RETROFI_HAVE_lockdep_assert_in_rcu_read_lock)
#undef lockdep_assert_in_rcu_read_lock
#ifdef CONFIG_PROVE_RCU
#define lockdep_assert_in_rcu_read_lock()				\
	WARN_ON_ONCE(debug_lockdep_rcu_enabled() &&			\
		     (!lock_is_held(&rcu_lock_map) || !rcu_is_watching() || \
		      !rcu_lockdep_current_cpu_online()) &&		\
		     debug_lockdep_rcu_enabled())
#else
#define lockdep_assert_in_rcu_read_lock() do { } while (0)
#endif
RETROFI_CENSUS(lockdep_assert_in_rcu_read_lock, "6.11", "probed",
	       "rcu: Add lockdep_assert_in_rcu_read_lock() and friends (v6.11, title and version not verified)");
#endif /* < 6.11 */

#endif /* _RETROFI_LINUX_RCUPDATE_H */
