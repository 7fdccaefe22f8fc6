/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/genetlink.h>
 */
#ifndef _RETROFI_NET_GENETLINK_H
#define _RETROFI_NET_GENETLINK_H

#include_next <net/genetlink.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * struct genl_split_ops -- "genetlink: introduce split op representation"
 * (v6.2) made the family's pre_doit()/post_doit() hooks take a
 * const struct genl_split_ops *; before, they take the const struct
 * genl_ops * of the operation, which has the same internal_flags (the only
 * member nl80211's hooks read). Structural: the hooks' signature. The name
 * is mapped, as the backports project did, so the stack's hooks have the
 * type the old struct genl_family expects.
 */
#if RETROFI_LINUX_LESS(6, 2, 0)
#define genl_split_ops genl_ops
RETROFI_CENSUS(genl_split_ops, "6.2", "structural",
	       "genetlink: introduce split op representation (v6.2)");
#endif /* < 6.2 */

/*
 * genlmsg_multicast_allns() -- "genetlink: fix genlmsg_multicast_allns()"
 * (v6.10; title not verified here) dropped its gfp_t argument: it sends
 * under rcu_read_lock(), so it always allocates GFP_ATOMIC. Stable 5.10.y
 * carries the change (Debian 5.10.0-46 has it, 5.10.0-30 does not).
 * Structural (a changed signature), probed: where the target still takes
 * the flags, the stack's three-argument calls pass GFP_ATOMIC, as the
 * fixed function does.
 *
 * With probes forced off (<retrofi/backport.h>) on a target that has the
 * fix (Debian's 5.10.262 and 6.1.192, the booted rows below 6.10), the
 * body cannot call the function it wraps: the target has no five-argument
 * genlmsg_multicast_allns(), the same name takes four there. There the
 * body's call goes to retrofi_genlmsg_multicast_allns_gfp(), a function
 * of the pre-6.10 signature that the selftest module defines (it records
 * the flags and sends through the target's own), and the rest of the
 * body -- the arguments passed on, GFP_ATOMIC -- is what runs.
 */
#if RETROFI_LINUX_LESS(6, 10, 0) && \
	RETROFI_PROBED_ON(RETROFI_HAVE_genlmsg_multicast_allns_noflags)
#if RETROFI_HAVE_genlmsg_multicast_allns_noflags
static int retrofi_genlmsg_multicast_allns_gfp(const struct genl_family *family,
					       struct sk_buff *skb, u32 portid,
					       unsigned int group, gfp_t flags);
#define genlmsg_multicast_allns retrofi_genlmsg_multicast_allns_gfp
#endif
static inline int LINUX_BACKPORT(genlmsg_multicast_allns)(const struct genl_family *family,
							  struct sk_buff *skb, u32 portid,
							  unsigned int group)
{
	return genlmsg_multicast_allns(family, skb, portid, group, GFP_ATOMIC);
}
#undef genlmsg_multicast_allns
#define genlmsg_multicast_allns LINUX_BACKPORT(genlmsg_multicast_allns)
RETROFI_CENSUS(genlmsg_multicast_allns, "6.10", "structural",
	       "genetlink: fix genlmsg_multicast_allns() (v6.10, title not verified)");
#endif /* < 6.10 */

#endif /* _RETROFI_NET_GENETLINK_H */
