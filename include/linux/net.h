/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/net.h>
 */
#ifndef _RETROFI_LINUX_NET_H
#define _RETROFI_LINUX_NET_H

#include_next <linux/net.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * struct sockaddr_unsized, kernel_connect() of one -- the change that
 * gave kernel_connect() (and the protocols' connect) a struct
 * sockaddr_unsized *, an address whose length only the addrlen argument
 * gives (title and version not verified: no 6.12 ABI the archive serves
 * has it, up to 6.12.118, every 7.2 one has, from 7.2.6: the record is
 * that bound and the guard its high end, safe since probed). ath11k and
 * ath12k connect their QMI socket with a cast to it. Before, the same
 * function takes a struct sockaddr *, with the same length argument: the
 * type is declared (never defined, as callers only cast to it) and
 * kernel_connect() casts it back. Structural (a changed signature).
 */
#if RETROFI_LINUX_LESS(7, 2, 6) && !RETROFI_HAVE_sockaddr_unsized
struct sockaddr_unsized;
#define kernel_connect(sock, addr, addrlen, flags) \
	kernel_connect(sock, (struct sockaddr *)(addr), addrlen, flags)
RETROFI_CENSUS(sockaddr_unsized, "6.12.118..7.2.6", "structural",
	       "net: kernel_connect() of a struct sockaddr_unsized (title and version not verified)");
#endif /* < 7.2.6 */

#endif /* _RETROFI_LINUX_NET_H */
