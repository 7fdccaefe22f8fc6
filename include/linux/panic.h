/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/panic.h>
 */
#ifndef _RETROFI_LINUX_PANIC_H
#define _RETROFI_LINUX_PANIC_H

#include <retrofi/backport.h>

/*
 * <linux/panic.h> -- "kernel.h: split out panic and oops helpers" (v5.14,
 * title and version not verified: no 5.10 ABI the archive serves has the
 * header, up to 5.10.262, and every 6.1 ABI has): KUnit's
 * <kunit/test.h> includes it. Before, panic(), add_taint() and the taint
 * flags are <linux/kernel.h>'s. Structural (a header that appeared); the
 * target's own header is used wherever it has one.
 */
#if RETROFI_LINUX_LESS(6, 1, 0) && !__has_include_next(<linux/panic.h>)
#include <linux/kernel.h>
RETROFI_CENSUS(linux_panic_h, "5.10.262..6.1", "structural",
	       "kernel.h: split out panic and oops helpers (title and version not verified)");
#else
#include_next <linux/panic.h>
#endif /* < 6.1 */

/*
 * TAINT_TEST -- "panic: Taint kernel if tests are run" (v5.17): the taint
 * flag KUnit sets when a suite runs (lib/kunit/test.c). Before, the
 * kernel has 18 flags; the shim gives upstream's number, 18, so that the
 * tainted mask reads as a later kernel's does ('N'), and the older kernel's
 * add_taint() sets any bit of its mask. Probed, by the preprocessor: a
 * constant macro.
 */
#ifdef TAINT_TEST
#define RETROFI_HAVE_TAINT_TEST 1
#else
#define RETROFI_HAVE_TAINT_TEST 0
#endif
#if RETROFI_API_NEED(5, 17, 0, RETROFI_HAVE_TAINT_TEST)
#undef TAINT_TEST
#define TAINT_TEST			18
RETROFI_CENSUS(TAINT_TEST, "5.17", "probed",
	       "panic: Taint kernel if tests are run (v5.17)");
#endif /* < 5.17 */

#endif /* _RETROFI_LINUX_PANIC_H */
