/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/etherdevice.h>
 *
 * The Ethernet address helpers the stack calls on every frame. Versions
 * from the guards of mcgrof/compat's and hauke/backports' compat-X.Y.h
 * and backport-include headers. All additive, with 6.12's
 * bodies.
 */
#ifndef _RETROFI_LINUX_ETHERDEVICE_H
#define _RETROFI_LINUX_ETHERDEVICE_H

#include_next <linux/etherdevice.h>
#include <linux/random.h>
#include <linux/string.h>
#include <retrofi/backport.h>

/*
 * is_unicast_ether_addr() -- 2.6.38 (compat-2.6.38.h of hauke/backports;
 * the upstream commit title is not verified here).
 */
#if RETROFI_API_LESS(2, 6, 38)
static inline bool LINUX_BACKPORT(is_unicast_ether_addr)(const u8 *addr)
{
	return !is_multicast_ether_addr(addr);
}
#define is_unicast_ether_addr LINUX_BACKPORT(is_unicast_ether_addr)
RETROFI_CENSUS(is_unicast_ether_addr, "2.6.38", "additive",
	       "compat-2.6.38.h of hauke/backports (title not verified)");
#endif /* < 2.6.38 */

/*
 * ether_addr_equal() -- "etherdevice.h: Add ether_addr_equal" (Joe
 * Perches, May 2012, v3.5; quoted by hauke/backports' commit that
 * backported it, guard < 3.5); ether_addr_equal_64bits() -- 3.5
 * (hauke/backports' guard < 3.5; the upstream commit title is not verified
 * here): whether two addresses are equal, in one compare where unaligned
 * loads are cheap.
 */
#if RETROFI_API_LESS(3, 5, 0)
static inline bool LINUX_BACKPORT(ether_addr_equal)(const u8 *addr1,
						    const u8 *addr2)
{
#if defined(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS)
	u32 fold = ((*(const u32 *)addr1) ^ (*(const u32 *)addr2)) |
		   ((*(const u16 *)(addr1 + 4)) ^ (*(const u16 *)(addr2 + 4)));

	return fold == 0;
#else
	const u16 *a = (const u16 *)addr1;
	const u16 *b = (const u16 *)addr2;

	return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2])) == 0;
#endif
}
#define ether_addr_equal LINUX_BACKPORT(ether_addr_equal)
RETROFI_CENSUS(ether_addr_equal, "3.5", "additive",
	       "etherdevice.h: Add ether_addr_equal (v3.5)");

static inline bool LINUX_BACKPORT(ether_addr_equal_64bits)(const u8 *addr1,
							   const u8 *addr2)
{
#if defined(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) && BITS_PER_LONG == 64
	u64 fold = (*(const u64 *)addr1) ^ (*(const u64 *)addr2);

#ifdef __BIG_ENDIAN
	return (fold >> 16) == 0;
#else
	return (fold << 16) == 0;
#endif
#else
	return ether_addr_equal(addr1, addr2);
#endif
}
#define ether_addr_equal_64bits LINUX_BACKPORT(ether_addr_equal_64bits)
RETROFI_CENSUS(ether_addr_equal_64bits, "3.5", "additive",
	       "hauke/backports backport-include guard (title not verified)");
#endif /* < 3.5 */

/*
 * eth_broadcast_addr() -- "etherdevice: introduce eth_broadcast_addr"
 * (Johannes Berg, v3.6), and eth_random_addr() -- "etherdevice: Rename
 * random_ether_addr to eth_random_addr" (Joe Perches, July 2012, v3.6);
 * both quoted by the hauke/backports commits that backported them, guard
 * < 3.6: the broadcast address, and a random locally administered unicast
 * one.
 */
#if RETROFI_API_LESS(3, 6, 0)
static inline void LINUX_BACKPORT(eth_broadcast_addr)(u8 *addr)
{
	memset(addr, 0xff, ETH_ALEN);
}
#define eth_broadcast_addr LINUX_BACKPORT(eth_broadcast_addr)
RETROFI_CENSUS(eth_broadcast_addr, "3.6", "additive",
	       "etherdevice: introduce eth_broadcast_addr (v3.6)");

static inline void LINUX_BACKPORT(eth_random_addr)(u8 *addr)
{
	get_random_bytes(addr, ETH_ALEN);
	addr[0] &= 0xfe;	/* clear multicast bit */
	addr[0] |= 0x02;	/* set local assignment bit (IEEE802) */
}
#define eth_random_addr LINUX_BACKPORT(eth_random_addr)
RETROFI_CENSUS(eth_random_addr, "3.6", "additive",
	       "etherdevice: Rename random_ether_addr to eth_random_addr (v3.6)");
#endif /* < 3.6 */

/*
 * eth_zero_addr() -- "etherdevice: introduce help function
 * eth_zero_addr()" (Duan Jiong, September 2012, v3.7; cited by
 * hauke/backports, guard < 3.7).
 */
#if RETROFI_API_LESS(3, 7, 0)
static inline void LINUX_BACKPORT(eth_zero_addr)(u8 *addr)
{
	memset(addr, 0x00, ETH_ALEN);
}
#define eth_zero_addr LINUX_BACKPORT(eth_zero_addr)
RETROFI_CENSUS(eth_zero_addr, "3.7", "additive",
	       "etherdevice: introduce help function eth_zero_addr() (v3.7)");
#endif /* < 3.7 */

/*
 * ether_addr_copy() -- 3.14 (hauke/backports' "backports: add
 * ether_addr_copy()", guard < 3.14; the upstream commit title is not
 * verified here): copy an address with two loads where that is cheap.
 */
#if RETROFI_API_LESS(3, 14, 0)
static inline void LINUX_BACKPORT(ether_addr_copy)(u8 *dst, const u8 *src)
{
#if defined(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS)
	*(u32 *)dst = *(const u32 *)src;
	*(u16 *)(dst + 4) = *(const u16 *)(src + 4);
#else
	u16 *a = (u16 *)dst;
	const u16 *b = (const u16 *)src;

	a[0] = b[0];
	a[1] = b[1];
	a[2] = b[2];
#endif
}
#define ether_addr_copy LINUX_BACKPORT(ether_addr_copy)
RETROFI_CENSUS(ether_addr_copy, "3.14", "additive",
	       "hauke/backports backport-include guard (title not verified)");
#endif /* < 3.14 */

#endif /* _RETROFI_LINUX_ETHERDEVICE_H */
