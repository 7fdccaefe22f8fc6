// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 6.12 introduced that the stack uses.
 */
#include <linux/export.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/seq_buf.h>
#include <linux/string.h>

#if RETROFI_LINUX_LESS(6, 12, 0)
/*
 * The export of seq_buf_puts() (title and version not verified; every
 * kernel defines it, none below 6.12 that the archive serves exports it):
 * upstream's body, as lib/seq_buf.c has it, with its static helper.
 */
static bool seq_buf_can_fit(struct seq_buf *s, size_t len)
{
	return s->len + len <= s->size;
}

int seq_buf_puts(struct seq_buf *s, const char *str)
{
	size_t len = strlen(str);

	WARN_ON(s->size == 0);

	/* Add 1 to len for the trailing null byte which must be there */
	len += 1;

	if (seq_buf_can_fit(s, len)) {
		memcpy(s->buffer + s->len, str, len);
		/* Don't count the trailing null byte against the capacity */
		s->len += len - 1;
		return 0;
	}
	seq_buf_set_overflow(s);
	return -1;
}
EXPORT_SYMBOL_GPL(seq_buf_puts);
RETROFI_CENSUS(seq_buf_puts, "6.1.192..6.12", "structural",
	       "the export of seq_buf_puts() (title and version not verified)");
#endif /* < 6.12 */

#if RETROFI_API_NEED(6, 12, 0, RETROFI_HAVE_pcim_iomap_region)
struct retrofi_pcim_region {
	struct pci_dev *pdev;
	void __iomem *addr;
	int bar;
	bool release;
};

static void retrofi_pcim_region_undo(void *data)
{
	struct retrofi_pcim_region *r = data;

	pci_iounmap(r->pdev, r->addr);
	if (r->release)
		pci_release_region(r->pdev, r->bar);
	kfree(r);
}

/*
 * "PCI: Deprecate pcim_iomap_regions() in favor of pcim_iomap_region()"
 * (v6.12): upstream's errors (-EINVAL for a BAR out of range or one that
 * does not map), the region and the mapping undone at detach.
 */
void __iomem *pcim_iomap_region(struct pci_dev *pdev, int bar, const char *name)
{
	struct retrofi_pcim_region *r;
	int ret;

	if (bar < 0 || bar >= PCI_STD_NUM_BARS)
		return IOMEM_ERR_PTR(-EINVAL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return IOMEM_ERR_PTR(-ENOMEM);
	ret = pci_request_region(pdev, bar, name);
	if (ret) {
		kfree(r);
		return IOMEM_ERR_PTR(ret);
	}
	r->pdev = pdev;
	r->bar = bar;
	r->release = !pci_is_managed(pdev);
	r->addr = pci_iomap(pdev, bar, 0);
	if (!r->addr) {
		pci_release_region(pdev, bar);
		kfree(r);
		return IOMEM_ERR_PTR(-EINVAL);
	}
	ret = devm_add_action_or_reset(&pdev->dev, retrofi_pcim_region_undo, r);
	return ret ? IOMEM_ERR_PTR(ret) : r->addr;
}
EXPORT_SYMBOL(pcim_iomap_region);
#endif /* < 6.12 */
