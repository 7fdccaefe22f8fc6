/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/sock.h>
 */
#ifndef _RETROFI_NET_SOCK_H
#define _RETROFI_NET_SOCK_H

#include <linux/types.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * lockdep_sock_is_held() without CONFIG_LOCKDEP -- "net: Un-hide
 * lockdep_sock_is_held() for !LOCKDEP" (v5.11), part of the series that
 * made RCU_LOCKDEP_WARN() evaluate its condition (<linux/rcupdate.h>):
 * the target's __sk_dst_get() calls it in the condition of
 * rcu_dereference_check(), which the compat RCU_LOCKDEP_WARN() now
 * compiles. Declared before the target's header, never defined: the
 * condition is dead code, as with lockdep_is_held()'s declaration of the
 * same series. Structural: it exists only where lockdep does not.
 */
#if RETROFI_LINUX_LESS(5, 11, 0) && !defined(CONFIG_LOCKDEP)
struct sock;
extern bool lockdep_sock_is_held(const struct sock *sk);
RETROFI_CENSUS(lockdep_sock_is_held, "5.11", "structural",
	       "net: Un-hide lockdep_sock_is_held() for !LOCKDEP (v5.11)");
#endif /* < 5.11 */

#include_next <net/sock.h>

/*
 * sk_requests_wifi_status() -- whether the socket of a frame asked for
 * its Wi-Fi TX status (SO_WIFI_STATUS): "wifi: add
 * sk_requests_wifi_status()", posted on 2025-05-20 and applied to
 * wireless-next the next day, so in v6.16 (its final title is not
 * verified: the maintainer offered to retitle it when applying). The
 * archive agrees: every 6.12 ABI it serves lacks it, up to 6.12.118, and
 * every 7.2 one has it, from 7.2.6: the record is that bound and the
 * guard its high end (safe: probed). 7.3's body.
 */
#if RETROFI_API_NEED(7, 2, 6, RETROFI_HAVE_sk_requests_wifi_status)
static inline bool LINUX_BACKPORT(sk_requests_wifi_status)(struct sock *sk)
{
	return sk && sk_fullsock(sk) && sock_flag(sk, SOCK_WIFI_STATUS);
}
#define sk_requests_wifi_status LINUX_BACKPORT(sk_requests_wifi_status)
RETROFI_CENSUS(sk_requests_wifi_status, "6.12.118..7.2.6", "probed",
	       "wifi: add sk_requests_wifi_status() (v6.16, final title not verified)");
#endif /* < 7.2.6 */

#endif /* _RETROFI_NET_SOCK_H */
