/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/stdarg.h>
 */
#ifndef _RETROFI_LINUX_STDARG_H
#define _RETROFI_LINUX_STDARG_H

#include <retrofi/backport.h>

/*
 * <linux/stdarg.h> -- "Kbuild: do not use <stdarg.h> from the compiler"
 * (v5.15, title not verified): the kernel's own va_list macros, which
 * KUnit's <kunit/test.h> and string-stream.h include. Before, the kernel
 * builds with the compiler's <stdarg.h> (its include directory is on the
 * command line as -isystem). Structural (a header that appeared); the
 * target's own header is used wherever it has one.
 */
#if RETROFI_LINUX_LESS(5, 15, 0) && !__has_include_next(<linux/stdarg.h>)
#include <stdarg.h>
RETROFI_CENSUS(linux_stdarg_h, "5.15", "structural",
	       "Kbuild: do not use <stdarg.h> from the compiler (v5.15, title not verified)");
#else
#include_next <linux/stdarg.h>
#endif /* < 5.15 */

#endif /* _RETROFI_LINUX_STDARG_H */
