/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/pci_ids.h>
 */
#ifndef _RETROFI_LINUX_PCI_IDS_H
#define _RETROFI_LINUX_PCI_IDS_H

#include_next <linux/pci_ids.h>
#include <retrofi/backport.h>

/*
 * PCI_VENDOR_ID_SPACEMIT, PCI_DEVICE_ID_SPACEMIT_K3 -- the SpacemiT
 * vendor ID and its K3 root port (title and version not verified: no 7.2
 * ABI the archive serves has them, up to 7.2.12, and 7.3.4 has: the
 * record is that bound, to 7.3.0, as IDs for a new quirk come with a
 * merge window, not with a stable update): rtw89's pci.c picks a bridge quirk by them.
 * Probed, by the preprocessor: constant macros, so the target has them
 * when they are defined, and at a forced API level they are defined
 * again with upstream's values.
 */
#if defined(PCI_VENDOR_ID_SPACEMIT) && defined(PCI_DEVICE_ID_SPACEMIT_K3)
#define RETROFI_HAVE_PCI_VENDOR_ID_SPACEMIT 1
#else
#define RETROFI_HAVE_PCI_VENDOR_ID_SPACEMIT 0
#endif
#if RETROFI_API_NEED(7, 3, 0, RETROFI_HAVE_PCI_VENDOR_ID_SPACEMIT)
#undef PCI_VENDOR_ID_SPACEMIT
#undef PCI_DEVICE_ID_SPACEMIT_K3
#define PCI_VENDOR_ID_SPACEMIT		0x201f
#define PCI_DEVICE_ID_SPACEMIT_K3	0x0002
RETROFI_CENSUS(PCI_VENDOR_ID_SPACEMIT, "7.2.12..7.3", "probed",
	       "the SpacemiT PCI vendor and K3 device IDs (title and version not verified)");
#endif /* < 7.3 */

/*
 * PCI_VENDOR_ID_ITTIM -- "wifi: mt76: mt7921e: Support MT7992 IP in Xiaomi
 * Redmibook 15 Pro (2023)" (v6.7): the ITTIM vendor ID of mt7921e's ID
 * table. Probed, by the preprocessor: a constant macro, defined again with
 * upstream's value at a forced API level.
 */
#ifdef PCI_VENDOR_ID_ITTIM
#define RETROFI_HAVE_PCI_VENDOR_ID_ITTIM 1
#else
#define RETROFI_HAVE_PCI_VENDOR_ID_ITTIM 0
#endif
#if RETROFI_API_NEED(6, 7, 0, RETROFI_HAVE_PCI_VENDOR_ID_ITTIM)
#undef PCI_VENDOR_ID_ITTIM
#define PCI_VENDOR_ID_ITTIM		0x0b48
RETROFI_CENSUS(PCI_VENDOR_ID_ITTIM, "6.7", "probed",
	       "wifi: mt76: mt7921e: Support MT7992 IP in Xiaomi Redmibook 15 Pro (2023) (v6.7)");
#endif /* < 6.7 */

#endif /* _RETROFI_LINUX_PCI_IDS_H */
