/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/device/class.h>
 */
#ifndef _RETROFI_LINUX_DEVICE_CLASS_H
#define _RETROFI_LINUX_DEVICE_CLASS_H

#include_next <linux/device/class.h>
#include <retrofi/backport.h>

/*
 * class_create(name) -- "driver core: class: remove module * from
 * class_create()" (v6.4) dropped the owner argument. Before, the owner is
 * passed: the calling module, as every caller did. Structural (a changed
 * signature); the old macro is redefined with one argument, around the same
 * __class_create() with a lock class key per call site.
 */
#if RETROFI_LINUX_LESS(6, 4, 0)
#undef class_create
#define class_create(name)					\
({								\
	static struct lock_class_key __key;			\
	__class_create(THIS_MODULE, name, &__key);		\
})
RETROFI_CENSUS(class_create, "6.4", "structural",
	       "driver core: class: remove module * from class_create() (v6.4)");
#endif /* < 6.4 */

#endif /* _RETROFI_LINUX_DEVICE_CLASS_H */
