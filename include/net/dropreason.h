/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/dropreason.h>
 *
 * What mac80211 needs to describe its drops. <linux/skbuff.h> maps the
 * reasons an older core does not know onto ones it does, in
 * kfree_skb_reason().
 */
#include <retrofi/backport.h>

/*
 * <net/dropreason.h> -- "net: skb: move enum skb_drop_reason to standalone
 * header file" (v6.0) moved enum skb_drop_reason out of <linux/skbuff.h>
 * into this new header. Before 6.0 the enum (where the core has one, since
 * 5.17) is <linux/skbuff.h>'s, and ours includes this header back after
 * it: so it is included here before our guard, and the shims below see
 * the core's definitions whichever header comes first. Structural (a
 * header that appeared).
 */
#if RETROFI_LINUX_LESS(6, 0, 0)
#include <linux/skbuff.h>
RETROFI_CENSUS(net_dropreason_h, "6.0", "structural",
	       "net: skb: move enum skb_drop_reason to standalone header file (v6.0)");
#endif /* < 6.0 */

#ifndef _RETROFI_NET_DROPREASON_H
#define _RETROFI_NET_DROPREASON_H

#if !RETROFI_LINUX_LESS(6, 0, 0)
#include_next <net/dropreason.h>
#endif
#include <retrofi/probes.h>

/*
 * enum skb_drop_reason -- "net: skb: introduce kfree_skb_reason()" (v5.17)
 * gave the core its drop reasons: SKB_DROP_REASON_NOT_SPECIFIED first, and
 * SKB_DROP_REASON_MAX after the last. An older core has none (kfree_skb()
 * only); the enum is declared with the two values the shims need, for the
 * stack's prototypes. Structural (a type the target's tracepoints would use
 * if it had one, so it is never shaped) and probed: a stable kernel
 * carrying kfree_skb_reason() has the enum.
 */
#if RETROFI_LINUX_LESS(5, 17, 0) && !RETROFI_HAVE_kfree_skb_reason
enum skb_drop_reason {
	SKB_DROP_REASON_NOT_SPECIFIED,
	SKB_DROP_REASON_MAX,
};
RETROFI_CENSUS(skb_drop_reason, "5.17", "structural",
	       "net: skb: introduce kfree_skb_reason() (v5.17)");
#endif /* < 5.17 */

/*
 * SKB_NOT_DROPPED_YET -- "skb: make drop reason booleanable" (v5.18)
 * added it as reason 0, "not dropped (yet)", so that a reason tests false
 * when there is none: mac80211 uses it as the value of RX_QUEUED, which
 * never reaches kfree_skb_reason(). Before, any value distinct from the
 * other reasons and from SKB_CONSUMED's shim (SKB_DROP_REASON_MAX) serves
 * (no code here tests a reason as a boolean). Structural, with the enum it
 * belongs to.
 */
#if RETROFI_LINUX_LESS(5, 18, 0)
#define SKB_NOT_DROPPED_YET (SKB_DROP_REASON_MAX + 1)
RETROFI_CENSUS(SKB_NOT_DROPPED_YET, "5.18", "structural",
	       "skb: make drop reason booleanable (v5.18)");
#endif /* < 5.18 */

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
RETROFI_CENSUS(SKB_CONSUMED, "6.2", "probed",
	       "net: dropreason: add SKB_CONSUMED reason (v6.2)");
#endif /* < 6.2 */

/*
 * Drop reason subsystems -- "net: extend drop reasons for multiple
 * subsystems" (v6.4): the upper 16 bits of a reason name a subsystem that
 * registers its reasons' names with the core. Additive, probed; the names
 * are LINUX_BACKPORT()ed so that an API-level shape on a newer kernel does
 * not clash with its own. Registration is exported from net/core/skbuff.c
 * upstream, so the shim lives in compat/backport-6.4.c: upstream's table
 * and bodies, so a registered list can be looked up in
 * drop_reasons_by_subsys[] as in 6.12. The core of an older kernel never
 * reads that table: the compat kfree_skb_reason() reports a subsystem's
 * drops as SKB_DROP_REASON_NOT_SPECIFIED, the reason a kernel without
 * subsystems would give.
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

#define drop_reasons_by_subsys LINUX_BACKPORT(drop_reasons_by_subsys)
extern const struct drop_reason_list __rcu *
drop_reasons_by_subsys[SKB_DROP_REASON_SUBSYS_NUM];

#define drop_reasons_register_subsys \
	LINUX_BACKPORT(drop_reasons_register_subsys)
void drop_reasons_register_subsys(enum skb_drop_reason_subsys subsys,
				  const struct drop_reason_list *list);

#define drop_reasons_unregister_subsys \
	LINUX_BACKPORT(drop_reasons_unregister_subsys)
void drop_reasons_unregister_subsys(enum skb_drop_reason_subsys subsys);
RETROFI_CENSUS(drop_reasons_register_subsys, "6.4", "probed",
	       "net: extend drop reasons for multiple subsystems (v6.4)");
RETROFI_CENSUS(drop_reasons_unregister_subsys, "6.4", "probed",
	       "net: extend drop reasons for multiple subsystems (v6.4)");
RETROFI_CENSUS(drop_reasons_by_subsys, "6.4", "probed",
	       "net: extend drop reasons for multiple subsystems (v6.4)");
#endif /* < 6.4 */

#endif /* _RETROFI_NET_DROPREASON_H */
