/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/pm.h>
 */
#ifndef _RETROFI_LINUX_PM_H
#define _RETROFI_LINUX_PM_H

#include_next <linux/pm.h>
#include <retrofi/backport.h>

/*
 * pm_sleep_ptr() and SYSTEM_SLEEP_PM_OPS() -- "PM: core: Add new *_PM_OPS
 * macros, deprecate old ones" and "PM: core: Add pm_sleep_ptr() macro"
 * (v5.17; titles not verified): the callback where the kernel has system
 * sleep (CONFIG_PM_SLEEP), else NULL, so that an unused callback is no
 * warning; and the system-sleep members of a struct dev_pm_ops so filled
 * (iwlwifi's PCIe glue, mt7921e, mt7921s). 5.10.0-43 and later carry both
 * from stable, 5.10.0-30 and -32 neither; each is defined where the
 * target has no macro of that name. Upstream's bodies (PTR_IF() is
 * 5.17's too, so its expansion is written out). Structural, by macro.
 */
#if RETROFI_LINUX_LESS(5, 17, 0) && !defined(pm_sleep_ptr)
#define pm_sleep_ptr(_ptr) (IS_ENABLED(CONFIG_PM_SLEEP) ? (_ptr) : NULL)
RETROFI_CENSUS(pm_sleep_ptr, "5.17", "structural",
	       "PM: core: Add pm_sleep_ptr() macro (v5.17; title not verified)");
#endif /* < 5.17 */

#if RETROFI_LINUX_LESS(5, 17, 0) && !defined(SYSTEM_SLEEP_PM_OPS)
#define SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn) \
	.suspend = pm_sleep_ptr(suspend_fn), \
	.resume = pm_sleep_ptr(resume_fn), \
	.freeze = pm_sleep_ptr(suspend_fn), \
	.thaw = pm_sleep_ptr(resume_fn), \
	.poweroff = pm_sleep_ptr(suspend_fn), \
	.restore = pm_sleep_ptr(resume_fn),
RETROFI_CENSUS(system_sleep_pm_ops, "5.17", "structural",
	       "PM: core: Add new *_PM_OPS macros, deprecate old ones (v5.17; title not verified)");
#endif /* < 5.17 */

/*
 * DEFINE_SIMPLE_DEV_PM_OPS() without a storage class -- "PM: core: Remove
 * static qualifier in DEFINE_SIMPLE_DEV_PM_OPS macro" (v5.17; version not
 * verified): the macro defines a const struct dev_pm_ops and leaves the
 * storage class to the driver, which writes "static
 * DEFINE_SIMPLE_DEV_PM_OPS(...)" (mt7921e, mt7921s). The first form,
 * which stable kernels carry (5.10.0-46's), began with "static", and the
 * driver's line is then a duplicate "static"; 5.10.0-30 has none. Below
 * 5.17 the macro is upstream's: the system-sleep callbacks, no storage
 * class, no runtime callbacks. Structural (a changed expansion), by
 * version.
 */
#if RETROFI_LINUX_LESS(5, 17, 0)
#undef DEFINE_SIMPLE_DEV_PM_OPS
#define DEFINE_SIMPLE_DEV_PM_OPS(name, suspend_fn, resume_fn) \
const struct dev_pm_ops name = { \
	SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn) \
}
RETROFI_CENSUS(define_simple_dev_pm_ops_nonstatic, "5.17", "structural",
	       "PM: core: Remove static qualifier in DEFINE_SIMPLE_DEV_PM_OPS macro (v5.17; version not verified)");
#endif /* < 5.17 */

#endif /* _RETROFI_LINUX_PM_H */
