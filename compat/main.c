// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat.ko: the shims the backported stack links against. Loading
 * it prints one line naming the project version and the source kernel;
 * every backported module depends on it (see compat/Kbuild).
 */
#include <linux/build_bug.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <net/cfg80211.h>
#include <retrofi/backport.h>
#include <retrofi/kunit.h>
#include <retrofi/probes.h>
#include "retrofi-version.h"

/*
 * Layout checks (compat/layout.list): members that code built into the
 * target reads from objects the backported stack allocates must sit where
 * the target's own headers put them. compat/probe.sh measured the target's
 * offsets; a mismatch stops the build here instead of crashing at run time.
 */
#define RETROFI_CHECK_LAYOUT(st, member, target_offset)			\
	static_assert(offsetof(struct st, member) == (target_offset),	\
		      "retrofi: struct " #st "." #member " is not where the "	\
		      "built-in code of the target reads it; see compat/layout.list")

#ifdef RETROFI_TARGET_OFFSETOF_wireless_dev_wiphy
RETROFI_CHECK_LAYOUT(wireless_dev, wiphy, RETROFI_TARGET_OFFSETOF_wireless_dev_wiphy);
#endif
#ifdef RETROFI_TARGET_OFFSETOF_wiphy_flags
RETROFI_CHECK_LAYOUT(wiphy, flags, RETROFI_TARGET_OFFSETOF_wiphy_flags);
#endif
#ifdef RETROFI_TARGET_OFFSETOF_wiphy_wext
RETROFI_CHECK_LAYOUT(wiphy, wext, RETROFI_TARGET_OFFSETOF_wiphy_wext);
#endif

/*
 * The same for the flags that built-in code tests in those members: the
 * constant must have the target's value (where the target's headers have
 * it; see compat/layout.list).
 */
#define RETROFI_CHECK_VALUE(name, target_value)				\
	static_assert((name) == (target_value),				\
		      "retrofi: " #name " does not have the value the "	\
		      "built-in code of the target tests; see compat/layout.list")

#ifdef RETROFI_TARGET_VALUE_WIPHY_FLAG_SUPPORTS_MLO
RETROFI_CHECK_VALUE(WIPHY_FLAG_SUPPORTS_MLO, RETROFI_TARGET_VALUE_WIPHY_FLAG_SUPPORTS_MLO);
#endif
#ifdef RETROFI_TARGET_VALUE_WIPHY_FLAG_DISABLE_WEXT
RETROFI_CHECK_VALUE(WIPHY_FLAG_DISABLE_WEXT, RETROFI_TARGET_VALUE_WIPHY_FLAG_DISABLE_WEXT);
#endif

MODULE_AUTHOR("retrofi");
MODULE_DESCRIPTION("retrofi compat layer for the backported wireless stack");
MODULE_LICENSE("GPL");
MODULE_VERSION(RETROFI_PROJECT_VERSION);

/*
 * The symbol every backported module references, so that modprobe and
 * depmod load compat.ko first even when a module uses no other shim.
 */
void retrofi_compat_dependency(void)
{
}
EXPORT_SYMBOL_GPL(retrofi_compat_dependency);

static int __init retrofi_compat_init(void)
{
	int err = 0;

	/* The debugfs cancellation shim's workqueue (compat/backport-6.7.c). */
#if RETROFI_LINUX_LESS(6, 7, 0) && !RETROFI_HAVE_debugfs_cancellation
	err = retrofi_debugfs_removal_init();

	if (err)
		return err;
#endif /* < 6.7 */
#if IS_ENABLED(CONFIG_RETROFI_KUNIT)
	/* KUnit's built-in part (compat/kunit.c). */
	err = retrofi_kunit_init();
	if (err) {
#if RETROFI_LINUX_LESS(6, 7, 0) && !RETROFI_HAVE_debugfs_cancellation
		retrofi_debugfs_removal_exit();
#endif /* < 6.7 */
		return err;
	}
#endif /* CONFIG_RETROFI_KUNIT */
	pr_info("retrofi compat: version %s, wireless stack from %s, api level %u.%u.%u on %u.%u.%u\n",
		RETROFI_PROJECT_VERSION, RETROFI_SOURCE_KERNEL,
		(RETROFI_API_CODE >> 16) & 0xff, (RETROFI_API_CODE >> 8) & 0xff,
		RETROFI_API_CODE & 0xff, (LINUX_VERSION_CODE >> 16) & 0xff,
		(LINUX_VERSION_CODE >> 8) & 0xff, LINUX_VERSION_CODE & 0xff);
	return err;
}

static void __exit retrofi_compat_exit(void)
{
#if IS_ENABLED(CONFIG_RETROFI_KUNIT)
	retrofi_kunit_exit();
#endif /* CONFIG_RETROFI_KUNIT */
	retrofi_compat_exit_debugfs_short();
#if RETROFI_LINUX_LESS(6, 7, 0) && !RETROFI_HAVE_debugfs_cancellation
	retrofi_debugfs_removal_exit();
#endif /* < 6.7 */
}

module_init(retrofi_compat_init);
module_exit(retrofi_compat_exit);
