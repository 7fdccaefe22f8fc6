/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/msi.h>
 */
#ifndef _RETROFI_LINUX_MSI_H
#define _RETROFI_LINUX_MSI_H

#include_next <linux/msi.h>
#include <retrofi/probes.h>

/*
 * retrofi_msi_desc_attrib(desc) -- what rule 0108-msi-desc-pci-attrib
 * writes for desc->pci.msi_attrib: the PCI part of struct msi_desc under
 * its own member, pci (v5.17, the MSI rework; title not verified: every
 * 5.10 the archive serves has msi_attrib directly in struct msi_desc,
 * every 6.1 under pci). The same attributes either way (ath11k's and
 * ath12k's PCI glue read is_64). Probed.
 */
#if RETROFI_HAVE_msi_desc_pci
#define retrofi_msi_desc_attrib(desc) ((desc)->pci.msi_attrib)
#else
#define retrofi_msi_desc_attrib(desc) ((desc)->msi_attrib)
#endif

#endif /* _RETROFI_LINUX_MSI_H */
