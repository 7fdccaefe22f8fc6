/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/math64.h>
 */
#ifndef _RETROFI_LINUX_MATH64_H
#define _RETROFI_LINUX_MATH64_H

#include_next <linux/math64.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * roundup_u64() -- "ice: add and use roundup_u64 instead of open coding
 * equivalent" (v6.11): x rounded up to the next multiple of a 32-bit y
 * (rtw89's channel code). Upstream's body, DIV_U64_ROUND_UP() spelt out
 * (5.10 has no such macro). Additive and probed (stable kernels may
 * carry it).
 */
#if RETROFI_API_NEED(6, 11, 0, RETROFI_HAVE_roundup_u64)
static inline u64 LINUX_BACKPORT(roundup_u64)(u64 x, u32 y)
{
	return div_u64(x + y - 1, y) * y;
}
#define roundup_u64 LINUX_BACKPORT(roundup_u64)
RETROFI_CENSUS(roundup_u64, "6.11", "probed",
	       "ice: add and use roundup_u64 instead of open coding equivalent (v6.11)");
#endif /* < 6.11 */

#endif /* _RETROFI_LINUX_MATH64_H */
