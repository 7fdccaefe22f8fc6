// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 7.3 introduced that the stack uses.
 */
#include <linux/export.h>
#include <linux/interrupt.h>
#include <linux/irq.h>

#if RETROFI_LINUX_LESS(7, 3, 0) && defined(CONFIG_SMP)
/*
 * The export of irq_can_set_affinity() (v7.3): the kernel's own answer is
 * __irq_can_set_affinity() of the interrupt's descriptor, which a module
 * cannot reach; irq_get_irq_data() gives the descriptor's irq_data.
 */
int irq_can_set_affinity(unsigned int irq)
{
	struct irq_data *d = irq_get_irq_data(irq);

	return d && irqd_can_balance(d) && d->chip && d->chip->irq_set_affinity;
}
EXPORT_SYMBOL_GPL(irq_can_set_affinity);
RETROFI_CENSUS(irq_can_set_affinity, "7.3", "structural",
	       "the export of irq_can_set_affinity() (v7.3, title not verified)");
#endif /* < 7.3 */
