/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/lockdep.h>
 */
#ifndef _RETROFI_LINUX_LOCKDEP_H
#define _RETROFI_LINUX_LOCKDEP_H

#include_next <linux/lockdep.h>
#include <retrofi/backport.h>

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
#endif
RETROFI_CENSUS(lockdep_is_held, "5.11", "structural",
	       "lockdep: Provide dummy forward declaration of *_is_held() helpers (v5.11)");
#endif /* < 5.11 */

#endif /* _RETROFI_LINUX_LOCKDEP_H */
