/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi: kernel version tests used by the code semantic-patches/ writes.
 * Force-included into every file of the output tree (see the top-level
 * Makefile, NOSTDINC_FLAGS), so a rewritten file never depends on whether it
 * happened to include <linux/version.h> itself.
 */
#ifndef _RETROFI_VERSION_H
#define _RETROFI_VERSION_H
#include <linux/version.h>

#define RETROFI_LINUX_IS_LESS(a, b, c) \
	(LINUX_VERSION_CODE < KERNEL_VERSION(a, b, c))
#define RETROFI_LINUX_IS_GEQ(a, b, c) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(a, b, c))

#endif /* _RETROFI_VERSION_H */
