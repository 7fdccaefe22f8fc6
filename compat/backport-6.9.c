// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 6.9 introduced that the stack uses.
 */
#include <linux/export.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#if RETROFI_API_NEED(6, 9, 0, RETROFI_HAVE_kmemdup_array)
/*
 * "mm/util: Introduce kmemdup_array()" (v6.9): duplicate an array, with the size
 * multiplication saturating so that an overflow fails the allocation.
 */
void *kmemdup_array(const void *src, size_t count, size_t element_size,
		    gfp_t gfp)
{
	return kmemdup(src, size_mul(element_size, count), gfp);
}
EXPORT_SYMBOL_GPL(kmemdup_array);
#endif /* < 6.9 */
