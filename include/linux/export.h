/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/export.h>
 */
#ifndef _RETROFI_LINUX_EXPORT_H
#define _RETROFI_LINUX_EXPORT_H

#include_next <linux/export.h>
#include <retrofi/backport.h>

/*
 * EXPORT_SYMBOL_NS(), EXPORT_SYMBOL_NS_GPL() of a string -- "module:
 * Convert symbol namespace to string literal" (v6.13): the namespace is
 * a string literal ("IWLWIFI"), where it was an identifier that the
 * macros stringified. Given a literal, an older kernel's macros quote it
 * once more, and modpost writes the namespace with its quotes into the
 * module's .mod.c, which then does not compile (iwlwifi's exports, the
 * KUnit suites' EXPORT_SYMBOL_IF_KUNIT()). Here the literal goes to
 * __EXPORT_SYMBOL() as it is, with the license string of the target's
 * own EXPORT_SYMBOL_GPL() ("GPL" since 6.5's modpost-made KSYMTAB
 * entries, "_gpl" before). MODULE_IMPORT_NS() is in <linux/module.h>.
 * Structural (a changed macro).
 */
#if RETROFI_LINUX_LESS(6, 13, 0)
#undef EXPORT_SYMBOL_NS
#undef EXPORT_SYMBOL_NS_GPL
#define EXPORT_SYMBOL_NS(sym, ns)	__EXPORT_SYMBOL(sym, "", ns)
#if RETROFI_LINUX_LESS(6, 5, 0)
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	__EXPORT_SYMBOL(sym, "_gpl", ns)
#else
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	__EXPORT_SYMBOL(sym, "GPL", ns)
#endif /* < 6.5 */
RETROFI_CENSUS(EXPORT_SYMBOL_NS, "6.13", "structural",
	       "module: Convert symbol namespace to string literal (v6.13)");
#endif /* < 6.13 */

#endif /* _RETROFI_LINUX_EXPORT_H */
