/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/seq_buf.h>
 */
#ifndef _RETROFI_LINUX_SEQ_BUF_H
#define _RETROFI_LINUX_SEQ_BUF_H

#include_next <linux/seq_buf.h>
#include <retrofi/backport.h>

/*
 * seq_buf_puts() exported -- the export of seq_buf_puts() (title and
 * version not verified: no 6.1 ABI the archive serves exports it, up to
 * 6.1.192, and every 6.12 ABI does; every kernel declares it): KUnit's
 * string streams (lib/kunit/string-stream.c) build their messages with it.
 * Before, a module cannot link against it, so compat.ko
 * (backport-6.12.c) has upstream's copy. Structural (an export, which no
 * header shows).
 */
#if RETROFI_LINUX_LESS(6, 12, 0)
#define seq_buf_puts LINUX_BACKPORT(seq_buf_puts)
int seq_buf_puts(struct seq_buf *s, const char *str);
RETROFI_CENSUS(seq_buf_puts, "6.1.192..6.12", "structural",
	       "the export of seq_buf_puts() (title and version not verified)");
#endif /* < 6.12 */

#endif /* _RETROFI_LINUX_SEQ_BUF_H */
