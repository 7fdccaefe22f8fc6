/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <asm-generic/barrier.h>
 */
#ifndef _RETROFI_ASM_GENERIC_BARRIER_H
#define _RETROFI_ASM_GENERIC_BARRIER_H

#include_next <asm-generic/barrier.h>
#include <retrofi/backport.h>

/*
 * dma_mb() -- "asm-generic: Add memory barrier dma_mb()" (v6.0): a full
 * barrier ordering memory accesses against DMA (ath11k's and ath12k's
 * hal.c, before they move a ring's head). Stable 5.10.y carries it
 * (5.10.0-46 has it, 5.10.0-30 has not); where an architecture has no
 * __dma_mb() of its own (x86 has none), upstream's is mb(). Structural,
 * by macro: defined where the target has no dma_mb, and with probes
 * forced off in place of the target's. This header is reached through
 * the architecture's <asm/barrier.h>, which includes it last.
 */
#if RETROFI_LINUX_LESS(6, 0, 0) && (!defined(dma_mb) || RETROFI_PROBED_ON(1))
#undef dma_mb
/* Upstream's fallback: a full barrier orders CPU accesses against DMA. */
#define dma_mb() mb()
RETROFI_CENSUS(dma_mb, "6.0", "structural",
	       "asm-generic: Add memory barrier dma_mb() (v6.0)");
#endif /* < 6.0 */

#endif /* _RETROFI_ASM_GENERIC_BARRIER_H */
