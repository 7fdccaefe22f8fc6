/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/unaligned.h>
 *
 * "move asm/unaligned.h to linux/unaligned.h" (v6.12-rc2) moved the
 * unaligned access helpers from <asm/unaligned.h> (asm-generic's on every
 * architecture since v5.14) to <linux/unaligned.h>, with the same contents.
 * Older kernels have only the old location. Structural: the old header is
 * gone from 6.12, so this cannot be shaped by API level.
 */
#ifndef _RETROFI_LINUX_UNALIGNED_H
#define _RETROFI_LINUX_UNALIGNED_H

#include <retrofi/backport.h>

#if RETROFI_LINUX_LESS(6, 12, 0)
#include <asm/unaligned.h>
RETROFI_CENSUS(linux_unaligned_h, "6.12", "structural",
	       "move asm/unaligned.h to linux/unaligned.h (v6.12)");
#else
#include_next <linux/unaligned.h>
#endif /* < 6.12 */

#endif /* _RETROFI_LINUX_UNALIGNED_H */
