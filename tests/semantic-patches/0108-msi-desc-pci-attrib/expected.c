// Test input for 0108-msi-desc-pci-attrib, shaped like 7.3's
// drivers/net/wireless/ath/ath12k/pci.c: whether the MSI address is 64-bit.
#include <linux/irq.h>
#include <linux/msi.h>
#include <linux/pci.h>

u32 t_msi_addr_hi(struct pci_dev *pdev);

u32 t_msi_addr_hi(struct pci_dev *pdev)
{
	struct msi_desc *msi_desc = irq_get_msi_desc(pdev->irq);
	u32 hi = 0;

	if (!msi_desc)
		return 0;
	if (retrofi_msi_desc_attrib(msi_desc).is_64)
		pci_read_config_dword(pdev, pdev->msi_cap + PCI_MSI_ADDRESS_HI, &hi);
	return hi;
}
