/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/mhi.h>
 *
 * The MHI bus is the target's (ath11k's and ath12k's PCI glue use it):
 * struct mhi_controller is the target's, so a member it lacks cannot be
 * added here; rule 0106-mhi-controller-fw-data handles the firmware
 * members of 6.6, rule 0107-mhi-controller-irq-flags the interrupt flags.
 */
#ifndef _RETROFI_LINUX_MHI_H
#define _RETROFI_LINUX_MHI_H

#include_next <linux/mhi.h>
#include <linux/interrupt.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * mhi_power_down_keep_dev() -- "bus: mhi: host: Add
 * mhi_power_down_keep_dev() API to support system suspend/hibernation"
 * (v6.10): power the device down but keep the MHI devices of its
 * channels (QRTR's), so that a client bound to them survives a suspend.
 * The target's MHI core powers down only through mhi_power_down(), which
 * removes those devices; it keeps them in a private function, so the shim
 * is mhi_power_down(): 6.9's power-down. ath11k and ath12k call it when
 * they power the device down for a system suspend (their default PM
 * policy); the change says that resume may then time out, which is the
 * target's own MHI behaviour. Every other path is the same. Probed.
 */
#if RETROFI_API_NEED(6, 10, 0, RETROFI_HAVE_mhi_power_down_keep_dev)
static inline void
LINUX_BACKPORT(mhi_power_down_keep_dev)(struct mhi_controller *mhi_cntrl,
					bool graceful)
{
	mhi_power_down(mhi_cntrl, graceful);
}
#define mhi_power_down_keep_dev LINUX_BACKPORT(mhi_power_down_keep_dev)
RETROFI_CENSUS(mhi_power_down_keep_dev, "6.10", "probed",
	       "bus: mhi: host: Add mhi_power_down_keep_dev() API to support system suspend/hibernation (v6.10)");
#endif /* < 6.10 */

/*
 * mhi_download_rddm_image() -- the RAM dump download under its later name
 * (title and version not verified: every 5.10 the archive serves has only
 * mhi_download_rddm_img(), every 6.1 this name): the same function.
 * Structural (it calls the target's old name, which a kernel with the
 * new one lacks, so no forced API level compiles it there), probed.
 */
#if RETROFI_LINUX_LESS(6, 1, 170) && !RETROFI_HAVE_mhi_download_rddm_image
static inline int
LINUX_BACKPORT(mhi_download_rddm_image)(struct mhi_controller *mhi_cntrl,
					bool in_panic)
{
	return mhi_download_rddm_img(mhi_cntrl, in_panic);
}
#define mhi_download_rddm_image LINUX_BACKPORT(mhi_download_rddm_image)
RETROFI_CENSUS(mhi_download_rddm_image, "5.10.262..6.1.170", "structural",
	       "bus: mhi: the RAM dump download renamed mhi_download_rddm_image() (title and version not verified)");
#endif /* < 6.1.170 */

/*
 * mhi_pm_resume_force() -- "bus: mhi: core: Add support for forced PM
 * resume" (v5.17; title not verified): resume whatever MHI state the
 * device reports. The same change made mhi_pm_resume() refuse a device
 * that is not in M3; before it, mhi_pm_resume() checked no device state
 * (5.10.262's drivers/bus/mhi/host/pm.c), which is the forced resume, so
 * the shim is mhi_pm_resume(). Probed.
 */
#if RETROFI_API_NEED(5, 17, 0, RETROFI_HAVE_mhi_pm_resume_force)
static inline int
LINUX_BACKPORT(mhi_pm_resume_force)(struct mhi_controller *mhi_cntrl)
{
	return mhi_pm_resume(mhi_cntrl);
}
#define mhi_pm_resume_force LINUX_BACKPORT(mhi_pm_resume_force)
RETROFI_CENSUS(mhi_pm_resume_force, "5.17", "probed",
	       "bus: mhi: core: Add support for forced PM resume (v5.17, title not verified)");
#endif /* < 5.17 */

/*
 * retrofi_mhi_set_irq_flags() -- what rule 0107-mhi-controller-irq-flags
 * writes for "mhi_cntrl->irq_flags = flags;". struct mhi_controller's
 * irq_flags (title and version not verified: every 5.10 the archive
 * serves lacks it, every 6.1 has it) are the flags the MHI core requests
 * its interrupts with, IRQF_SHARED | IRQF_NO_SUSPEND when 0. A core
 * without the member always requests with those. ath11k and ath12k ask
 * for IRQF_SHARED | IRQF_NOBALANCING when they get a single MSI vector,
 * which they share with their own interrupts (requested without
 * IRQF_NO_SUSPEND, which the kernel refuses to mix) and which must not
 * move (the device is told its MSI data once). The old core cannot do
 * that, so the controller is refused there, with this message, and the
 * driver's start fails where it would otherwise misbehave: it takes no
 * interrupts (nr_irqs 0), which mhi_sync_power_up() rejects with -EINVAL
 * before it requests any (5.10.262's drivers/bus/mhi/host/pm.c). With
 * the vectors the drivers ask for first (one per MHI event ring and copy
 * engine) nothing changes. Probed.
 */
#if RETROFI_HAVE_mhi_controller_irq_flags
static inline void retrofi_mhi_set_irq_flags(struct mhi_controller *mhi_cntrl,
					     unsigned long flags)
{
	mhi_cntrl->irq_flags = flags;
}
#else
static inline void retrofi_mhi_set_irq_flags(struct mhi_controller *mhi_cntrl,
					     unsigned long flags)
{
	if (!flags || flags == (IRQF_SHARED | IRQF_NO_SUSPEND))
		return;
	dev_err(mhi_cntrl->cntrl_dev,
		"retrofi: this kernel's MHI core requests its interrupts with IRQF_SHARED | IRQF_NO_SUSPEND only and cannot take irq flags %#lx (one MSI vector): MHI is not started\n",
		flags);
	mhi_cntrl->nr_irqs = 0;
}
#endif

#endif /* _RETROFI_LINUX_MHI_H */
