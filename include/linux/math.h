/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/math.h>
 *
 * The target's own header where it has one ("kernel.h: split out
 * mathematical helpers", v5.14); before, these helpers are
 * <linux/kernel.h>'s, which includes this file for the shims below.
 */
#ifndef _RETROFI_LINUX_MATH_H
#define _RETROFI_LINUX_MATH_H

#if __has_include_next(<linux/math.h>)
#include_next <linux/math.h>
#else
#include <linux/kernel.h>
#endif
#include <retrofi/backport.h>

/*
 * abs_diff(a, b) -- "drm/i915: Move abs_diff() to math.h" (v6.6): the
 * distance of two values of the same type, without the overflow of
 * abs(a - b) (rtw88's 8814a and 88xxa chip code). Upstream's body.
 * Probed, by the preprocessor: a macro, so the target has it when it is
 * defined, and at a forced API level it is defined again the same.
 */
#ifdef abs_diff
#define RETROFI_HAVE_abs_diff 1
#else
#define RETROFI_HAVE_abs_diff 0
#endif
#if RETROFI_API_NEED(6, 6, 0, RETROFI_HAVE_abs_diff)
#undef abs_diff
#define abs_diff(a, b) ({			\
	typeof(a) __a = (a);			\
	typeof(b) __b = (b);			\
	(void)(&__a == &__b);			\
	__a > __b ? (__a - __b) : (__b - __a);	\
})
RETROFI_CENSUS(abs_diff, "6.6", "probed",
	       "drm/i915: Move abs_diff() to math.h (v6.6)");
#endif /* < 6.6 */

#endif /* _RETROFI_LINUX_MATH_H */
