// retrofi rule 0108-msi-desc-pci-attrib
// must-match: no
//   (only ath11k's and ath12k's PCI glue read an MSI descriptor's
//   attributes; a source without them has nothing to match)
// upstream: the MSI rework of v5.17 (title not verified: every 5.10 the
//   archive serves has msi_attrib directly in struct msi_desc, every 6.1
//   has it under the member pci) moved the PCI part of struct msi_desc
//   into struct pci_msi_desc pci.
// targets: kernels whose struct msi_desc has no pci member (5.10);
//   decided in <linux/msi.h> by the compile probe msi_desc_pci
//   (compat/probes.list)
// why: a header cannot rename a member path. The access becomes
//   retrofi_msi_desc_attrib(desc) (<linux/msi.h>), which is
//   desc->pci.msi_attrib where the target has the member and
//   desc->msi_attrib where it does not: the same attributes.

@@
struct msi_desc *D;
@@
- D->pci.msi_attrib
+ retrofi_msi_desc_attrib(D)
