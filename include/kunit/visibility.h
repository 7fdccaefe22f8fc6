/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <kunit/visibility.h>
 *
 * "kunit: add macro to allow conditionally exposing static symbols to
 * tests" (v6.2) added this header: VISIBLE_IF_KUNIT makes a function
 * static unless KUnit is built, and EXPORT_SYMBOL_IF_KUNIT() exports it
 * for the tests only then. The output tree builds no KUnit tests, so an
 * older kernel gets the header's !CONFIG_KUNIT half, which is what 6.12
 * compiles without KUnit. Structural (a header that appeared), probed by
 * the header's presence: stable kernels carry it (Debian's 6.1 does).
 */
#ifndef _RETROFI_KUNIT_VISIBILITY_H
#define _RETROFI_KUNIT_VISIBILITY_H

#include <retrofi/backport.h>

#if IS_ENABLED(CONFIG_RETROFI_KUNIT)
/*
 * Where the tree builds its own kunit.ko (include/retrofi/kunit.h), the
 * source's CONFIG_KUNIT half: what kunit.ko and the tests use is not
 * static, and is exported into the tests' namespace. The namespace as a
 * string: "module: Convert symbol namespace to string literal" (v6.13,
 * title not verified); config/options builds KUnit only on kernels that
 * take it so.
 */
#include <linux/export.h>
#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol) EXPORT_SYMBOL_NS(symbol, "EXPORTED_FOR_KUNIT_TESTING")
RETROFI_CENSUS(EXPORT_SYMBOL_IF_KUNIT, "6.2", "config",
	       "kunit: add macro to allow conditionally exposing static symbols to tests (v6.2)");
#else
#if RETROFI_LINUX_LESS(6, 2, 0) && !__has_include_next("kunit/visibility.h")
#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
RETROFI_CENSUS(VISIBLE_IF_KUNIT, "6.2", "structural",
	       "kunit: add macro to allow conditionally exposing static symbols to tests (v6.2)");
#else
#include_next <kunit/visibility.h>
#if RETROFI_LINUX_LESS(6, 13, 0) && IS_ENABLED(CONFIG_KUNIT)
/*
 * A target with KUnit of its own (the debug rows' kernel): its header
 * exports into the tests' namespace named as an identifier, which the
 * tree's EXPORT_SYMBOL_NS() of a string ("module: Convert symbol
 * namespace to string literal", v6.13, <linux/export.h>) does not take.
 */
#undef EXPORT_SYMBOL_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol) EXPORT_SYMBOL_NS(symbol, "EXPORTED_FOR_KUNIT_TESTING")
RETROFI_CENSUS(EXPORT_SYMBOL_IF_KUNIT_ns_string, "6.13", "structural",
	       "module: Convert symbol namespace to string literal (v6.13)");
#endif /* < 6.13 */
#endif /* < 6.2 */
#endif /* CONFIG_RETROFI_KUNIT */

#endif /* _RETROFI_KUNIT_VISIBILITY_H */
