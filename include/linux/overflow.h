/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/overflow.h>
 */
#ifndef _RETROFI_LINUX_OVERFLOW_H
#define _RETROFI_LINUX_OVERFLOW_H

#include_next <linux/overflow.h>
#include <linux/limits.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * array_size(), struct_size() -- "overflow.h: Add allocation size
 * calculation helpers" (Kees Cook, commit 610b15c50e86, May 2018; the
 * title from its patch mail and later Fixes: tags; 4.18, a version not
 * verified here); flex_array_size() -- "overflow.h: Add flex_array_size()
 * helper" (Gustavo A. R. Silva, commit b19d57d0f3cc, June 2020, v5.9; the
 * title from its patch mail). The 5.10 tree in the cache has all three;
 * hauke/backports and mcgrof/compat never needed them (their kernels had
 * them). Sizes for allocations that saturate at SIZE_MAX on overflow, so
 * that the allocation fails instead of coming out short; for a constant
 * count, a constant expression, as in 6.12. Additive. The redirects are
 * object-like, so that the selftest can name the shim; array_size is also
 * a parameter name in two media headers (v4l2), which the stack does not
 * include. The saturating arithmetic is written out instead of 6.12's
 * size_mul()/size_add() (5.18), for all three shims: flex_array_size()
 * needs it at the levels that have the other two.
 */

/*
 * Helpers of the three shims below, not an API: the saturating
 * multiplication and addition, compiled below the newest shim's version.
 */
#if RETROFI_API_LESS(5, 9, 0)
static inline size_t retrofi_size_mul(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b)
		return SIZE_MAX;
	return a * b;
}

static inline size_t retrofi_size_add(size_t a, size_t b)
{
	if (a > SIZE_MAX - b)
		return SIZE_MAX;
	return a + b;
}
#endif /* < 5.9 */

#if RETROFI_API_LESS(4, 18, 0)
#undef array_size
#define array_size LINUX_BACKPORT(array_size)
#define backport_array_size(a, b) retrofi_size_mul(a, b)
RETROFI_CENSUS(array_size, "4.18", "additive",
	       "overflow.h: Add allocation size calculation helpers (v4.18, version not verified)");

#undef struct_size
#define struct_size LINUX_BACKPORT(struct_size)
#define backport_struct_size(p, member, count)				\
	__builtin_choose_expr(__is_constexpr(count),			\
		sizeof(*(p)) + (count) * sizeof(*(p)->member) +		\
			__must_be_array((p)->member),			\
		retrofi_size_add(sizeof(*(p)),				\
			retrofi_size_mul(count, sizeof(*(p)->member) +	\
					 __must_be_array((p)->member))))
RETROFI_CENSUS(struct_size, "4.18", "additive",
	       "overflow.h: Add allocation size calculation helpers (v4.18, version not verified)");
#endif /* < 4.18 */

#if RETROFI_API_LESS(5, 9, 0)
#undef flex_array_size
#define flex_array_size LINUX_BACKPORT(flex_array_size)
#define backport_flex_array_size(p, member, count)			\
	__builtin_choose_expr(__is_constexpr(count),			\
		(count) * sizeof(*(p)->member) +			\
			__must_be_array((p)->member),			\
		retrofi_size_mul(count, sizeof(*(p)->member) +		\
				 __must_be_array((p)->member)))
RETROFI_CENSUS(flex_array_size, "5.9", "additive",
	       "overflow.h: Add flex_array_size() helper (v5.9)");
#endif /* < 5.9 */

/*
 * DEFINE_RAW_FLEX() -- "overflow: Change DEFINE_FLEX to take __counted_by
 * member" (v6.10; Debian's 6.1 has it from stable, since 6.1.187 among
 * the ABIs the archive serves, 6.1.176 not): an on-stack, zeroed instance of a structure with a trailing
 * flexible array of a constant count, through a pointer. 6.10's layout
 * (a union of the bytes and the structure), the size written out as
 * struct_size_t() (6.5) computes it. Probed; a macro, so it keeps its
 * name.
 */
#if RETROFI_API_NEED(6, 10, 0, RETROFI_HAVE_DEFINE_RAW_FLEX)
#undef DEFINE_RAW_FLEX
#define DEFINE_RAW_FLEX(type, name, member, count)			\
	_Static_assert(__builtin_constant_p(count),			\
		       "onstack flex array members require compile-time const count"); \
	union {								\
		u8 bytes[sizeof(type) +					\
			 (count) * sizeof(((type *)NULL)->member[0])];	\
		type obj;						\
	} name##_u = { };						\
	type *name = (type *)&name##_u
RETROFI_CENSUS(DEFINE_RAW_FLEX, "6.10", "probed",
	       "overflow: Change DEFINE_FLEX to take __counted_by member (v6.10)");
#endif /* < 6.10 */

/*
 * __struct_size() -- "overflow: add DEFINE_FLEX() for on-stack allocs"
 * (v6.7) moved it from <linux/fortify-string.h>, which defines it only
 * with CONFIG_FORTIFY_SOURCE (Debian's 6.1 has it there, 5.10 has none),
 * to <linux/compiler_types.h>: the size of the object a pointer points
 * to, as the compiler knows it (iwlmvm sizes its DEFINE_RAW_FLEX()
 * commands with it). The compiler's __builtin_object_size(p, 0), as
 * fortify-string.h writes it, so that a later definition there is the
 * same one. Probed, by the preprocessor: a macro.
 */
#ifdef __struct_size
#define RETROFI_HAVE___struct_size 1
#else
#define RETROFI_HAVE___struct_size 0
#endif
#if RETROFI_API_NEED(6, 7, 0, RETROFI_HAVE___struct_size)
#undef __struct_size
#define __struct_size(p)	__builtin_object_size(p, 0)
RETROFI_CENSUS(__struct_size, "6.7", "probed",
	       "overflow: add DEFINE_FLEX() for on-stack allocs (v6.7)");
#endif /* < 6.7 */

/*
 * struct_size_t() -- "overflow: Add struct_size_t() helper" (v6.5): the
 * size of a structure type with a trailing array of count elements,
 * SIZE_MAX on overflow (rtw89's core). Upstream's body. Probed, by the
 * preprocessor: a macro (Debian's 6.1 has it from stable).
 */
#ifdef struct_size_t
#define RETROFI_HAVE_struct_size_t 1
#else
#define RETROFI_HAVE_struct_size_t 0
#endif
#if RETROFI_API_NEED(6, 5, 0, RETROFI_HAVE_struct_size_t)
#undef struct_size_t
#define struct_size_t(type, member, count)	\
	struct_size((type *)NULL, member, count)
RETROFI_CENSUS(struct_size_t, "6.5", "probed",
	       "overflow: Add struct_size_t() helper (v6.5)");
#endif /* < 6.5 */

#endif /* _RETROFI_LINUX_OVERFLOW_H */
