/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/gso.h>
 *
 * "net: move gso declarations and functions to their own files" (v6.5,
 * and stable 6.4.10) moved skb_gso_segment(), skb_mac_gso_segment() and
 * friends out of <linux/netdevice.h> and <linux/skbuff.h> into this new
 * header. Before, those two headers give the same declarations. Structural
 * (a header that appeared); since a stable kernel may carry the move, the
 * target's own header is used wherever it has one.
 */
#ifndef _RETROFI_NET_GSO_H
#define _RETROFI_NET_GSO_H

#include <retrofi/backport.h>

#if RETROFI_LINUX_LESS(6, 4, 10) && !__has_include_next("net/gso.h")
#include <linux/netdevice.h>
#include <linux/skbuff.h>
RETROFI_CENSUS(net_gso_h, "6.4.10", "structural",
	       "net: move gso declarations and functions to their own files (v6.4.10 from stable; v6.5)");
#else
#include_next <net/gso.h>
#endif /* < 6.4.10 */

#endif /* _RETROFI_NET_GSO_H */
