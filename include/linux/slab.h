/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/slab.h>
 */
#ifndef _RETROFI_LINUX_SLAB_H
#define _RETROFI_LINUX_SLAB_H

#include_next <linux/slab.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * kmalloc_array() -- "slab: introduce kmalloc_array()" (Xi Wang, March
 * 2012, v3.4; cited by hauke/backports, guard < 3.4): an array allocation
 * that fails when n * size overflows. Additive; 6.12's semantics, the
 * overflow test written out.
 */
#if RETROFI_API_LESS(3, 4, 0)
static inline void *LINUX_BACKPORT(kmalloc_array)(size_t n, size_t size,
						  gfp_t flags)
{
	if (size != 0 && n > SIZE_MAX / size)
		return NULL;
	return kmalloc(n * size, flags);
}
#undef kmalloc_array
#define kmalloc_array LINUX_BACKPORT(kmalloc_array)
RETROFI_CENSUS(kmalloc_array, "3.4", "additive",
	       "slab: introduce kmalloc_array() (v3.4)");
#endif /* < 3.4 */

/*
 * kfree_sensitive() -- "mm, treewide: rename kzfree() to
 * kfree_sensitive()" (v5.9; cited by hauke/backports, guard < 5.9): zero
 * the whole allocation (ksize(), not just what was asked for) before
 * freeing it. Additive; 6.12's body.
 *
 * Under KASAN the bytes past what was asked for are poisoned, and the
 * zeroing must unpoison them first. Before "mm: Make ksize() a
 * reporting-only function" (v6.2) ksize() itself unpoisoned the whole
 * object (kasan_unpoison_shadow(), kasan_unpoison_range() from 5.11).
 * Since, it only reports, and 6.12's kfree_sensitive() calls
 * kasan_unpoison_range() -- whose __kasan_unpoison_range() is not
 * exported, so a module cannot call it. krealloc() to the ksize() the
 * object already has (what 6.2 tells ksize() users to do instead) keeps
 * the object in place and unpoisons exactly those bytes
 * (kasan_krealloc()); it never allocates then, so the flags only say
 * that nothing may sleep here. That holds under KASAN only, where
 * ksize() is the cache's object_size (SLAB_KASAN): without it, ksize()
 * of a SLAB_TYPESAFE_BY_RCU or SLAB_STORE_USER cache's object is the
 * larger s->inuse (slab_ksize()), and 7.x's krealloc() moves an object
 * asked to grow past object_size, freeing the old one unzeroed. Nothing
 * is poisoned without KASAN, so there is nothing to resize for: the
 * shim calls krealloc() only under KASAN, and should it ever move the
 * object, zeroes and frees the copy instead of leaking it.
 */
#if RETROFI_API_LESS(5, 9, 0)
static inline void LINUX_BACKPORT(kfree_sensitive)(const void *p)
{
	void *mem = (void *)p;
	size_t ks;

	if (ZERO_OR_NULL_PTR(mem))
		return;
	/*
	 * Inline, the compiler may know the size asked of kmalloc(), and
	 * FORTIFY_SOURCE would stop the memset of the ksize() bytes that
	 * 6.12's out-of-line kfree_sensitive() clears.
	 */
	OPTIMIZER_HIDE_VAR(mem);
	ks = ksize(mem);
#if !RETROFI_LINUX_LESS(6, 2, 0)
	if (IS_ENABLED(CONFIG_KASAN) && ks) {
		/* NULL only for a freed object, which ksize() reports as 0. */
		void *in_place = krealloc(mem, ks, GFP_NOWAIT | __GFP_NOWARN);

		if (!in_place)
			return;
		if (in_place != mem) {
			mem = in_place;
			ks = ksize(mem);
		}
	}
#endif /* >= 6.2 */
	if (ks)
		memzero_explicit(mem, ks);
	kfree(mem);
}
#define kfree_sensitive LINUX_BACKPORT(kfree_sensitive)
RETROFI_CENSUS(kfree_sensitive, "5.9", "additive",
	       "mm, treewide: rename kzfree() to kfree_sensitive() (v5.9)");
#endif /* < 5.9 */

/*
 * kmalloc_obj(), kzalloc_obj(), kmalloc_objs(), kzalloc_objs(),
 * kmalloc_flex(), kzalloc_flex(), kvmalloc_obj(), kvzalloc_obj(),
 * kvmalloc_objs(), kvzalloc_objs(), kvmalloc_flex(), kvzalloc_flex() --
 * "slab: Introduce kmalloc_obj() and family" (v7.0, merged in its merge
 * window; every 6.12 ABI the archive serves carries it from stable, 6.1
 * not, so it is probed): allocate
 * an object, an array or a structure with a flexible array by type,
 * with the GFP flags optional (GFP_KERNEL). The sizes saturate at
 * SIZE_MAX on overflow, so the allocation fails instead of coming out
 * short. 7.3's bodies, without __set_flex_counter(): that sets the
 * __counted_by() counter only with a compiler that has
 * __builtin_counted_by_ref() (GCC 15), none of the targets' compilers,
 * so the stack sets its counters itself. Probed; macros, redirected
 * like the other macro shims so that a case can name the shim.
 */
#if RETROFI_API_NEED(7, 0, 0, RETROFI_HAVE_kmalloc_obj)
#define __retrofi_default_gfp(a, b, ...) b
#define retrofi_default_gfp(...) __retrofi_default_gfp(, ##__VA_ARGS__, GFP_KERNEL)

static inline size_t retrofi_alloc_size_mul(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b)
		return SIZE_MAX;
	return a * b;
}

static inline size_t retrofi_alloc_size_add(size_t a, size_t b)
{
	if (a > SIZE_MAX - b)
		return SIZE_MAX;
	return a + b;
}

#define __retrofi_alloc_objs(KMALLOC, GFP, TYPE, COUNT)			\
({									\
	const size_t __obj_size = retrofi_alloc_size_mul(sizeof(TYPE), COUNT); \
	(TYPE *)KMALLOC(__obj_size, GFP);				\
})

#define __retrofi_alloc_flex(KMALLOC, GFP, TYPE, FAM, COUNT)		\
({									\
	const size_t __count = (COUNT);					\
	const size_t __obj_size = retrofi_alloc_size_add(sizeof(TYPE),	\
		retrofi_alloc_size_mul(__count,				\
				       sizeof(((TYPE *)NULL)->FAM[0])));	\
	(TYPE *)KMALLOC(__obj_size, GFP);				\
})

#undef kmalloc_obj
#define kmalloc_obj LINUX_BACKPORT(kmalloc_obj)
#define backport_kmalloc_obj(VAR_OR_TYPE, ...) \
	__retrofi_alloc_objs(kmalloc, retrofi_default_gfp(__VA_ARGS__), typeof(VAR_OR_TYPE), 1)
#undef kmalloc_objs
#define kmalloc_objs(VAR_OR_TYPE, COUNT, ...) \
	__retrofi_alloc_objs(kmalloc, retrofi_default_gfp(__VA_ARGS__), typeof(VAR_OR_TYPE), COUNT)
#undef kmalloc_flex
#define kmalloc_flex(VAR_OR_TYPE, FAM, COUNT, ...) \
	__retrofi_alloc_flex(kmalloc, retrofi_default_gfp(__VA_ARGS__), typeof(VAR_OR_TYPE), FAM, COUNT)
#undef kzalloc_obj
#define kzalloc_obj(P, ...) \
	__retrofi_alloc_objs(kzalloc, retrofi_default_gfp(__VA_ARGS__), typeof(P), 1)
#undef kzalloc_objs
#define kzalloc_objs(P, COUNT, ...) \
	__retrofi_alloc_objs(kzalloc, retrofi_default_gfp(__VA_ARGS__), typeof(P), COUNT)
#undef kzalloc_flex
#define kzalloc_flex(P, FAM, COUNT, ...) \
	__retrofi_alloc_flex(kzalloc, retrofi_default_gfp(__VA_ARGS__), typeof(P), FAM, COUNT)
#undef kvmalloc_obj
#define kvmalloc_obj(P, ...) \
	__retrofi_alloc_objs(kvmalloc, retrofi_default_gfp(__VA_ARGS__), typeof(P), 1)
#undef kvmalloc_objs
#define kvmalloc_objs(P, COUNT, ...) \
	__retrofi_alloc_objs(kvmalloc, retrofi_default_gfp(__VA_ARGS__), typeof(P), COUNT)
#undef kvmalloc_flex
#define kvmalloc_flex(P, FAM, COUNT, ...) \
	__retrofi_alloc_flex(kvmalloc, retrofi_default_gfp(__VA_ARGS__), typeof(P), FAM, COUNT)
#undef kvzalloc_obj
#define kvzalloc_obj(P, ...) \
	__retrofi_alloc_objs(kvzalloc, retrofi_default_gfp(__VA_ARGS__), typeof(P), 1)
#undef kvzalloc_objs
#define kvzalloc_objs(P, COUNT, ...) \
	__retrofi_alloc_objs(kvzalloc, retrofi_default_gfp(__VA_ARGS__), typeof(P), COUNT)
#undef kvzalloc_flex
#define kvzalloc_flex(P, FAM, COUNT, ...) \
	__retrofi_alloc_flex(kvzalloc, retrofi_default_gfp(__VA_ARGS__), typeof(P), FAM, COUNT)
RETROFI_CENSUS(kmalloc_obj, "7.0", "probed",
	       "slab: Introduce kmalloc_obj() and family (v7.0)");
#endif /* < 7.0 */

/*
 * __free(kfree) -- the kfree cleanup class of "locking: Introduce
 * __cleanup() based infrastructure" (v6.5), which stable 5.10.y carries
 * with <linux/cleanup.h> (Debian 5.10.0-43 has it, 5.10.0-32 does not).
 * The body is the stable backport's: it leaves NULL and error pointers
 * alone, as the class of every target that has one does (5.10.0-43 to
 * 7.3). Structural and probed, like the mutex guard; with probes forced
 * off, backport_kfree beside the target's own (defined through
 * __retrofi_define_free() of <retrofi/backport.h>).
 */
#if RETROFI_LINUX_LESS(6, 5, 0) && RETROFI_PROBED_ON(RETROFI_HAVE_kfree_free_class)
#include <linux/cleanup.h>
#include <linux/err.h>
__retrofi_define_free(RETROFI_PROBED_NAME(kfree, RETROFI_HAVE_kfree_free_class), void *,
		      if (!IS_ERR_OR_NULL(_T)) kfree(_T))
RETROFI_CENSUS(kfree_free_class, "6.5", "structural",
	       "locking: Introduce __cleanup() based infrastructure (v6.5)");
#endif /* < 6.5 */

#endif /* _RETROFI_LINUX_SLAB_H */
