/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/args.h>
 */
#ifndef _RETROFI_LINUX_ARGS_H
#define _RETROFI_LINUX_ARGS_H

#include <retrofi/backport.h>

/*
 * <linux/args.h> -- "kernel.h: split out COUNT_ARGS() and CONCATENATE()
 * to args.h" (title and version not verified: no 6.1 ABI the archive
 * serves has the header, up to 6.1.192, and every 6.12 ABI has; the
 * record is that bound). KUnit's <kunit/test.h> includes it. Before, the
 * same macros are <linux/kernel.h>'s (COUNT_ARGS() counting to 12, not 15,
 * which no user here reaches). Structural (a header that appeared); the
 * target's own header is used wherever it has one.
 */
#if RETROFI_LINUX_LESS(6, 12, 0) && !__has_include_next(<linux/args.h>)
#include <linux/kernel.h>
RETROFI_CENSUS(linux_args_h, "6.1.192..6.12", "structural",
	       "kernel.h: split out COUNT_ARGS() and CONCATENATE() to args.h (title and version not verified)");
#else
#include_next <linux/args.h>
#endif /* < 6.12 */

#endif /* _RETROFI_LINUX_ARGS_H */
