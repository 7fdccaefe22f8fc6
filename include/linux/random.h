/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/random.h>
 */
#ifndef _RETROFI_LINUX_RANDOM_H
#define _RETROFI_LINUX_RANDOM_H

#include_next <linux/random.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * get_random_u16() -- "random: add 8-bit and 16-bit batches" (v6.1): a
 * random u16 from the CRNG, from a per-CPU batch of them. The shim takes
 * the low half of get_random_u32() from the same CRNG: the same uniform
 * distribution, without the 16-bit batch. Additive, probed.
 */
#if RETROFI_API_NEED(6, 1, 0, RETROFI_HAVE_get_random_u16)
static inline u16 LINUX_BACKPORT(get_random_u16)(void)
{
	return (u16)get_random_u32();
}
#define get_random_u16 LINUX_BACKPORT(get_random_u16)
RETROFI_CENSUS(get_random_u16, "6.1", "probed",
	       "random: add 8-bit and 16-bit batches (v6.1)");
#endif /* < 6.1 */

/*
 * get_random_u8() -- "random: add 8-bit and 16-bit batches" (v6.1): a
 * random u8 from the CRNG. The low byte of get_random_u32(), as the u16
 * shim above. Probed: Debian's 6.1.192 has it.
 */
#if RETROFI_API_NEED(6, 1, 0, RETROFI_HAVE_get_random_u8)
static inline u8 LINUX_BACKPORT(get_random_u8)(void)
{
	return (u8)get_random_u32();
}
#define get_random_u8 LINUX_BACKPORT(get_random_u8)
RETROFI_CENSUS(get_random_u8, "6.1", "probed",
	       "random: add 8-bit and 16-bit batches (v6.1)");
#endif /* < 6.1 */

/*
 * get_random_u32_inclusive() -- "random: add helpers for random numbers
 * with given floor or range" (v6.2): a uniform random u32 in [floor,
 * ceil]. The shim draws from get_random_u32() by Lemire's multiply-shift
 * with rejection, as 6.2's __get_random_u32_below() does, so the result
 * has no modulo bias; the whole range (0, U32_MAX) is one draw. Probed:
 * Debian's 6.1.192 has it from stable.
 */
#if RETROFI_API_NEED(6, 2, 0, RETROFI_HAVE_get_random_u32_inclusive)
static inline u32 LINUX_BACKPORT(get_random_u32_inclusive)(u32 floor, u32 ceil)
{
	u32 span = ceil - floor + 1;
	u64 mult;

	if (!span)
		return get_random_u32();
	mult = (u64)span * get_random_u32();
	if (unlikely((u32)mult < span)) {
		u32 bound = -span % span;

		while (unlikely((u32)mult < bound))
			mult = (u64)span * get_random_u32();
	}
	return floor + (u32)(mult >> 32);
}
#define get_random_u32_inclusive LINUX_BACKPORT(get_random_u32_inclusive)
RETROFI_CENSUS(get_random_u32_inclusive, "6.2", "probed",
	       "random: add helpers for random numbers with given floor or range (v6.2)");
#endif /* < 6.2 */

#endif /* _RETROFI_LINUX_RANDOM_H */
