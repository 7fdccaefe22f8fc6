/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/debugfs.h>
 */
#ifndef _RETROFI_LINUX_DEBUGFS_H
#define _RETROFI_LINUX_DEBUGFS_H

#include_next <linux/debugfs.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * debugfs_change_name() -- "debugfs: add debugfs_change_name()" (v6.14,
 * title not verified): rename a debugfs entry in place, to a formatted
 * name; 0, or an error. cfg80211 renames a wiphy's directory with it.
 * The shim formats the name and calls debugfs_rename() (every target up
 * to 6.12 has it) with the entry's own parent. Exported by compat.ko
 * (backport-6.14.c). Probed.
 */
#if RETROFI_API_NEED(6, 14, 0, RETROFI_HAVE_debugfs_change_name)
#define debugfs_change_name LINUX_BACKPORT(debugfs_change_name)
__printf(2, 3)
int debugfs_change_name(struct dentry *dentry, const char *fmt, ...);
RETROFI_CENSUS(debugfs_change_name, "6.14", "probed",
	       "debugfs: add debugfs_change_name() (v6.14, title not verified)");
#endif /* < 6.14 */

#endif /* _RETROFI_LINUX_DEBUGFS_H */
