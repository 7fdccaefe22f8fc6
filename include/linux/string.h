/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/string.h>
 */
#ifndef _RETROFI_LINUX_STRING_H
#define _RETROFI_LINUX_STRING_H

#include_next <linux/string.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * kmemdup_array() -- "mm/util: Introduce kmemdup_array()" (v6.9, through
 * the SoC drivers tree). The shim takes 6.12's argument order (count,
 * element_size). Exported from mm/util.c upstream, so the shim lives in
 * compat/backport-6.9.c. Probed: stable kernels may carry it.
 */
#if RETROFI_API_NEED(6, 9, 0, RETROFI_HAVE_kmemdup_array)
#define kmemdup_array LINUX_BACKPORT(kmemdup_array)
void *kmemdup_array(const void *src, size_t count, size_t element_size,
		    gfp_t gfp);
RETROFI_CENSUS(kmemdup_array, "6.9", "probed",
	       "mm/util: Introduce kmemdup_array() (v6.9)");
#endif /* < 6.9 */

/*
 * memset_after(obj, v, member) -- "string.h: Introduce memset_after() for
 * wiping trailing members/padding" (v5.15): set every byte of *obj after
 * member to v. Additive; a macro, so it is renamed to upstream's body
 * (a stable kernel's own is replaced by the same), and no probe is
 * needed.
 */
#if RETROFI_API_LESS(5, 15, 0)
#undef memset_after
#define memset_after LINUX_BACKPORT(memset_after)
#define backport_memset_after(obj, v, member)				\
({									\
	u8 *__ptr = (u8 *)(obj);					\
	typeof(v) __val = (v);						\
	memset(__ptr + offsetofend(typeof(*(obj)), member), __val,	\
	       sizeof(*(obj)) - offsetofend(typeof(*(obj)), member));	\
})
RETROFI_CENSUS(memset_after, "5.15", "additive",
	       "string.h: Introduce memset_after() for wiping trailing members/padding (v5.15)");
#endif /* < 5.15 */

/*
 * memzero_explicit() -- "random: add and use memzero_explicit() for
 * clearing data" (v3.18, and stable 3.17.3, 3.14.24, 3.12.33, 3.10.60,
 * 3.4.106, 3.2.65; cited by hauke/backports, guard < 3.18): zero memory
 * in a way the compiler may not drop as a dead store. Additive; 6.12's
 * body.
 */
#if RETROFI_API_LESS(3, 18, 0)
static inline void LINUX_BACKPORT(memzero_explicit)(void *s, size_t count)
{
	memset(s, 0, count);
	barrier_data(s);
}
#define memzero_explicit LINUX_BACKPORT(memzero_explicit)
RETROFI_CENSUS(memzero_explicit, "3.18", "additive",
	       "random: add and use memzero_explicit() for clearing data (v3.18)");
#endif /* < 3.18 */

/*
 * strscpy(dst, src) -- "string: Allow 2-argument strscpy()" (v6.9, in
 * the hardening pull for v6.9-rc1): with two arguments, the size is that
 * of the destination array (which must be an array). The shim picks the
 * target's three-argument strscpy() by the number of arguments; with
 * three it is the target's own call. Structural, probed (Debian's
 * 6.12.118 has it, its 6.1.192 not): a macro over the target's
 * three-argument function, which 6.9 made a macro over sized_strscpy(),
 * so it cannot stand in for 6.9's on a newer base.
 */
#if RETROFI_LINUX_LESS(6, 9, 0) && !RETROFI_HAVE_strscpy_2arg
#define __retrofi_strscpy_pick(a, b, c, d, ...) d
#define __retrofi_strscpy2(dst, src)					\
	strscpy(dst, src, sizeof(dst) + __must_be_array(dst))
#define __retrofi_strscpy3(dst, src, size) strscpy(dst, src, size)
#define strscpy(dst, src, ...)						\
	__retrofi_strscpy_pick(dst, src, ##__VA_ARGS__, __retrofi_strscpy3, \
			       __retrofi_strscpy2, 0)(dst, src, ##__VA_ARGS__)
RETROFI_CENSUS(strscpy_2arg, "6.9", "structural",
	       "string: Allow 2-argument strscpy() (v6.9)");
#endif /* < 6.9 */

/*
 * strscpy_pad(dst, src) -- "string: Allow 2-argument strscpy_pad()"
 * (v6.9, the same series): the same for the zero-padding copy (7.3's
 * mac80211 trace.h copies the vif names with it). The same picking macro
 * over the target's three-argument strscpy_pad() (a function before
 * "string: Redefine strscpy_pad() as a macro", v6.9). Structural, probed
 * (Debian's 6.1.192 and 5.10.262 lack it).
 */
#if RETROFI_LINUX_LESS(6, 9, 0) && !RETROFI_HAVE_strscpy_pad_2arg
#define __retrofi_strscpy_pad_pick(a, b, c, d, ...) d
#define __retrofi_strscpy_pad2(dst, src)				\
	strscpy_pad(dst, src, sizeof(dst) + __must_be_array(dst))
#define __retrofi_strscpy_pad3(dst, src, size) strscpy_pad(dst, src, size)
#define strscpy_pad(dst, src, ...)					\
	__retrofi_strscpy_pad_pick(dst, src, ##__VA_ARGS__,		\
				   __retrofi_strscpy_pad3,		\
				   __retrofi_strscpy_pad2, 0)(dst, src, ##__VA_ARGS__)
RETROFI_CENSUS(strscpy_pad_2arg, "6.9", "structural",
	       "string: Allow 2-argument strscpy_pad() (v6.9)");
#endif /* < 6.9 */

/*
 * kvmemdup() -- "mm: new primitive kvmemdup()" (v6.3): kmemdup() into a
 * kvmalloc() allocation, freed with kvfree() (iwlwifi's firmware and PNVM
 * loaders). Exported from mm/util.c upstream, so the shim lives in
 * compat/backport-6.3.c. Probed: stable kernels may carry it.
 */
#if RETROFI_API_NEED(6, 3, 0, RETROFI_HAVE_kvmemdup)
#define kvmemdup LINUX_BACKPORT(kvmemdup)
void *kvmemdup(const void *src, size_t len, gfp_t gfp);
RETROFI_CENSUS(kvmemdup, "6.3", "probed", "mm: new primitive kvmemdup() (v6.3)");
#endif /* < 6.3 */

/*
 * memset_startat() -- "string.h: Introduce memset_startat() for wiping
 * trailing members and padding" (v5.16): set an object from one member
 * to its end (ath11k's and ath12k's HAL). The body is upstream's. Probed
 * by the preprocessor: a macro, and at a forced API level defined again.
 */
#ifdef memset_startat
#define RETROFI_HAVE_memset_startat 1
#else
#define RETROFI_HAVE_memset_startat 0
#endif
#if RETROFI_API_NEED(5, 16, 0, RETROFI_HAVE_memset_startat)
#undef memset_startat
#define memset_startat(obj, v, member)					\
({									\
	u8 *__ptr = (u8 *)(obj);					\
	typeof(v) __val = (v);						\
	memset(__ptr + offsetof(typeof(*(obj)), member), __val,		\
	       sizeof(*(obj)) - offsetof(typeof(*(obj)), member));	\
})
RETROFI_CENSUS(memset_startat, "5.16", "probed",
	       "string.h: Introduce memset_startat() for wiping trailing members and padding (v5.16)");
#endif /* < 5.16 */

/*
 * The str_*() helpers of <linux/string_helpers.h>, which the drivers
 * reach through <linux/seq_file.h> from 6.1 on (5.10's includes no such
 * header), and their shims: with <linux/string.h> on every target.
 */
#include <linux/string_helpers.h>

#endif /* _RETROFI_LINUX_STRING_H */
