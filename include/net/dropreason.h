/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/dropreason.h>
 *
 * What mac80211 needs to describe its drops. <linux/skbuff.h> maps the
 * reasons an older core does not know onto ones it does, in
 * kfree_skb_reason().
 */
#ifndef _RETROFI_NET_DROPREASON_H
#define _RETROFI_NET_DROPREASON_H

#include_next <net/dropreason.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * SKB_CONSUMED -- "net: dropreason: add SKB_CONSUMED reason" (v6.2):
 * kfree_skb_reason(skb, SKB_CONSUMED) is consume_skb(skb).
 * mac80211 uses it as the value of RX_CONTINUE. Additive, probed (an enum
 * constant, so a macro stands in for it): its value only has to differ from
 * every core reason, and the compat kfree_skb_reason() turns it into
 * consume_skb().
 */
#if RETROFI_API_NEED(6, 2, 0, RETROFI_HAVE_SKB_CONSUMED)
#undef SKB_CONSUMED
#define SKB_CONSUMED SKB_DROP_REASON_MAX
#endif /* < 6.2 */

/*
 * Drop reason subsystems -- "net: extend drop reasons for multiple
 * subsystems" (v6.4): the upper 16 bits of a reason name a subsystem that
 * registers its reasons' names with the core. Additive, probed; the names
 * are LINUX_BACKPORT()ed so that an API-level shape on a newer kernel does
 * not clash with its own. The core of an older kernel has no table to
 * register with: registration does nothing, and the compat
 * kfree_skb_reason() reports such drops as SKB_DROP_REASON_NOT_SPECIFIED,
 * the reason a kernel without subsystems would give.
 */
#if RETROFI_API_NEED(6, 4, 0, RETROFI_HAVE_drop_reasons_register_subsys)
#define skb_drop_reason_subsys LINUX_BACKPORT(skb_drop_reason_subsys)
#define SKB_DROP_REASON_SUBSYS_CORE \
	LINUX_BACKPORT(SKB_DROP_REASON_SUBSYS_CORE)
#define SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE \
	LINUX_BACKPORT(SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE)
#define SKB_DROP_REASON_SUBSYS_MAC80211_MONITOR \
	LINUX_BACKPORT(SKB_DROP_REASON_SUBSYS_MAC80211_MONITOR)
#define SKB_DROP_REASON_SUBSYS_OPENVSWITCH \
	LINUX_BACKPORT(SKB_DROP_REASON_SUBSYS_OPENVSWITCH)
#define SKB_DROP_REASON_SUBSYS_NUM LINUX_BACKPORT(SKB_DROP_REASON_SUBSYS_NUM)
enum skb_drop_reason_subsys {
	SKB_DROP_REASON_SUBSYS_CORE,
	SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE,
	SKB_DROP_REASON_SUBSYS_MAC80211_MONITOR,
	SKB_DROP_REASON_SUBSYS_OPENVSWITCH,
	SKB_DROP_REASON_SUBSYS_NUM
};

#undef SKB_DROP_REASON_SUBSYS_MASK
#define SKB_DROP_REASON_SUBSYS_MASK 0xffff0000
#undef SKB_DROP_REASON_SUBSYS_SHIFT
#define SKB_DROP_REASON_SUBSYS_SHIFT 16

#define drop_reason_list LINUX_BACKPORT(drop_reason_list)
struct drop_reason_list {
	const char * const *reasons;
	size_t n_reasons;
};

#define drop_reasons_register_subsys \
	LINUX_BACKPORT(drop_reasons_register_subsys)
static inline void
drop_reasons_register_subsys(enum skb_drop_reason_subsys subsys,
			     const struct drop_reason_list *list)
{
}

#define drop_reasons_unregister_subsys \
	LINUX_BACKPORT(drop_reasons_unregister_subsys)
static inline void
drop_reasons_unregister_subsys(enum skb_drop_reason_subsys subsys)
{
}
#endif /* < 6.4 */

#endif /* _RETROFI_NET_DROPREASON_H */
