/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/gso.h>
 *
 * "net: move gso declarations and functions to their own files" (v6.6)
 * moved skb_gso_segment(), skb_mac_gso_segment() and friends out of
 * <linux/netdevice.h> and <linux/skbuff.h> into this new header. Before
 * 6.6 those two headers give the same declarations. Structural (a header
 * that appeared).
 */
#ifndef _RETROFI_NET_GSO_H
#define _RETROFI_NET_GSO_H

#include <retrofi/backport.h>

#if RETROFI_LINUX_LESS(6, 6, 0)
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#else
#include_next <net/gso.h>
#endif /* < 6.6 */

#endif /* _RETROFI_NET_GSO_H */
