/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/sock.h>
 */
#ifndef _RETROFI_NET_SOCK_H
#define _RETROFI_NET_SOCK_H

#include_next <net/sock.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

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
