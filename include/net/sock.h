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
 * its Wi-Fi TX status (SO_WIFI_STATUS): 7.3's <net/sock.h> has it, 6.12
 * not (the commit and the version between are not verified here; 6.13
 * is the guard). 7.3's body. Probed.
 */
#if RETROFI_API_NEED(6, 13, 0, RETROFI_HAVE_sk_requests_wifi_status)
static inline bool LINUX_BACKPORT(sk_requests_wifi_status)(struct sock *sk)
{
	return sk && sk_fullsock(sk) && sock_flag(sk, SOCK_WIFI_STATUS);
}
#define sk_requests_wifi_status LINUX_BACKPORT(sk_requests_wifi_status)
RETROFI_CENSUS(sk_requests_wifi_status, "6.13", "probed",
	       "sk_requests_wifi_status() as in 7.3 (commit and version not verified)");
#endif /* < 6.13 */

#endif /* _RETROFI_NET_SOCK_H */
