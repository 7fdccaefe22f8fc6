/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/pci.h>
 */
#ifndef _RETROFI_LINUX_PCI_H
#define _RETROFI_LINUX_PCI_H

#include_next <linux/pci.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * PCI_IRQ_INTX -- "PCI: Deprecate PCI_IRQ_LEGACY" (v6.8): the name of
 * pci_alloc_irq_vectors()'s flag for INTx interrupts, PCI_IRQ_LEGACY
 * before, of the same value (rtw88's and rtw89's PCI glue). Probed, by
 * the preprocessor: a constant macro, so the target has it when it is
 * defined, and at a forced API level it is defined again with upstream's
 * value.
 */
#ifdef PCI_IRQ_INTX
#define RETROFI_HAVE_PCI_IRQ_INTX 1
#else
#define RETROFI_HAVE_PCI_IRQ_INTX 0
#endif
#if RETROFI_API_NEED(6, 8, 0, RETROFI_HAVE_PCI_IRQ_INTX)
#undef PCI_IRQ_INTX
#define PCI_IRQ_INTX (1 << 0)
RETROFI_CENSUS(PCI_IRQ_INTX, "6.8", "probed",
	       "PCI: Deprecate PCI_IRQ_LEGACY (v6.8)");
#endif /* < 6.8 */

/*
 * pci_clear_and_set_config_dword() -- "PCI: Move pci_clear_and_set_dword()
 * helper to PCI header" (v6.8), which also gave it this name: clear then
 * set bits of a dword of the configuration space (rtw89's PCI glue).
 * Upstream's body, unlocked as upstream's. Additive and probed (stable
 * kernels may carry it).
 */
#if RETROFI_API_NEED(6, 8, 0, RETROFI_HAVE_pci_clear_and_set_config_dword)
static inline void LINUX_BACKPORT(pci_clear_and_set_config_dword)(const struct pci_dev *dev,
								  int pos, u32 clear,
								  u32 set)
{
	u32 val;

	pci_read_config_dword(dev, pos, &val);
	val &= ~clear;
	val |= set;
	pci_write_config_dword(dev, pos, val);
}
#define pci_clear_and_set_config_dword LINUX_BACKPORT(pci_clear_and_set_config_dword)
RETROFI_CENSUS(pci_clear_and_set_config_dword, "6.8", "probed",
	       "PCI: Move pci_clear_and_set_dword() helper to PCI header (v6.8)");
#endif /* < 6.8 */

/*
 * pcim_request_all_regions() -- "PCI: Make pcim_request_all_regions() a
 * public function" (v6.13): request every standard BAR of the device for
 * the driver, released when it detaches (iwlwifi's PCIe probe). Before,
 * pci_request_regions() after pcim_enable_device() is managed the same way
 * (the PCI core's devres, pcim_release(), releases the regions it
 * requested); for a device not enabled that way compat.ko releases them
 * with a device action. Exported there, so probed.
 */
#if RETROFI_API_NEED(6, 13, 0, RETROFI_HAVE_pcim_request_all_regions)
#define pcim_request_all_regions LINUX_BACKPORT(pcim_request_all_regions)
int pcim_request_all_regions(struct pci_dev *pdev, const char *name);
RETROFI_CENSUS(pcim_request_all_regions, "6.13", "probed",
	       "PCI: Make pcim_request_all_regions() a public function (v6.13)");
#endif /* < 6.13 */

/*
 * pcim_iomap_region() -- "PCI: Deprecate pcim_iomap_regions() in favor of
 * pcim_iomap_region()" (v6.12): request one BAR and map it, both undone
 * when the driver detaches; an IOMEM_ERR_PTR() on failure (mt7921e's
 * probe). compat.ko requests and maps with pci_request_region() and
 * pci_iomap() and undoes them with a device action; after
 * pcim_enable_device() the PCI core's devres releases the region itself,
 * so the action only unmaps. Exported there, so probed.
 */
#if RETROFI_API_NEED(6, 12, 0, RETROFI_HAVE_pcim_iomap_region)
#define pcim_iomap_region LINUX_BACKPORT(pcim_iomap_region)
void __iomem *pcim_iomap_region(struct pci_dev *pdev, int bar, const char *name);
RETROFI_CENSUS(pcim_iomap_region, "6.12", "probed",
	       "PCI: Deprecate pcim_iomap_regions() in favor of pcim_iomap_region() (v6.12)");
#endif /* < 6.12 */

#endif /* _RETROFI_LINUX_PCI_H */
