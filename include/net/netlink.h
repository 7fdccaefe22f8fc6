/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/netlink.h>
 */
#ifndef _RETROFI_NET_NETLINK_H
#define _RETROFI_NET_NETLINK_H

#include_next <net/netlink.h>
#include <retrofi/backport.h>

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
#endif /* < 6.7 */

#endif /* _RETROFI_NET_NETLINK_H */
