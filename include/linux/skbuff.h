/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/skbuff.h>
 */
#ifndef _RETROFI_LINUX_SKBUFF_H
#define _RETROFI_LINUX_SKBUFF_H

#include_next <linux/skbuff.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>
#include <net/dropreason.h>

/*
 * kfree_skb_reason() for the drop reasons of <net/dropreason.h>'s shims:
 * SKB_CONSUMED ("net: dropreason: add SKB_CONSUMED reason", v6.2) means
 * consume_skb(), and a subsystem's reason ("net: extend drop
 * reasons for multiple subsystems", v6.4) is one the older core has no name
 * for: it gets SKB_DROP_REASON_NOT_SPECIFIED rather than a value past
 * SKB_DROP_REASON_MAX, which the core's tracepoint and drop monitor index
 * their tables with. Additive like the shims it serves.
 */
#if RETROFI_API_NEED(6, 4, 0, RETROFI_HAVE_drop_reasons_register_subsys) || \
	RETROFI_API_NEED(6, 2, 0, RETROFI_HAVE_SKB_CONSUMED)
static inline void LINUX_BACKPORT(kfree_skb_reason)(struct sk_buff *skb,
						    enum skb_drop_reason reason)
{
	if (reason == SKB_CONSUMED) {
		consume_skb(skb);
		return;
	}
	if ((unsigned int)reason >= SKB_DROP_REASON_MAX)
		reason = SKB_DROP_REASON_NOT_SPECIFIED;
	kfree_skb_reason(skb, reason);
}
#define kfree_skb_reason LINUX_BACKPORT(kfree_skb_reason)
#endif /* < 6.4 */

#endif /* _RETROFI_LINUX_SKBUFF_H */
