/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/kernel.h>
 *
 * Where the helpers below lived when they appeared (6.12 has them in
 * <linux/math.h> and <linux/minmax.h>, which <linux/kernel.h> includes).
 */
#ifndef _RETROFI_LINUX_KERNEL_H
#define _RETROFI_LINUX_KERNEL_H

#include_next <linux/kernel.h>
#include <retrofi/backport.h>
/*
 * The shims of <linux/math.h> and <linux/container_of.h>, whose helpers
 * kernel.h held before 5.14 and 5.16.
 */
#include <linux/math.h>
#include <linux/container_of.h>

/*
 * clamp() -- 2.6.26 (compat-2.6.26.h of mcgrof/compat and hauke/backports;
 * the upstream commit title is not verified here): val limited to
 * [lo, hi], each argument evaluated once. Additive; 6.12's __clamp(),
 * without its compile-time checks of the arguments' signedness and order
 * (which change no result). The redirect is object-like, so that the
 * selftest can name the shim: clamp is also a field of the btrfs trace
 * events, which the stack does not include.
 */
#if RETROFI_API_LESS(2, 6, 26)
#undef clamp
#define clamp LINUX_BACKPORT(clamp)
#define backport_clamp(val, lo, hi) ({					\
	__auto_type v__ = (val);					\
	__auto_type l__ = (lo);						\
	__auto_type h__ = (hi);						\
	v__ >= h__ ? h__ : (v__ <= l__ ? l__ : v__); })
RETROFI_CENSUS(clamp, "2.6.26", "additive",
	       "compat-2.6.26.h of hauke/backports (title not verified)");
#endif /* < 2.6.26 */

/*
 * DIV_ROUND_CLOSEST() -- 2.6.29 (compat-2.6.29.h of mcgrof/compat and
 * hauke/backports; the upstream commit title is not verified here): x / d
 * rounded to the nearest integer, halves away from zero. Additive; 6.12's
 * body.
 */
#if RETROFI_API_LESS(2, 6, 29)
#undef DIV_ROUND_CLOSEST
#define DIV_ROUND_CLOSEST LINUX_BACKPORT(DIV_ROUND_CLOSEST)
#define backport_DIV_ROUND_CLOSEST(x, divisor)(		\
{							\
	typeof(x) __x = x;				\
	typeof(divisor) __d = divisor;			\
	(((typeof(x))-1) > 0 ||				\
	 ((typeof(divisor))-1) > 0 ||			\
	 (((__x) > 0) == ((__d) > 0))) ?		\
		(((__x) + ((__d) / 2)) / (__d)) :	\
		(((__x) - ((__d) / 2)) / (__d));	\
}							\
)
RETROFI_CENSUS(DIV_ROUND_CLOSEST, "2.6.29", "additive",
	       "compat-2.6.29.h of hauke/backports (title not verified)");
#endif /* < 2.6.29 */

#endif /* _RETROFI_LINUX_KERNEL_H */
