// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 6.14 introduced that the stack uses.
 */
#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#if RETROFI_API_NEED(7, 2, 6, RETROFI_HAVE_debugfs_change_name)
/*
 * "debugfs: add debugfs_change_name()" (v6.14, title not verified; the
 * record is the served-ABI bound 6.12.118..7.2.6, the guard its high end):
 * rename @dentry in its own directory to the formatted name. Nothing to
 * rename (NULL or an error pointer, as debugfs gives when it is off) is
 * success, as upstream.
 */
int debugfs_change_name(struct dentry *dentry, const char *fmt, ...)
{
	struct dentry *parent, *d;
	va_list ap;
	char *name;

	if (IS_ERR_OR_NULL(dentry))
		return 0;
	va_start(ap, fmt);
	name = kvasprintf(GFP_KERNEL, fmt, ap);
	va_end(ap);
	if (!name)
		return -ENOMEM;
	parent = dget_parent(dentry);
	d = debugfs_rename(parent, dentry, parent, name);
	dput(parent);
	kfree(name);
	return PTR_ERR_OR_ZERO(d);
}
EXPORT_SYMBOL_GPL(debugfs_change_name);
RETROFI_CENSUS(debugfs_change_name, "6.12.118..7.2.6", "probed",
	       "debugfs: add debugfs_change_name() (v6.14, title not verified)");
#endif /* < 7.2.6 */
