/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/units.h>
 */
#ifndef _RETROFI_LINUX_UNITS_H
#define _RETROFI_LINUX_UNITS_H

#include_next <linux/units.h>
#include <retrofi/backport.h>

/*
 * KHZ_PER_GHZ -- "wifi: cfg80211: Add KHZ_PER_GHZ to units.h and reuse"
 * (v6.9). Additive; a constant
 * macro, so it is simply (re)defined with upstream's value: a stable
 * kernel that carries it is not disturbed, and no probe is needed.
 */
#if RETROFI_API_LESS(6, 9, 0)
#undef KHZ_PER_GHZ
#define KHZ_PER_GHZ		1000000UL
RETROFI_CENSUS(KHZ_PER_GHZ, "6.9", "additive",
	       "wifi: cfg80211: Add KHZ_PER_GHZ to units.h and reuse (v6.9)");
#endif /* < 6.9 */

#endif /* _RETROFI_LINUX_UNITS_H */
