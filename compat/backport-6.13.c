// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 6.13 introduced that the stack uses.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>

#if RETROFI_LINUX_LESS(6, 13, 0)
/*
 * "debugfs: add small file operations for most files" (v6.13): a file of
 * short operations opens with simple_open() and runs their handlers. One
 * struct file_operations per distinct short operations (the same object
 * with the same handlers), made on first use: the target's debugfs keeps
 * a pointer to it for as long as the file exists, and a module unloaded
 * and loaded again may put other handlers at the same address, so the
 * handlers are part of what is looked up. Freed when compat.ko goes,
 * after every module that created a file.
 */
struct short_fops_proxy {
	struct list_head list;
	const struct debugfs_short_fops *short_fops;
	struct debugfs_short_fops handlers;
	struct file_operations fops;
};

static DEFINE_MUTEX(short_fops_mtx);
static LIST_HEAD(short_fops_proxies);

static const struct file_operations *short_fops_proxy(const struct debugfs_short_fops *s)
{
	struct short_fops_proxy *p;

	mutex_lock(&short_fops_mtx);
	list_for_each_entry(p, &short_fops_proxies, list)
		if (p->short_fops == s && !memcmp(&p->handlers, s, sizeof(*s)))
			goto out;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (p) {
		p->short_fops = s;
		p->handlers = *s;
		p->fops.open = simple_open;
		p->fops.read = s->read;
		p->fops.write = s->write;
		p->fops.llseek = s->llseek;
		list_add(&p->list, &short_fops_proxies);
	}
out:
	mutex_unlock(&short_fops_mtx);
	return p ? &p->fops : NULL;
}

struct dentry *debugfs_create_file_short(const char *name, umode_t mode,
					 struct dentry *parent, void *data,
					 const struct debugfs_short_fops *fops)
{
	const struct file_operations *proxy = short_fops_proxy(fops);

	if (!proxy)
		return ERR_PTR(-ENOMEM);
	return debugfs_create_file(name, mode, parent, data, proxy);
}
EXPORT_SYMBOL_GPL(debugfs_create_file_short);

void backport_debugfs_short_fops_release(void)
{
	struct short_fops_proxy *p, *tmp;

	list_for_each_entry_safe(p, tmp, &short_fops_proxies, list) {
		list_del(&p->list);
		kfree(p);
	}
}
RETROFI_CENSUS(debugfs_short_fops, "6.13", "structural",
	       "debugfs: add small file operations for most files (v6.13)");
#endif /* < 6.13 */

#if RETROFI_API_NEED(6, 13, 0, RETROFI_HAVE_pcim_request_all_regions)
static void retrofi_pci_release_regions(void *pdev)
{
	pci_release_regions(pdev);
}

/*
 * "PCI: Make pcim_request_all_regions() a public function" (v6.13): every
 * standard BAR requested for the driver, released when it detaches. After
 * pcim_enable_device() the PCI core's own devres releases what
 * pci_request_regions() requested; otherwise a device action does.
 */
int pcim_request_all_regions(struct pci_dev *pdev, const char *name)
{
	int ret;

	ret = pci_request_regions(pdev, name);
	if (ret || pci_is_managed(pdev))
		return ret;
	return devm_add_action_or_reset(&pdev->dev, retrofi_pci_release_regions, pdev);
}
EXPORT_SYMBOL(pcim_request_all_regions);
#endif /* < 6.13 */
