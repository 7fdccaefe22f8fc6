// Test input for 0107-mhi-controller-irq-flags, shaped like 7.3's
// drivers/net/wireless/ath/ath11k/mhi.c: a single MSI vector, shared
// with the driver's own interrupts, must not be balanced.
#include <linux/interrupt.h>
#include <linux/mhi.h>

struct t_pci {
	struct mhi_controller *mhi_ctrl;
	bool multi_msi;
};

void t_mhi_irqs(struct t_pci *t_pci);

void t_mhi_irqs(struct t_pci *t_pci)
{
	struct mhi_controller *mhi_ctrl = t_pci->mhi_ctrl;

	if (!t_pci->multi_msi)
		mhi_ctrl->irq_flags = IRQF_SHARED | IRQF_NOBALANCING;
}
