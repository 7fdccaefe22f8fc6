// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 6.7 introduced that the stack uses.
 */
#include <linux/completion.h>
#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#if RETROFI_LINUX_LESS(6, 7, 0) && !RETROFI_HAVE_debugfs_cancellation
/*
 * "debugfs: add API to allow debugfs operations cancellation" (v6.7).
 *
 * Upstream (fs/debugfs/file.c, inode.c) keeps a file's cancellations on
 * its debugfs_fsdata. Its removal, in __debugfs_file_removed(), loops
 * while the file has active users: it calls (under the list's mutex) the
 * cancel callback of each cancellation on the list, taking it off, then
 * waits on active_users_drained. debugfs_file_put() of the last user
 * completes that, and so does debugfs_enter_cancellation() of a file
 * already unlinked: a handler that took its file reference before the
 * removal but enters its cancellation after the removal's first pass
 * wakes the remover, which cancels it in its own context (cfg80211's
 * callback needs the wiphy mutex the remover holds).
 *
 * Before 6.7 the target's debugfs_remove() waits for the active users
 * with nothing of this, and the shim cannot see its active users. So the
 * shim's debugfs_remove() (backport_debugfs_remove(); <linux/debugfs.h>
 * sends the stack's calls there) does the removal on a worker, not in
 * the remover:
 *  - under one mutex, for all files, it records the removal (the dentry
 *    removed) and calls the cancel callback of each cancellation inside
 *    it, taking it off the list;
 *  - it queues the target's debugfs_remove() on debugfs_removal_wq; that
 *    unlinks the files and waits for their active users, as before 6.7;
 *  - it waits on the removal's completion, which the worker completes
 *    when the target's removal returned, and which
 *    debugfs_enter_cancellation() completes for a file inside a removal
 *    recorded. Woken by the latter, it calls the callbacks of the
 *    cancellations then inside the dentry, again, and waits again.
 * The callbacks thus run where upstream runs them: in the remover, under
 * the list's mutex, each once, off the list (a handler that leaves
 * afterwards finds it gone). Unlike upstream: the cancellations of all
 * files are on one list, under one mutex; the first pass also cancels a
 * handler that holds no file reference (the target gives the shim no way
 * to tell); and the remover wakes for any entry inside the dentry, not
 * only for an unlinked file (it then finds that cancellation, calls it,
 * and waits again).
 *
 * The workqueue is the compat module's own (compat/main.c creates it),
 * WQ_MEM_RECLAIM: a remover may itself be a work on a WQ_MEM_RECLAIM
 * workqueue (cfg80211's event work is one), and must not wait on work
 * that needs a new worker to progress.
 */
struct retrofi_debugfs_removal {
	struct list_head list;
	struct dentry *dentry;
	struct work_struct work;
	struct completion wake;
	bool removed;
};

static DEFINE_MUTEX(cancellations_mtx);
static LIST_HEAD(cancellations);
static LIST_HEAD(removals);
static struct workqueue_struct *debugfs_removal_wq;

int retrofi_debugfs_removal_init(void)
{
	debugfs_removal_wq = alloc_workqueue("retrofi_debugfs_remove",
					     WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return debugfs_removal_wq ? 0 : -ENOMEM;
}

void retrofi_debugfs_removal_exit(void)
{
	destroy_workqueue(debugfs_removal_wq);
}

void debugfs_enter_cancellation(struct file *file,
				struct debugfs_cancellation *cancellation)
{
	struct retrofi_debugfs_removal *r;

	cancellation->dentry = file_dentry(file);
	mutex_lock(&cancellations_mtx);
	list_add_tail(&cancellation->list, &cancellations);
	/* if a removal has started, wake it up to cancel */
	list_for_each_entry(r, &removals, list)
		if (is_subdir(cancellation->dentry, r->dentry))
			complete(&r->wake);
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

/* Under cancellations_mtx: cancel the handlers inside @dentry. */
static void debugfs_cancel_inside(struct dentry *dentry)
{
	struct debugfs_cancellation *c, *tmp;

	list_for_each_entry_safe(c, tmp, &cancellations, list) {
		if (!is_subdir(c->dentry, dentry))
			continue;
		list_del_init(&c->list);
		c->cancel(c->dentry, c->cancel_data);
	}
}

/* The target's own, which the header renamed for the stack. */
#undef debugfs_remove

static void debugfs_removal_work(struct work_struct *work)
{
	struct retrofi_debugfs_removal *r =
		container_of(work, struct retrofi_debugfs_removal, work);

	debugfs_remove(r->dentry);
	/*
	 * Under the mutex, which the remover takes before it returns: the
	 * last this worker touches of @r, on the remover's stack.
	 */
	mutex_lock(&cancellations_mtx);
	r->removed = true;
	complete(&r->wake);
	mutex_unlock(&cancellations_mtx);
}

void backport_debugfs_remove(struct dentry *dentry)
{
	struct retrofi_debugfs_removal r = { .dentry = dentry };
	bool removed;

	if (IS_ERR_OR_NULL(dentry))
		return;
	INIT_WORK_ONSTACK(&r.work, debugfs_removal_work);
	init_completion(&r.wake);
	mutex_lock(&cancellations_mtx);
	list_add_tail(&r.list, &removals);
	debugfs_cancel_inside(dentry);
	mutex_unlock(&cancellations_mtx);
	queue_work(debugfs_removal_wq, &r.work);
	do {
		wait_for_completion(&r.wake);
		mutex_lock(&cancellations_mtx);
		removed = r.removed;
		if (removed)
			list_del(&r.list);
		else
			debugfs_cancel_inside(dentry);
		mutex_unlock(&cancellations_mtx);
	} while (!removed);
	destroy_work_on_stack(&r.work);
}
EXPORT_SYMBOL_GPL(backport_debugfs_remove);
#endif /* < 6.7 */
