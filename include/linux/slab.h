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
 * that nothing may sleep here.
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
	/* NULL only for a freed object, which ksize() reports as 0 already. */
	if (ks && krealloc(mem, ks, GFP_NOWAIT | __GFP_NOWARN) != mem)
		return;
#endif /* >= 6.2 */
	if (ks)
		memzero_explicit(mem, ks);
	kfree(mem);
}
#define kfree_sensitive LINUX_BACKPORT(kfree_sensitive)
RETROFI_CENSUS(kfree_sensitive, "5.9", "additive",
	       "mm, treewide: rename kzfree() to kfree_sensitive() (v5.9)");
#endif /* < 5.9 */

#endif /* _RETROFI_LINUX_SLAB_H */
