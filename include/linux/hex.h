/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/hex.h>
 *
 * "kernel.h: Split the hexadecimal related helpers to hex.h" (v6.4, the
 * title as posted in March 2023; the merge version not verified: every
 * served 6.1 ABI lacks the header, up to 6.1.192, and every 6.12 one has
 * it, from 6.12.107: the record is that bound and the guard its high end,
 * safe since the guard also asks for the header itself) moved hex_asc[], hex_byte_pack(),
 * hex_to_bin(), hex2bin(), bin2hex() and mac_pton() out of
 * <linux/kernel.h> into this new header; "kernel.h: drop hex.h and update
 * all hex.h users" (v7.0) stopped <linux/kernel.h> including it, so the
 * 7.x stack includes it itself (mac80211's debugfs_netdev.c). Before the
 * split, <linux/kernel.h> gives the same declarations.
 */
#ifndef _RETROFI_LINUX_HEX_H
#define _RETROFI_LINUX_HEX_H

#include <retrofi/backport.h>

/*
 * hex_asc[], hex_asc_upper[], hex_byte_pack(), hex_byte_pack_upper(),
 * hex_to_bin(), hex2bin(), bin2hex(), mac_pton(): structural (a header
 * that appeared); the target's own header is used wherever it has one.
 */
#if RETROFI_LINUX_LESS(6, 12, 107) && !__has_include_next("linux/hex.h")
#include <linux/kernel.h>
RETROFI_CENSUS(hex_h, "6.1.192..6.12.107", "structural",
	       "kernel.h: Split the hexadecimal related helpers to hex.h (v6.4, version not verified)");
#else
#include_next <linux/hex.h>
#endif /* < 6.12.107 */

#endif /* _RETROFI_LINUX_HEX_H */
