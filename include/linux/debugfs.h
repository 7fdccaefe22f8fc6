/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/debugfs.h>
 */
#ifndef _RETROFI_LINUX_DEBUGFS_H
#define _RETROFI_LINUX_DEBUGFS_H

#include_next <linux/debugfs.h>
#include <linux/list.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * debugfs_change_name() -- "debugfs: add debugfs_change_name()" (v6.14,
 * title not verified; every 6.12 ABI the archive serves lacks it, up to
 * 6.12.118, and every 7.2 one has it, from 7.2.6: the record is that
 * bound and the guard its high end, safe since probed): rename a debugfs entry in place, to a formatted
 * name; 0, or an error. cfg80211 renames a wiphy's directory with it.
 * The shim formats the name and calls debugfs_rename() (every target up
 * to 6.12 has it) with the entry's own parent. Exported by compat.ko
 * (backport-6.14.c). Probed.
 */
#if RETROFI_API_NEED(7, 2, 6, RETROFI_HAVE_debugfs_change_name)
#define debugfs_change_name LINUX_BACKPORT(debugfs_change_name)
__printf(2, 3)
int debugfs_change_name(struct dentry *dentry, const char *fmt, ...);
RETROFI_CENSUS(debugfs_change_name, "6.12.118..7.2.6", "probed",
	       "debugfs: add debugfs_change_name() (v6.14, title not verified)");
#endif /* < 7.2.6 */

/*
 * struct debugfs_cancellation, debugfs_enter_cancellation(),
 * debugfs_leave_cancellation() -- "debugfs: add API to allow debugfs
 * operations cancellation" (v6.7). A handler that waits for something
 * the remover may hold (cfg80211's wiphy_locked_debugfs_read() and _write()
 * wait for a wiphy work while the wiphy mutex may be held by whoever
 * removes the file) registers a cancel callback, which the removal of
 * the file calls before it waits for the handler.
 *
 * Structural (a structure the target may define), probed: stable kernels
 * may carry it. Before 6.7 the removal cannot be hooked in debugfs
 * itself, so the stack's debugfs_remove() (and debugfs_remove_recursive(),
 * the same function since 5.6) goes through backport_debugfs_remove()
 * (compat/backport-6.7.c): it calls the cancel callback of every handler
 * inside the file or directory it removes, has a worker remove it, and
 * until that is done calls the callback of each handler that enters its
 * cancellation there meanwhile, as upstream's removal does. The structure
 * has one member more than upstream's, the file's dentry, for that; the
 * stack initialises the others by name. (The iwlwifi backports do the
 * same.)
 */
#if RETROFI_LINUX_LESS(6, 7, 0) && !RETROFI_HAVE_debugfs_cancellation
struct debugfs_cancellation {
	struct list_head list;
	void (*cancel)(struct dentry *, void *);
	void *cancel_data;
	struct dentry *dentry;		/* retrofi: the file it cancels in */
};

#define debugfs_enter_cancellation LINUX_BACKPORT(debugfs_enter_cancellation)
void debugfs_enter_cancellation(struct file *file,
				struct debugfs_cancellation *cancellation);
#define debugfs_leave_cancellation LINUX_BACKPORT(debugfs_leave_cancellation)
void debugfs_leave_cancellation(struct file *file,
				struct debugfs_cancellation *cancellation);
#define debugfs_remove LINUX_BACKPORT(debugfs_remove)
void debugfs_remove(struct dentry *dentry);
/* compat.ko's own: the workqueue its debugfs_remove() runs on. */
int retrofi_debugfs_removal_init(void);
void retrofi_debugfs_removal_exit(void);
RETROFI_CENSUS(debugfs_cancellation, "6.7", "structural",
	       "debugfs: add API to allow debugfs operations cancellation (v6.7)");
#endif /* < 6.7 */

/*
 * struct debugfs_short_fops, debugfs_create_file() of one -- "debugfs: add
 * small file operations for most files" (v6.13): a file whose operations
 * are only read, write and llseek; debugfs opens it with simple_open()
 * (the handlers find the file's data in file->private_data) and needs no
 * module reference. mac80211's debugfs files are made of them.
 *
 * Structural (a structure the target lacks). debugfs_create_file() picks
 * by the type of its fops, as upstream's; for short ones
 * backport_debugfs_create_file_short() (compat/backport-6.13.c) creates
 * the file with a struct file_operations of simple_open() and the short
 * ones' three handlers, made once per distinct short operations and kept
 * until compat.ko is unloaded (after every module using it).
 */
#if RETROFI_LINUX_LESS(6, 13, 0)
struct debugfs_short_fops {
	ssize_t (*read)(struct file *, char __user *, size_t, loff_t *);
	ssize_t (*write)(struct file *, const char __user *, size_t, loff_t *);
	loff_t (*llseek)(struct file *, loff_t, int);
};

#define debugfs_create_file_short LINUX_BACKPORT(debugfs_create_file_short)
struct dentry *debugfs_create_file_short(const char *name, umode_t mode,
					 struct dentry *parent, void *data,
					 const struct debugfs_short_fops *fops);

#define debugfs_create_file(name, mode, parent, data, fops)		\
	_Generic(fops,							\
		 const struct file_operations *: debugfs_create_file,	\
		 const struct debugfs_short_fops *: debugfs_create_file_short, \
		 struct file_operations *: debugfs_create_file,		\
		 struct debugfs_short_fops *: debugfs_create_file_short) \
		(name, mode, parent, data, fops)

#define retrofi_compat_exit_debugfs_short() backport_debugfs_short_fops_release()
void backport_debugfs_short_fops_release(void);
RETROFI_CENSUS(debugfs_short_fops, "6.13", "structural",
	       "debugfs: add small file operations for most files (v6.13)");
#endif /* < 6.13 */

/* What compat.ko's exit frees of the short operations (nothing from 6.13). */
#ifndef retrofi_compat_exit_debugfs_short
#define retrofi_compat_exit_debugfs_short() do { } while (0)
#endif

#endif /* _RETROFI_LINUX_DEBUGFS_H */
