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
#endif /* < 6.2 */

/*
 * genlmsg_multicast_allns() -- "genetlink: fix genlmsg_multicast_allns()"
 * (v6.10; title not verified here) dropped its gfp_t argument: it sends
 * under rcu_read_lock(), so it always allocates GFP_ATOMIC. Stable 5.10.y
 * carries the change (Debian 5.10.0-46 has it, 5.10.0-30 does not).
 * Structural (a changed signature), probed: where the target still takes
 * the flags, the stack's three-argument calls pass GFP_ATOMIC, as the
 * fixed function does.
 */
#if RETROFI_LINUX_LESS(6, 10, 0) && !RETROFI_HAVE_genlmsg_multicast_allns_noflags
static inline int LINUX_BACKPORT(genlmsg_multicast_allns)(const struct genl_family *family,
							  struct sk_buff *skb, u32 portid,
							  unsigned int group)
{
	return genlmsg_multicast_allns(family, skb, portid, group, GFP_ATOMIC);
}
#define genlmsg_multicast_allns LINUX_BACKPORT(genlmsg_multicast_allns)
RETROFI_CENSUS(genlmsg_multicast_allns, "6.10", "structural",
	       "genetlink: fix genlmsg_multicast_allns() (v6.10, title not verified)");
#endif /* < 6.10 */

#endif /* _RETROFI_NET_GENETLINK_H */
