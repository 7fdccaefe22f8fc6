/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/workqueue.h>
 */
#ifndef _RETROFI_LINUX_WORKQUEUE_H
#define _RETROFI_LINUX_WORKQUEUE_H

#include_next <linux/workqueue.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * system_dfl_wq -- "workqueue: Add system_percpu_wq and system_dfl_wq"
 * (v6.17): the unbound system workqueue under its new name (the
 * workqueue API is moving to unbound by default). The shim is
 * system_unbound_wq, what it names. Probed: Debian's 6.12.118 has it
 * from stable.
 */
#if RETROFI_API_NEED(6, 17, 0, RETROFI_HAVE_system_dfl_wq)
#undef system_dfl_wq
#define system_dfl_wq LINUX_BACKPORT(system_dfl_wq)
#define backport_system_dfl_wq system_unbound_wq
RETROFI_CENSUS(system_dfl_wq, "6.17", "probed",
	       "workqueue: Add system_percpu_wq and system_dfl_wq (v6.17)");
#endif /* < 6.17 */

/*
 * system_percpu_wq -- "workqueue: Add system_percpu_wq and system_dfl_wq"
 * (v6.17): the per-CPU system workqueue under its new name. The shim is
 * system_wq, what it names (iwlwifi's mvm, mt7921 and mt7925). Probed:
 * Debian's 6.12.118 has it from stable.
 */
#if RETROFI_API_NEED(6, 17, 0, RETROFI_HAVE_system_percpu_wq)
#undef system_percpu_wq
#define system_percpu_wq LINUX_BACKPORT(system_percpu_wq)
#define backport_system_percpu_wq system_wq
RETROFI_CENSUS(system_percpu_wq, "6.17", "probed",
	       "workqueue: Add system_percpu_wq and system_dfl_wq (v6.17)");
#endif /* < 6.17 */

/*
 * WQ_PERCPU -- "workqueue: Add new WQ_PERCPU flag" (v6.17): says that a
 * workqueue is bound to its CPUs, which every workqueue without
 * WQ_UNBOUND is before it, so the flag is 0 there (rtw88's and rtw89's
 * USB glue). Probed: an enumerator, and Debian's 6.12.118 has it from
 * stable.
 */
#if RETROFI_API_NEED(6, 17, 0, RETROFI_HAVE_WQ_PERCPU)
#undef WQ_PERCPU
#define WQ_PERCPU 0
RETROFI_CENSUS(WQ_PERCPU, "6.17", "probed",
	       "workqueue: Add new WQ_PERCPU flag (v6.17)");
#endif /* < 6.17 */

/*
 * WQ_BH -- "workqueue: Implement BH workqueues to eventually replace
 * tasklets" (v6.9): a workqueue whose work items run in softirq context
 * (rtw88's and rtw89's USB receive). Where the kernel lacks it the flag is
 * 0, an ordinary per-CPU workqueue, and rule 0005-workqueue-bh-context
 * makes each function such a workqueue runs call its body between
 * retrofi_bh_work_begin() and retrofi_bh_work_end(): with bottom halves
 * disabled, as softirq context has them, on the CPU the work runs on.
 * Where the kernel has WQ_BH the two are nothing. Probed: an enumerator.
 */
#if RETROFI_API_NEED(6, 9, 0, RETROFI_HAVE_WQ_BH)
#include <linux/bottom_half.h>
#undef WQ_BH
#define WQ_BH 0
#define retrofi_bh_work_begin() local_bh_disable()
#define retrofi_bh_work_end() local_bh_enable()
RETROFI_CENSUS(WQ_BH, "6.9", "probed",
	       "workqueue: Implement BH workqueues to eventually replace tasklets (v6.9)");
#else
#define retrofi_bh_work_begin() do { } while (0)
#define retrofi_bh_work_end() do { } while (0)
#endif /* < 6.9 */

/*
 * system_bh_wq -- the system's BH workqueue, of "workqueue: Implement BH
 * workqueues to eventually replace tasklets" (v6.9): work queued on it
 * runs in softirq context on the CPU that queued it (ath12k's copy-engine
 * interrupts). The shim is system_highpri_wq: per-CPU, so the work runs
 * on the CPU that queued it, and by the high-priority workers, as softirq
 * work runs ahead of ordinary work. Rule 0005-workqueue-bh-context gives
 * each function queued on it the context of softirq (bottom halves off),
 * as for a workqueue allocated with WQ_BH. Probed.
 */
#if RETROFI_API_NEED(6, 9, 0, RETROFI_HAVE_system_bh_wq)
#undef system_bh_wq
#define system_bh_wq LINUX_BACKPORT(system_bh_wq)
#define backport_system_bh_wq system_highpri_wq
RETROFI_CENSUS(system_bh_wq, "6.9", "probed",
	       "workqueue: Implement BH workqueues to eventually replace tasklets (v6.9)");
#endif /* < 6.9 */

/*
 * WQ_BH | WQ_PERCPU -- the BH workqueues' allowance of WQ_PERCPU in
 * __WQ_BH_ALLOWS (with or after "workqueue: Add new WQ_PERCPU flag",
 * v6.17; title not verified: 7.2 has it, and every 6.12 Debian serves has
 * WQ_PERCPU from stable without it). There alloc_workqueue() warns about
 * the flag and returns NULL for the per-CPU BH workqueue that rtw88's and
 * rtw89's USB glue ask for. A BH workqueue is per-CPU by nature, so the
 * shim drops WQ_PERCPU from the flags of a BH one. Structural, probed (a
 * compile probe of the enumerator's value): it corrects the target's own
 * alloc_workqueue(), so the API level never forces it; only at an API
 * level that has WQ_BH (below it, WQ_BH's own shim above), and only where
 * alloc_workqueue() is a function (a macro of the kernel is left alone).
 */
#if RETROFI_LINUX_LESS(6, 17, 0) && !RETROFI_HAVE_wq_bh_allows_percpu && \
	!RETROFI_API_LESS(6, 9, 0) && !defined(alloc_workqueue)
#define retrofi_wq_bh_flags(flags) \
	(((flags) & WQ_BH) ? ((flags) & ~WQ_PERCPU) : (flags))
#define alloc_workqueue(fmt, flags, max_active, ...) \
	alloc_workqueue(fmt, retrofi_wq_bh_flags(flags), max_active, ##__VA_ARGS__)
RETROFI_CENSUS(wq_bh_allows_percpu, "6.17", "structural",
	       "the WQ_PERCPU allowance of BH workqueues (v6.17, title not verified)");
#endif /* < 6.17 */

/*
 * from_work() -- the work item's container_of() of the callback's
 * argument, as from_tasklet() and from_timer() (title and version not
 * verified: 5.10 and 6.1 up to 6.1.0-53 lack it, 6.1.0-54 and every 6.12
 * have it, from stable).
 * ath12k's copy-engine work. The body is upstream's. Probed by the
 * preprocessor: a macro, and at a forced API level defined again.
 */
#ifdef from_work
#define RETROFI_HAVE_from_work 1
#else
#define RETROFI_HAVE_from_work 0
#endif
#if RETROFI_API_NEED(6, 12, 107, RETROFI_HAVE_from_work)
#undef from_work
#define from_work(var, callback_work, work_fieldname)	\
	container_of(callback_work, typeof(*var), work_fieldname)
RETROFI_CENSUS(from_work, "6.1.187..6.12.107", "probed",
	       "workqueue: the from_work() helper (title and version not verified)");
#endif /* < 6.12.107 */

#endif /* _RETROFI_LINUX_WORKQUEUE_H */
