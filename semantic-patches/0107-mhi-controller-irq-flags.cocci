// retrofi rule 0107-mhi-controller-irq-flags
// must-match: no
//   (only ath11k's and ath12k's PCI glue set the MHI core's interrupt
//   flags; a source without them has nothing to match)
// upstream: struct mhi_controller's irq_flags, the flags the MHI core
//   requests its interrupts with (IRQF_SHARED | IRQF_NO_SUSPEND when 0),
//   added for ath11k's single-MSI mode (title and version not verified:
//   every 5.10 the archive serves lacks the member, every 6.1 has it).
// targets: kernels whose struct mhi_controller has no irq_flags (5.10);
//   decided in <linux/mhi.h> by the compile probe mhi_controller_irq_flags
//   (compat/probes.list)
// why: a header cannot add a member to the target's struct
//   mhi_controller. The assignment becomes retrofi_mhi_set_irq_flags()
//   (<linux/mhi.h>), which sets the member where the target has it and,
//   where it does not, refuses the controller with a message when the
//   flags are not the old core's own: the old core cannot share a single
//   MSI vector with the driver's interrupts the way the driver needs.

@@
struct mhi_controller *C;
expression F;
@@
- C->irq_flags = F;
+ retrofi_mhi_set_irq_flags(C, F);
