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

#endif /* _RETROFI_LINUX_RANDOM_H */
