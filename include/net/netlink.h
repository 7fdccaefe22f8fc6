/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/netlink.h>
 */
#ifndef _RETROFI_NET_NETLINK_H
#define _RETROFI_NET_NETLINK_H

#include_next <net/netlink.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * NLA_POLICY_FULL_RANGE(), NLA_POLICY_FULL_RANGE_SIGNED() -- "netlink:
 * make range pointers in policies const" (v6.7) made struct nla_policy's
 * range and range_signed pointers const, and the stack passes const
 * ranges. Before, the pointers are not const, though netlink only ever
 * reads through them: the macros cast the const away. Structural (a struct
 * member's type).
 */
#if RETROFI_LINUX_LESS(6, 7, 0)
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}

#undef NLA_POLICY_FULL_RANGE_SIGNED
#define NLA_POLICY_FULL_RANGE_SIGNED(tp, _range) {			\
	.type = NLA_ENSURE_SINT_TYPE(tp),				\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range_signed = (struct netlink_range_validation_signed *)(_range), \
}
RETROFI_CENSUS(NLA_POLICY_FULL_RANGE, "6.7", "structural",
	       "netlink: make range pointers in policies const (v6.7)");
RETROFI_CENSUS(NLA_POLICY_FULL_RANGE_SIGNED, "6.7", "structural",
	       "netlink: make range pointers in policies const (v6.7)");
#endif /* < 6.7 */

/*
 * nla_put_in_addr() -- "netlink: implement nla_put_in_addr and
 * nla_put_in6_addr" and nla_get_in_addr() -- "netlink: implement
 * nla_get_in_addr and nla_get_in6_addr" (Jiri Benc, March 2015, v4.1;
 * quoted by Open vSwitch's datapath backport of them);
 * nla_put_u64_64bit() -- 4.7; nla_memdup() -- 4.10 (the upstream commit
 * titles of these two are not verified here); nla_nest_start_noflag() --
 * "netlink: make nla_nest_start() add NLA_F_NESTED flag" (Michal Kubecek,
 * April 2019, v5.2; quoted by Open vSwitch's datapath backport of it).
 * Versions from hauke/backports' guards in its backport-include headers.
 * Additive; 6.12's semantics, written over nla_put()/__nla_put()
 * (nla_put_u64_64bit() checks the room for the attribute and its
 * alignment padding first, as 6.12's nla_put_64bit() does).
 */
#if RETROFI_API_LESS(4, 1, 0)
static inline int LINUX_BACKPORT(nla_put_in_addr)(struct sk_buff *skb,
						  int attrtype, __be32 addr)
{
	__be32 tmp = addr;

	return nla_put(skb, attrtype, sizeof(tmp), &tmp);
}
#define nla_put_in_addr LINUX_BACKPORT(nla_put_in_addr)
RETROFI_CENSUS(nla_put_in_addr, "4.1", "additive",
	       "netlink: implement nla_put_in_addr and nla_put_in6_addr (v4.1)");

static inline __be32 LINUX_BACKPORT(nla_get_in_addr)(const struct nlattr *nla)
{
	return *(__be32 *)nla_data(nla);
}
#define nla_get_in_addr LINUX_BACKPORT(nla_get_in_addr)
RETROFI_CENSUS(nla_get_in_addr, "4.1", "additive",
	       "netlink: implement nla_get_in_addr and nla_get_in6_addr (v4.1)");
#endif /* < 4.1 */

#if RETROFI_API_LESS(4, 7, 0)
static inline int LINUX_BACKPORT(nla_put_u64_64bit)(struct sk_buff *skb,
						    int attrtype, u64 value,
						    int padattr)
{
	u64 tmp = value;
	bool pad = false;

#ifndef CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS
	/* The payload follows a 4-byte header: aligned only if the tail is not. */
	pad = IS_ALIGNED((unsigned long)skb_tail_pointer(skb), 8);
#endif
	if (unlikely(skb_tailroom(skb) < nla_total_size(sizeof(tmp)) +
					 (pad ? nla_total_size(0) : 0)))
		return -EMSGSIZE;
	if (pad)
		__nla_put(skb, padattr, 0, NULL);
	__nla_put(skb, attrtype, sizeof(tmp), &tmp);
	return 0;
}
#define nla_put_u64_64bit LINUX_BACKPORT(nla_put_u64_64bit)
RETROFI_CENSUS(nla_put_u64_64bit, "4.7", "additive",
	       "hauke/backports backport-include guard (title not verified)");
#endif /* < 4.7 */

#if RETROFI_API_LESS(4, 10, 0)
static inline void *LINUX_BACKPORT(nla_memdup)(const struct nlattr *src,
					       gfp_t gfp)
{
	return kmemdup(nla_data(src), nla_len(src), gfp);
}
#undef nla_memdup
#define nla_memdup LINUX_BACKPORT(nla_memdup)
RETROFI_CENSUS(nla_memdup, "4.10", "additive",
	       "hauke/backports backport-include guard (title not verified)");
#endif /* < 4.10 */

#if RETROFI_API_LESS(5, 2, 0)
static inline struct nlattr *
LINUX_BACKPORT(nla_nest_start_noflag)(struct sk_buff *skb, int attrtype)
{
	struct nlattr *start = (struct nlattr *)skb_tail_pointer(skb);

	if (nla_put(skb, attrtype, 0, NULL) < 0)
		return NULL;

	return start;
}
#define nla_nest_start_noflag LINUX_BACKPORT(nla_nest_start_noflag)
RETROFI_CENSUS(nla_nest_start_noflag, "5.2", "additive",
	       "netlink: make nla_nest_start() add NLA_F_NESTED flag (v5.2)");
#endif /* < 5.2 */

/*
 * nla_get_u8_default(), nla_get_u16_default(), nla_get_u32_default() --
 * "net: netlink: add nla_get_*_default() accessors" (v6.13; every 6.12
 * ABI the archive serves lacks them, every 7.2 one has them): an
 * attribute's value, or the default when the attribute is absent (NULL).
 * 6.13's bodies. Probed: stable kernels may carry them.
 */
#if RETROFI_API_NEED(6, 13, 0, RETROFI_HAVE_nla_get_u32_default)
static inline u8 LINUX_BACKPORT(nla_get_u8_default)(const struct nlattr *nla,
						    u8 defvalue)
{
	return nla ? nla_get_u8(nla) : defvalue;
}
#define nla_get_u8_default LINUX_BACKPORT(nla_get_u8_default)
RETROFI_CENSUS(nla_get_u8_default, "6.13", "probed",
	       "net: netlink: add nla_get_*_default() accessors (v6.13)");

static inline u16 LINUX_BACKPORT(nla_get_u16_default)(const struct nlattr *nla,
						      u16 defvalue)
{
	return nla ? nla_get_u16(nla) : defvalue;
}
#define nla_get_u16_default LINUX_BACKPORT(nla_get_u16_default)
RETROFI_CENSUS(nla_get_u16_default, "6.13", "probed",
	       "net: netlink: add nla_get_*_default() accessors (v6.13)");

static inline u32 LINUX_BACKPORT(nla_get_u32_default)(const struct nlattr *nla,
						      u32 defvalue)
{
	return nla ? nla_get_u32(nla) : defvalue;
}
#define nla_get_u32_default LINUX_BACKPORT(nla_get_u32_default)
RETROFI_CENSUS(nla_get_u32_default, "6.13", "probed",
	       "net: netlink: add nla_get_*_default() accessors (v6.13)");
#endif /* < 6.13 */

/*
 * nlmsg_for_each_attr_type() -- "netlink: introduce type-checking
 * attribute iteration for nlmsg" (v6.17): the attributes of one type in
 * a netlink message. Stable 6.12.y took it later (Debian 6.12.118 has
 * it, 6.12.107 has not), so below 6.17 the probe decides. Upstream's
 * body. Probed.
 */
#if RETROFI_API_NEED(6, 17, 0, RETROFI_HAVE_nlmsg_for_each_attr_type)
#undef nlmsg_for_each_attr_type
#define nlmsg_for_each_attr_type LINUX_BACKPORT(nlmsg_for_each_attr_type)
#define backport_nlmsg_for_each_attr_type(pos, type, nlh, hdrlen, rem)	\
	nlmsg_for_each_attr(pos, nlh, hdrlen, rem)			\
		if (nla_type(pos) == type)
RETROFI_CENSUS(nlmsg_for_each_attr_type, "6.17", "probed",
	       "netlink: introduce type-checking attribute iteration for nlmsg (v6.17)");
#endif /* < 6.17 */

#endif /* _RETROFI_NET_NETLINK_H */
