// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 6.7 introduced that the stack uses.
 */
#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>

#if RETROFI_LINUX_LESS(6, 7, 0) && !RETROFI_HAVE_debugfs_cancellation
/*
 * "debugfs: add API to allow debugfs operations cancellation" (v6.7): the
 * handlers inside a cancellation, on one list; a removal cancels those in
 * what it removes (see <linux/debugfs.h>). As upstream, the callback runs
 * under the list's mutex and takes the entry off the list, so a handler
 * that leaves afterwards finds it gone.
 */
static DEFINE_MUTEX(cancellations_mtx);
static LIST_HEAD(cancellations);

void debugfs_enter_cancellation(struct file *file,
				struct debugfs_cancellation *cancellation)
{
	cancellation->dentry = file_dentry(file);
	mutex_lock(&cancellations_mtx);
	list_add_tail(&cancellation->list, &cancellations);
	mutex_unlock(&cancellations_mtx);
}
EXPORT_SYMBOL_GPL(debugfs_enter_cancellation);

void debugfs_leave_cancellation(struct file *file,
				struct debugfs_cancellation *cancellation)
{
	mutex_lock(&cancellations_mtx);
	if (!list_empty(&cancellation->list))
		list_del_init(&cancellation->list);
	mutex_unlock(&cancellations_mtx);
}
EXPORT_SYMBOL_GPL(debugfs_leave_cancellation);

/* The target's own, which the header renamed for the stack. */
#undef debugfs_remove
void backport_debugfs_remove(struct dentry *dentry)
{
	struct debugfs_cancellation *c, *tmp;

	if (IS_ERR_OR_NULL(dentry))
		return;
	mutex_lock(&cancellations_mtx);
	list_for_each_entry_safe(c, tmp, &cancellations, list) {
		if (!is_subdir(c->dentry, dentry))
			continue;
		list_del_init(&c->list);
		c->cancel(c->dentry, c->cancel_data);
	}
	mutex_unlock(&cancellations_mtx);
	debugfs_remove(dentry);
}
EXPORT_SYMBOL_GPL(backport_debugfs_remove);
#endif /* < 6.7 */
