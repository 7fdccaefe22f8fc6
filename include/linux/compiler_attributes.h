/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/compiler_attributes.h>
 *
 * Read through <linux/compiler_types.h>, which every file of the kernel
 * build includes first, so what is added here is seen everywhere.
 */
#ifndef _RETROFI_LINUX_COMPILER_ATTRIBUTES_H
#define _RETROFI_LINUX_COMPILER_ATTRIBUTES_H

#include_next <linux/compiler_attributes.h>
#include <retrofi/backport.h>

/*
 * __counted_by(member) -- "Compiler Attributes: Add __counted_by macro"
 * (v6.5; moved to <linux/compiler_types.h> later): annotates a flexible
 * array with the member that holds its element count, for the compiler's
 * bounds checks. It expands to nothing with a compiler that lacks the
 * attribute (gcc before 15), as here, so the stack's structures keep
 * their layout. Structural: an attribute, not code, so nothing to shape;
 * and a macro, so a stable kernel that carries it (Debian's 6.1 does) is
 * left alone.
 */
#if RETROFI_LINUX_LESS(6, 5, 0)
#ifndef __counted_by
#define __counted_by(member)
RETROFI_CENSUS(__counted_by, "6.5", "structural",
	       "Compiler Attributes: Add __counted_by macro (v6.5)");
#endif
#endif /* < 6.5 */

#endif /* _RETROFI_LINUX_COMPILER_ATTRIBUTES_H */
