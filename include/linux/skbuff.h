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
 * kfree_skb_reason() -- "net: skb: introduce kfree_skb_reason()" (v5.17).
 * An older core has no drop reasons: the skb is freed as a drop with
 * kfree_skb(), or, for SKB_CONSUMED (the 6.2 shim of <net/dropreason.h>),
 * as consumed with consume_skb(), which is what 6.12's kfree_skb_reason()
 * does with it. This takes the place of the wrapper below, which would
 * have no core function to call, so it stands in for that shim too
 * (kfree_skb_reason_subsys). Additive, probed.
 */
#if RETROFI_API_NEED(5, 17, 0, RETROFI_HAVE_kfree_skb_reason)
static inline void LINUX_BACKPORT(kfree_skb_reason)(struct sk_buff *skb,
						    enum skb_drop_reason reason)
{
	if (reason == SKB_CONSUMED)
		consume_skb(skb);
	else
		kfree_skb(skb);
}
RETROFI_CENSUS(kfree_skb_reason, "5.17", "probed",
	       "net: skb: introduce kfree_skb_reason() (v5.17)");
RETROFI_CENSUS(kfree_skb_reason_subsys, "6.4", "probed",
	       "net: extend drop reasons for multiple subsystems (v6.4)");
#define kfree_skb_reason LINUX_BACKPORT(kfree_skb_reason)
#endif /* < 5.17 */

/*
 * kfree_skb_reason() of the new reasons (kfree_skb_reason_subsys) -- "net:
 * extend drop reasons for multiple subsystems" (v6.4), and "net:
 * dropreason: add SKB_CONSUMED reason" (v6.2): the reasons that
 * <net/dropreason.h>'s shims add to a core that has drop reasons.
 * SKB_CONSUMED means consume_skb(), and a subsystem's reason is one the
 * older core has no name for: it gets SKB_DROP_REASON_NOT_SPECIFIED rather
 * than a value past SKB_DROP_REASON_MAX, which the core's tracepoint and
 * drop monitor index their tables with. Additive, probed, like the shims
 * it serves; below 5.17 the kfree_skb_reason() shim above does this.
 */
#if (RETROFI_API_NEED(6, 4, 0, RETROFI_HAVE_drop_reasons_register_subsys) || \
	RETROFI_API_NEED(6, 2, 0, RETROFI_HAVE_SKB_CONSUMED)) && \
	!RETROFI_API_NEED(5, 17, 0, RETROFI_HAVE_kfree_skb_reason)
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
RETROFI_CENSUS(kfree_skb_reason_subsys, "6.4", "probed",
	       "net: extend drop reasons for multiple subsystems (v6.4)");
#define kfree_skb_reason LINUX_BACKPORT(kfree_skb_reason)
#endif /* < 6.4 */

/*
 * skb_tail_pointer(), skb_mac_header(), skb_reset_mac_header(),
 * skb_reset_network_header(), skb_set_network_header() -- 2.6.22
 * (compat-2.6.22.h of mcgrof/compat and hauke/backports; the upstream
 * commit titles are not verified here): the header pointers as offsets
 * from skb->head, set from skb->data. Additive; 6.12's bodies (without
 * skb_mac_header()'s CONFIG_DEBUG_NET check).
 */
#if RETROFI_API_LESS(2, 6, 22)
static inline unsigned char *
LINUX_BACKPORT(skb_tail_pointer)(const struct sk_buff *skb)
{
#ifdef NET_SKBUFF_DATA_USES_OFFSET
	return skb->head + skb->tail;
#else
	return skb->tail;
#endif
}
#define skb_tail_pointer LINUX_BACKPORT(skb_tail_pointer)
RETROFI_CENSUS(skb_tail_pointer, "2.6.22", "additive",
	       "compat-2.6.22.h of hauke/backports (title not verified)");

static inline unsigned char *
LINUX_BACKPORT(skb_mac_header)(const struct sk_buff *skb)
{
	return skb->head + skb->mac_header;
}
#define skb_mac_header LINUX_BACKPORT(skb_mac_header)
RETROFI_CENSUS(skb_mac_header, "2.6.22", "additive",
	       "compat-2.6.22.h of hauke/backports (title not verified)");

static inline void LINUX_BACKPORT(skb_reset_mac_header)(struct sk_buff *skb)
{
	skb->mac_header = skb->data - skb->head;
}
#define skb_reset_mac_header LINUX_BACKPORT(skb_reset_mac_header)
RETROFI_CENSUS(skb_reset_mac_header, "2.6.22", "additive",
	       "compat-2.6.22.h of hauke/backports (title not verified)");

static inline void
LINUX_BACKPORT(skb_reset_network_header)(struct sk_buff *skb)
{
	skb->network_header = skb->data - skb->head;
}
#define skb_reset_network_header LINUX_BACKPORT(skb_reset_network_header)
RETROFI_CENSUS(skb_reset_network_header, "2.6.22", "additive",
	       "compat-2.6.22.h of hauke/backports (title not verified)");

static inline void
LINUX_BACKPORT(skb_set_network_header)(struct sk_buff *skb, const int offset)
{
	skb_reset_network_header(skb);
	skb->network_header += offset;
}
#define skb_set_network_header LINUX_BACKPORT(skb_set_network_header)
RETROFI_CENSUS(skb_set_network_header, "2.6.22", "additive",
	       "compat-2.6.22.h of hauke/backports (title not verified)");
#endif /* < 2.6.22 */

/*
 * skb_get_queue_mapping() -- 2.6.24 (compat-2.6.24.h of hauke/backports;
 * the upstream commit title is not verified here). Additive.
 */
#if RETROFI_API_LESS(2, 6, 24)
static inline u16
LINUX_BACKPORT(skb_get_queue_mapping)(const struct sk_buff *skb)
{
	return skb->queue_mapping;
}
#define skb_get_queue_mapping LINUX_BACKPORT(skb_get_queue_mapping)
RETROFI_CENSUS(skb_get_queue_mapping, "2.6.24", "additive",
	       "compat-2.6.24.h of hauke/backports (title not verified)");
#endif /* < 2.6.24 */

/*
 * __skb_queue_head_init(), skb_queue_is_last(), skb_queue_splice(),
 * skb_queue_splice_init(), skb_queue_splice_tail(),
 * skb_queue_splice_tail_init() -- 2.6.28 (compat-2.6.28.h of mcgrof/compat
 * and hauke/backports; the upstream commit titles are not verified here):
 * queue heads without their lock, and joining queues. Additive; 6.12's
 * bodies, with the splice written out (the core's __skb_queue_splice() is
 * from the same change).
 */
#if RETROFI_API_LESS(2, 6, 28)
static inline void
LINUX_BACKPORT(__skb_queue_head_init)(struct sk_buff_head *list)
{
	list->prev = list->next = (struct sk_buff *)list;
	list->qlen = 0;
}
#define __skb_queue_head_init LINUX_BACKPORT(__skb_queue_head_init)
RETROFI_CENSUS(__skb_queue_head_init, "2.6.28", "additive",
	       "compat-2.6.28.h of hauke/backports (title not verified)");

static inline bool
LINUX_BACKPORT(skb_queue_is_last)(const struct sk_buff_head *list,
				  const struct sk_buff *skb)
{
	return skb->next == (const struct sk_buff *)list;
}
#define skb_queue_is_last LINUX_BACKPORT(skb_queue_is_last)
RETROFI_CENSUS(skb_queue_is_last, "2.6.28", "additive",
	       "compat-2.6.28.h of hauke/backports (title not verified)");

static inline void retrofi_skb_queue_splice(const struct sk_buff_head *list,
					    struct sk_buff *prev,
					    struct sk_buff *next)
{
	struct sk_buff *first = list->next;
	struct sk_buff *last = list->prev;

	WRITE_ONCE(first->prev, prev);
	WRITE_ONCE(prev->next, first);

	WRITE_ONCE(last->next, next);
	WRITE_ONCE(next->prev, last);
}

static inline void
LINUX_BACKPORT(skb_queue_splice)(const struct sk_buff_head *list,
				 struct sk_buff_head *head)
{
	if (!skb_queue_empty(list)) {
		retrofi_skb_queue_splice(list, (struct sk_buff *)head, head->next);
		head->qlen += list->qlen;
	}
}
#define skb_queue_splice LINUX_BACKPORT(skb_queue_splice)
RETROFI_CENSUS(skb_queue_splice, "2.6.28", "additive",
	       "compat-2.6.28.h of hauke/backports (title not verified)");

static inline void
LINUX_BACKPORT(skb_queue_splice_init)(struct sk_buff_head *list,
				      struct sk_buff_head *head)
{
	if (!skb_queue_empty(list)) {
		retrofi_skb_queue_splice(list, (struct sk_buff *)head, head->next);
		head->qlen += list->qlen;
		__skb_queue_head_init(list);
	}
}
#define skb_queue_splice_init LINUX_BACKPORT(skb_queue_splice_init)
RETROFI_CENSUS(skb_queue_splice_init, "2.6.28", "additive",
	       "compat-2.6.28.h of hauke/backports (title not verified)");

static inline void
LINUX_BACKPORT(skb_queue_splice_tail)(const struct sk_buff_head *list,
				      struct sk_buff_head *head)
{
	if (!skb_queue_empty(list)) {
		retrofi_skb_queue_splice(list, head->prev, (struct sk_buff *)head);
		head->qlen += list->qlen;
	}
}
#define skb_queue_splice_tail LINUX_BACKPORT(skb_queue_splice_tail)
RETROFI_CENSUS(skb_queue_splice_tail, "2.6.28", "additive",
	       "compat-2.6.28.h of hauke/backports (title not verified)");

static inline void
LINUX_BACKPORT(skb_queue_splice_tail_init)(struct sk_buff_head *list,
					   struct sk_buff_head *head)
{
	if (!skb_queue_empty(list)) {
		retrofi_skb_queue_splice(list, head->prev, (struct sk_buff *)head);
		head->qlen += list->qlen;
		__skb_queue_head_init(list);
	}
}
#define skb_queue_splice_tail_init LINUX_BACKPORT(skb_queue_splice_tail_init)
RETROFI_CENSUS(skb_queue_splice_tail_init, "2.6.28", "additive",
	       "compat-2.6.28.h of hauke/backports (title not verified)");
#endif /* < 2.6.28 */

/*
 * skb_checksum_start_offset() -- 2.6.38 (compat-2.6.38.h of
 * hauke/backports; the upstream commit title is not verified here): where
 * checksumming starts, from skb->data. Additive.
 */
#if RETROFI_API_LESS(2, 6, 38)
static inline int
LINUX_BACKPORT(skb_checksum_start_offset)(const struct sk_buff *skb)
{
	return skb->csum_start - skb_headroom(skb);
}
#define skb_checksum_start_offset LINUX_BACKPORT(skb_checksum_start_offset)
RETROFI_CENSUS(skb_checksum_start_offset, "2.6.38", "additive",
	       "compat-2.6.38.h of hauke/backports (title not verified)");
#endif /* < 2.6.38 */

/*
 * skb_put_zero(), skb_put_data(), skb_put_u8() -- "skbuff/mac80211:
 * introduce and use skb_put_zero()", "networking: introduce and use
 * skb_put_data()", "networking: add and use skb_put_u8()" (v4.13; cited
 * by hauke/backports, guard < 4.13): append zeroes, a copy or one byte,
 * returning where. Additive; 6.12's bodies over skb_put().
 */
#if RETROFI_API_LESS(4, 13, 0)
static inline void *LINUX_BACKPORT(skb_put_zero)(struct sk_buff *skb,
						 unsigned int len)
{
	void *tmp = skb_put(skb, len);

	memset(tmp, 0, len);

	return tmp;
}
#define skb_put_zero LINUX_BACKPORT(skb_put_zero)
RETROFI_CENSUS(skb_put_zero, "4.13", "additive",
	       "skbuff/mac80211: introduce and use skb_put_zero() (v4.13)");

static inline void *LINUX_BACKPORT(skb_put_data)(struct sk_buff *skb,
						 const void *data,
						 unsigned int len)
{
	void *tmp = skb_put(skb, len);

	memcpy(tmp, data, len);

	return tmp;
}
#define skb_put_data LINUX_BACKPORT(skb_put_data)
RETROFI_CENSUS(skb_put_data, "4.13", "additive",
	       "networking: introduce and use skb_put_data() (v4.13)");

static inline void LINUX_BACKPORT(skb_put_u8)(struct sk_buff *skb, u8 val)
{
	*(u8 *)skb_put(skb, 1) = val;
}
#define skb_put_u8 LINUX_BACKPORT(skb_put_u8)
RETROFI_CENSUS(skb_put_u8, "4.13", "additive",
	       "networking: add and use skb_put_u8() (v4.13)");
#endif /* < 4.13 */

/*
 * skb_mark_not_on_list() -- "net: Add and use skb_mark_not_on_list()."
 * (David S. Miller, commit a8305bff6852, v4.20; quoted by Intel's
 * backport headers; hauke/backports' guard: < 4.20, and stable 4.19.10
 * carries it): an skb taken off a list has no next. Additive.
 */
#if RETROFI_API_LESS(4, 20, 0)
static inline void LINUX_BACKPORT(skb_mark_not_on_list)(struct sk_buff *skb)
{
	skb->next = NULL;
}
#define skb_mark_not_on_list LINUX_BACKPORT(skb_mark_not_on_list)
RETROFI_CENSUS(skb_mark_not_on_list, "4.20", "additive",
	       "net: Add and use skb_mark_not_on_list(). (v4.20)");
#endif /* < 4.20 */

/*
 * skb_pull_data() -- "skbuff: introduce skb_pull_data" (v5.17): pull len
 * bytes and return where they start, or NULL (and pull nothing) when the
 * buffer is shorter (ath12k). Exported from net/core/skbuff.c upstream;
 * the body is upstream's, inline here. Probed.
 */
#if RETROFI_API_NEED(5, 17, 0, RETROFI_HAVE_skb_pull_data)
static inline void *LINUX_BACKPORT(skb_pull_data)(struct sk_buff *skb,
						  size_t len)
{
	void *data = skb->data;

	if (skb->len < len)
		return NULL;
	skb_pull(skb, len);
	return data;
}
#define skb_pull_data LINUX_BACKPORT(skb_pull_data)
RETROFI_CENSUS(skb_pull_data, "5.17", "probed",
	       "skbuff: introduce skb_pull_data (v5.17)");
#endif /* < 5.17 */

/*
 * napi_build_skb() -- "skbuff: introduce {,__}napi_build_skb() which
 * reuses NAPI cache heads" (v5.12): build_skb() that takes its head from
 * the CPU's NAPI cache, for a NAPI poll (mt76's receive paths). The skb
 * is the same; before, build_skb() is what made it. Additive, probed.
 */
#if RETROFI_API_NEED(5, 12, 0, RETROFI_HAVE_napi_build_skb)
static inline struct sk_buff *LINUX_BACKPORT(napi_build_skb)(void *data,
							     unsigned int frag_size)
{
	return build_skb(data, frag_size);
}
#define napi_build_skb LINUX_BACKPORT(napi_build_skb)
RETROFI_CENSUS(napi_build_skb, "5.12", "probed",
	       "skbuff: introduce {,__}napi_build_skb() which reuses NAPI cache heads (v5.12)");
#endif /* < 5.12 */

#endif /* _RETROFI_LINUX_SKBUFF_H */
