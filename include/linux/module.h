/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/module.h>
 */
#ifndef _RETROFI_LINUX_MODULE_H
#define _RETROFI_LINUX_MODULE_H

#include_next <linux/module.h>
#include <linux/export.h>
#include <retrofi/backport.h>

/*
 * MODULE_IMPORT_NS() of a string -- "module: Convert symbol namespace to
 * string literal" (v6.13), as EXPORT_SYMBOL_NS() in <linux/export.h>: the
 * literal is the module's import_ns as it is, not quoted once more (which
 * would import a namespace no module exports). Structural.
 */
#if RETROFI_LINUX_LESS(6, 13, 0)
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
RETROFI_CENSUS(MODULE_IMPORT_NS, "6.13", "structural",
	       "module: Convert symbol namespace to string literal (v6.13)");
#endif /* < 6.13 */

#endif /* _RETROFI_LINUX_MODULE_H */
