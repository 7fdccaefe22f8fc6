/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/rfkill.h>
 */
#ifndef _RETROFI_LINUX_RFKILL_H
#define _RETROFI_LINUX_RFKILL_H

#include_next <linux/rfkill.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * enum rfkill_hard_block_reasons, rfkill_set_hw_state_reason() -- "rfkill:
 * add a reason to the HW rfkill state" (v5.11): a hard block now has
 * reasons (the rfkill signal, or the NIC not being owned by the host) and
 * the device is hard blocked while any is set; cfg80211's
 * wiphy_rfkill_set_hw_state() passes RFKILL_HARD_BLOCK_SIGNAL.
 *
 * The enum (<uapi/linux/rfkill.h> upstream) is structural: a type of the
 * target's own rfkill core. The function is additive and probed. An older
 * core keeps one hard-block state, so the shim sets it with
 * rfkill_set_hw_state() whatever the reason: for RFKILL_HARD_BLOCK_SIGNAL,
 * the only reason the stack passes, that is exactly 6.12's behaviour; a
 * second reason would not be tracked separately (6.12 keeps the device
 * blocked until every reason is cleared). Like upstream it returns whether
 * the device is now blocked (hard or soft).
 */
#if RETROFI_LINUX_LESS(5, 11, 0) && !RETROFI_HAVE_rfkill_set_hw_state_reason
enum rfkill_hard_block_reasons {
	RFKILL_HARD_BLOCK_SIGNAL	= 1 << 0,
	RFKILL_HARD_BLOCK_NOT_OWNER	= 1 << 1,
};
RETROFI_CENSUS(rfkill_hard_block_reasons, "5.11", "structural",
	       "rfkill: add a reason to the HW rfkill state (v5.11)");
#endif /* < 5.11 */

#if RETROFI_API_NEED(5, 11, 0, RETROFI_HAVE_rfkill_set_hw_state_reason)
static inline bool
LINUX_BACKPORT(rfkill_set_hw_state_reason)(struct rfkill *rfkill, bool blocked,
					   enum rfkill_hard_block_reasons reason)
{
	return rfkill_set_hw_state(rfkill, blocked);
}
#define rfkill_set_hw_state_reason LINUX_BACKPORT(rfkill_set_hw_state_reason)
RETROFI_CENSUS(rfkill_set_hw_state_reason, "5.11", "probed",
	       "rfkill: add a reason to the HW rfkill state (v5.11)");
#endif /* < 5.11 */

/*
 * rfkill_soft_blocked() -- "rfkill: allow to get the software rfkill
 * state" (v5.17): whether the device is soft blocked, whatever its hard
 * state. Older cores keep the two states in struct rfkill, which is
 * private to net/rfkill/core.c, and export only rfkill_blocked() (soft
 * or hard), so the shim answers with that: exact while the device is not
 * hard blocked; while it is, it says blocked where upstream may not. Its
 * one caller in the tree, iwlmvm, hands the value to iwlmei only when
 * iwlmei is registered, and the tree never builds iwlmei (IWLMEI fixed
 * n). Probed.
 */
#if RETROFI_API_NEED(5, 17, 0, RETROFI_HAVE_rfkill_soft_blocked)
static inline bool LINUX_BACKPORT(rfkill_soft_blocked)(struct rfkill *rfkill)
{
	return rfkill_blocked(rfkill);
}
#define rfkill_soft_blocked LINUX_BACKPORT(rfkill_soft_blocked)
RETROFI_CENSUS(rfkill_soft_blocked, "5.17", "probed",
	       "rfkill: allow to get the software rfkill state (v5.17)");
#endif /* < 5.17 */

#endif /* _RETROFI_LINUX_RFKILL_H */
