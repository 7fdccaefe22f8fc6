/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/interrupt.h>
 */
#ifndef _RETROFI_LINUX_INTERRUPT_H
#define _RETROFI_LINUX_INTERRUPT_H

#include_next <linux/interrupt.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * tasklet_disable_in_atomic() -- "tasklets: Provide
 * tasklet_disable_in_atomic()" (v5.13), for callers that disable a tasklet
 * in atomic context (ath9k's beacon code): the same series let
 * tasklet_disable() sleep while the tasklet runs, and this variant keeps
 * spinning. Before 5.13, tasklet_disable() itself spins (its
 * tasklet_unlock_wait() busy-waits for TASKLET_STATE_RUN), so it is the
 * atomic-safe call there. Structural: on a newer kernel tasklet_disable()
 * may sleep, so this cannot be shaped by API level. Probed: stable kernels
 * may carry it.
 */
#if RETROFI_LINUX_LESS(5, 13, 0) && !RETROFI_HAVE_tasklet_disable_in_atomic
static inline void
LINUX_BACKPORT(tasklet_disable_in_atomic)(struct tasklet_struct *t)
{
	tasklet_disable(t);
}
#define tasklet_disable_in_atomic LINUX_BACKPORT(tasklet_disable_in_atomic)
RETROFI_CENSUS(tasklet_disable_in_atomic, "5.13", "structural",
	       "tasklets: Provide tasklet_disable_in_atomic() (v5.13)");
#endif /* < 5.13 */

/*
 * irq_can_set_affinity() exported -- the export of irq_can_set_affinity()
 * (v7.3, title not verified: no 7.2 ABI the archive serves exports it, up
 * to 7.2.12, and 7.3.4 does; every kernel declares it): whether an
 * interrupt's affinity can be set, which ath12k's PCI glue asks to pick
 * threaded NAPI. Before 7.3 a module cannot link against it, so compat.ko
 * (backport-7.3.c) answers the same from the exported irq_get_irq_data(),
 * as upstream's __irq_can_set_affinity() does from the descriptor: a
 * balancable interrupt whose chip sets affinities. Structural (an export,
 * which no header shows); without CONFIG_SMP the target's own inline
 * answers 0.
 */
#if RETROFI_LINUX_LESS(7, 3, 0) && defined(CONFIG_SMP)
#define irq_can_set_affinity LINUX_BACKPORT(irq_can_set_affinity)
int irq_can_set_affinity(unsigned int irq);
RETROFI_CENSUS(irq_can_set_affinity, "7.3", "structural",
	       "the export of irq_can_set_affinity() (v7.3, title not verified)");
#endif /* < 7.3 */

/*
 * irq_set_affinity_and_hint() -- "genirq: Provide new interfaces for
 * affinity hints" (v5.17): set an interrupt's affinity hint and, where
 * the mask is not NULL, apply it as the interrupt's affinity (ath11k's
 * and ath12k's PCI glue; NULL clears the hint before free_irq()). Before,
 * irq_set_affinity_hint() did exactly that (5.17 split it into this and
 * irq_update_affinity_hint(), which only sets the hint). Stable 5.10.y
 * carries the new interfaces (5.10.0-46 has them, 5.10.0-30 has not).
 * Structural and probed; with probes forced off, the shim replaces the
 * target's own.
 */
#if RETROFI_LINUX_LESS(5, 17, 0) && \
	RETROFI_PROBED_ON(RETROFI_HAVE_irq_set_affinity_and_hint)
static inline int
LINUX_BACKPORT(irq_set_affinity_and_hint)(unsigned int irq, const struct cpumask *m)
{
	return irq_set_affinity_hint(irq, m);
}
#define irq_set_affinity_and_hint LINUX_BACKPORT(irq_set_affinity_and_hint)
RETROFI_CENSUS(irq_set_affinity_and_hint, "5.17", "structural",
	       "genirq: Provide new interfaces for affinity hints (v5.17)");
#endif /* < 5.17 */

#endif /* _RETROFI_LINUX_INTERRUPT_H */
