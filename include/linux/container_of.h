/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/container_of.h>
 */
#ifndef _RETROFI_LINUX_CONTAINER_OF_H
#define _RETROFI_LINUX_CONTAINER_OF_H

#include <retrofi/backport.h>

/*
 * <linux/container_of.h> -- "kernel.h: split out container_of() and
 * typeof_member() macros" (v5.16): KUnit's <kunit/test.h> includes it.
 * Before, container_of() is <linux/kernel.h>'s. Structural (a header
 * that appeared); the target's own header is used wherever it has one.
 */
#if RETROFI_LINUX_LESS(5, 16, 0) && !__has_include_next(<linux/container_of.h>)
#include <linux/kernel.h>
RETROFI_CENSUS(linux_container_of_h, "5.16", "structural",
	       "kernel.h: split out container_of() and typeof_member() macros (v5.16)");
#else
#include_next <linux/container_of.h>
#endif /* < 5.16 */

/*
 * container_of_const() -- "container_of: add container_of_const() that
 * preserves const-ness of the pointer" (v6.2): container_of() whose
 * result is const when the member pointer is. KUnit's device helpers
 * (lib/kunit/device.c) use it. Upstream's body. Probed, by the
 * preprocessor: a macro, so the target has it when it is defined.
 */
#ifdef container_of_const
#define RETROFI_HAVE_container_of_const 1
#else
#define RETROFI_HAVE_container_of_const 0
#endif
#if RETROFI_API_NEED(6, 2, 0, RETROFI_HAVE_container_of_const)
#undef container_of_const
#define container_of_const(ptr, type, member)				\
	_Generic(ptr,							\
		const typeof(*(ptr)) *: ((const type *)container_of(ptr, type, member)),\
		default: ((type *)container_of(ptr, type, member))	\
	)
RETROFI_CENSUS(container_of_const, "6.2", "probed",
	       "container_of: add container_of_const() that preserves const-ness of the pointer (v6.2)");
#endif /* < 6.2 */

#endif /* _RETROFI_LINUX_CONTAINER_OF_H */
