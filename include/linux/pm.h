/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/pm.h>
 */
#ifndef _RETROFI_LINUX_PM_H
#define _RETROFI_LINUX_PM_H

#include_next <linux/pm.h>
#include <retrofi/backport.h>

/*
 * DEFINE_SIMPLE_DEV_PM_OPS() without a storage class -- "PM: core: Remove
 * static qualifier in DEFINE_SIMPLE_DEV_PM_OPS macro" (v5.17; version not
 * verified): the macro defines a const struct dev_pm_ops and leaves the
 * storage class to the driver, which writes "static
 * DEFINE_SIMPLE_DEV_PM_OPS(...)" (mt7921e, mt7921s). The first form,
 * which stable kernels carry (5.10.0-46's), began with "static", and the
 * driver's line is then a duplicate "static". Below 5.17 the macro is
 * upstream's: the same system-sleep callbacks, no storage class, and no
 * runtime callbacks. Where the target has none, this defines it.
 * Structural (a changed expansion), by version.
 */
#if RETROFI_LINUX_LESS(5, 17, 0)
#undef DEFINE_SIMPLE_DEV_PM_OPS
#ifdef SYSTEM_SLEEP_PM_OPS
#define DEFINE_SIMPLE_DEV_PM_OPS(name, suspend_fn, resume_fn) \
const struct dev_pm_ops name = { \
	SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn) \
}
#else
#define DEFINE_SIMPLE_DEV_PM_OPS(name, suspend_fn, resume_fn) \
const struct dev_pm_ops name = { \
	SET_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn) \
}
#endif
RETROFI_CENSUS(define_simple_dev_pm_ops_nonstatic, "5.17", "structural",
	       "PM: core: Remove static qualifier in DEFINE_SIMPLE_DEV_PM_OPS macro (v5.17; version not verified)");
#endif /* < 5.17 */

#endif /* _RETROFI_LINUX_PM_H */
