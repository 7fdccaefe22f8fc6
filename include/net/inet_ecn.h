/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/inet_ecn.h>
 */
#ifndef _RETROFI_NET_INET_ECN_H
#define _RETROFI_NET_INET_ECN_H

#include_next <net/inet_ecn.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * skb_get_dsfield() -- "net: add skb_get_dsfield() helper" (v5.16): the
 * DS field of an IPv4 or IPv6 packet, or -1. The copied <net/codel_impl.h>
 * uses it for ECT(1) marking. Additive, probed; the body is upstream's.
 */
#if RETROFI_API_NEED(5, 16, 0, RETROFI_HAVE_skb_get_dsfield)
static inline int LINUX_BACKPORT(skb_get_dsfield)(struct sk_buff *skb)
{
	switch (skb_protocol(skb, true)) {
	case cpu_to_be16(ETH_P_IP):
		if (!pskb_network_may_pull(skb, sizeof(struct iphdr)))
			break;
		return ipv4_get_dsfield(ip_hdr(skb));

	case cpu_to_be16(ETH_P_IPV6):
		if (!pskb_network_may_pull(skb, sizeof(struct ipv6hdr)))
			break;
		return ipv6_get_dsfield(ipv6_hdr(skb));
	}

	return -1;
}
#define skb_get_dsfield LINUX_BACKPORT(skb_get_dsfield)
RETROFI_CENSUS(skb_get_dsfield, "5.16", "probed",
	       "net: add skb_get_dsfield() helper (v5.16)");
#endif /* < 5.16 */

#endif /* _RETROFI_NET_INET_ECN_H */
