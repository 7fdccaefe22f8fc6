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
#endif /* < 6.9 */

#endif /* _RETROFI_LINUX_STRING_H */
