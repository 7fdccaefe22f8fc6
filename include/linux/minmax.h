/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/minmax.h>
 */
#ifndef _RETROFI_LINUX_MINMAX_H
#define _RETROFI_LINUX_MINMAX_H

#include_next <linux/minmax.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * min(), max() -- "minmax: allow min()/max()/clamp() if the arguments have
 * the same signedness.", "minmax: allow comparisons of 'int' against
 * 'unsigned char/short'" and "minmax: relax check to allow comparison
 * between unsigned arguments and signed constants" (v6.7): two arguments
 * of different types are compared when their signedness agrees, when a
 * u8 or u16 meets a signed value (both are int after promotion), or when
 * one is a non-negative signed constant; anything else is still a build
 * error. The 6.12 stack relies on it: max(msecs_to_jiffies(d),
 * IEEE80211_PASSIVE_CHANNEL_TIME) in mac80211's scan.c (unsigned long
 * against an int constant), min(ssid->datalen, IEEE80211_MAX_SSID_LEN) in
 * cfg80211's sme.c (u8 against one). Before, min() and max() demanded one
 * type and warned otherwise ("comparison of distinct pointer types lacks
 * a cast").
 *
 * Stable 5.10.y took it with "Update <linux/minmax.h> to the version in
 * 6.17" (5.10.246; "minmax: add umin(a, b) and umax(a, b)" in 5.10.241):
 * Debian's 5.10.0-46 (5.10.262) has it, 5.10.0-30 (5.10.218) has not.
 * Structural (the same API with a looser check, which an API level cannot
 * ask for), probed: where the target's own min() and max() refuse an
 * unsigned long and a u8 against int constants, they are redefined with
 * 6.7's check. They stay constant expressions for constant arguments, as
 * 5.10's are (5.10's headers use them so); clamp(), min3(), max3() and
 * min_not_zero() are 5.10's, written with min() and max(), so they follow.
 * With probes forced off (<retrofi/backport.h>) they are redefined even
 * where the target's are 6.7's or newer: they #undef the target's, so
 * there is no name to change.
 */
#if RETROFI_LINUX_LESS(6, 7, 0) && RETROFI_PROBED_ON(RETROFI_HAVE_minmax_relaxed)
#include <linux/build_bug.h>
#include <linux/const.h>

/* Whether x has a signed type (a pointer has none: 5 is its type class). */
#define __retrofi_signed(x)						\
	(__builtin_choose_expr(__builtin_classify_type(x) == 5, 0,	\
			       (((typeof(x))-1) < (typeof(x))1)) != 0)
/* A signed integer constant expression that is not negative. */
#define __retrofi_nonneg_const(x)					\
	(__builtin_choose_expr(__is_constexpr(x) && __retrofi_signed(x),	\
			       (x), -1) >= 0)
#define __retrofi_types_ok(x, y)					\
	(__retrofi_signed(x) == __retrofi_signed(y) ||			\
	 __retrofi_signed((x) + 0) == __retrofi_signed((y) + 0) ||	\
	 __retrofi_nonneg_const(x) || __retrofi_nonneg_const(y))
#define __retrofi_cmp(x, y, op) ((x) op (y) ? (x) : (y))
#define __retrofi_cmp_once(x, y, ux, uy, op) ({				\
	typeof(x) ux = (x);						\
	typeof(y) uy = (y);						\
	static_assert(__retrofi_types_ok(x, y),				\
		      "min/max(" #x ", " #y ") signedness error");	\
	__retrofi_cmp(ux, uy, op); })
#define __retrofi_careful_cmp(x, y, op)					\
	__builtin_choose_expr(__is_constexpr(x) && __is_constexpr(y) &&	\
			      __retrofi_types_ok(x, y),			\
		__retrofi_cmp(x, y, op),				\
		__retrofi_cmp_once(x, y, __UNIQUE_ID(x_), __UNIQUE_ID(y_), op))

#undef min
#define min(x, y) __retrofi_careful_cmp(x, y, <)
#undef max
#define max(x, y) __retrofi_careful_cmp(x, y, >)
RETROFI_CENSUS(min, "6.7", "structural",
	       "minmax: relax check to allow comparison between unsigned arguments "
	       "and signed constants (v6.7)");
RETROFI_CENSUS(max, "6.7", "structural",
	       "minmax: relax check to allow comparison between unsigned arguments "
	       "and signed constants (v6.7)");
#endif /* < 6.7 */

/*
 * umin(), umax() -- "minmax: add umin(a, b) and umax(a, b)" (v6.7), which
 * stable 5.10.y took in 5.10.241 (Debian's 5.10.0-46 has them, 5.10.0-30
 * has not): the minimum and maximum of two non-negative values of any
 * integer types, each zero-extended to unsigned long long, so that no
 * signedness check can fail (rtw89's core.c). Upstream's bodies, on
 * min() and max() (6.7's where the block above redefines them, and both
 * operands have the same type anyway). Structural, by macro: defined
 * where the target has no macro of that name, and with probes forced off
 * (<retrofi/backport.h>) in place of the target's, so that a booted
 * stable kernel runs the shim's text too.
 */
#if RETROFI_LINUX_LESS(6, 7, 0) && (!defined(umin) || RETROFI_PROBED_ON(1))
#undef umin
#undef umax
#define umin(x, y) min((x) + 0u + 0ul + 0ull, (y) + 0u + 0ul + 0ull)
#define umax(x, y) max((x) + 0u + 0ul + 0ull, (y) + 0u + 0ul + 0ull)
RETROFI_CENSUS(umin, "6.7", "structural",
	       "minmax: add umin(a, b) and umax(a, b) (v6.7)");
#endif /* < 6.7 */

#endif /* _RETROFI_LINUX_MINMAX_H */
