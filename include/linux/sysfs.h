/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/sysfs.h>
 */
#ifndef _RETROFI_LINUX_SYSFS_H
#define _RETROFI_LINUX_SYSFS_H

#include_next <linux/sysfs.h>
#include <retrofi/backport.h>

/*
 * DEFINE_SIMPLE_SYSFS_GROUP_VISIBLE(), SYSFS_GROUP_VISIBLE() -- "sysfs:
 * Introduce a mechanism to hide static attribute_groups" (v6.10; version
 * not verified: 6.1 lacks it, every 6.12 Debian serves has it): an
 * attribute group whose is_visible() says, for its first attribute, that
 * the whole group is hidden (rtw89's USB glue, for the hardware-info
 * files of the chips that have them). The kernels before it have no
 * hidden group: there the group's directory is made and its attributes
 * are all hidden (mode 0), what an is_visible() could say before, so
 * userspace reads no file of a group the driver hides. Probed, by the
 * preprocessor: SYSFS_GROUP_INVISIBLE is a macro of the same change.
 */
#ifdef SYSFS_GROUP_INVISIBLE
#define RETROFI_HAVE_SYSFS_GROUP_INVISIBLE 1
#else
#define RETROFI_HAVE_SYSFS_GROUP_INVISIBLE 0
#endif
#if RETROFI_API_NEED(6, 10, 0, RETROFI_HAVE_SYSFS_GROUP_INVISIBLE)
#undef DEFINE_SIMPLE_SYSFS_GROUP_VISIBLE
#undef SYSFS_GROUP_VISIBLE
#define DEFINE_SIMPLE_SYSFS_GROUP_VISIBLE(name)				\
	static inline umode_t sysfs_group_visible_##name(		\
		struct kobject *kobj, struct attribute *a, int n)	\
	{								\
		if (!name##_group_visible(kobj))			\
			return 0;					\
		return a->mode;						\
	}
#define SYSFS_GROUP_VISIBLE(fn) sysfs_group_visible_##fn
RETROFI_CENSUS(DEFINE_SIMPLE_SYSFS_GROUP_VISIBLE, "6.10", "probed",
	       "sysfs: Introduce a mechanism to hide static attribute_groups (v6.10, version not verified)");
#endif /* < 6.10 */

#endif /* _RETROFI_LINUX_SYSFS_H */
