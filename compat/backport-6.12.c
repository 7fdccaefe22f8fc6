// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 6.12 introduced that the stack uses.
 */
#include <linux/export.h>
#include <linux/seq_buf.h>
#include <linux/string.h>

#if RETROFI_LINUX_LESS(6, 12, 0)
/*
 * The export of seq_buf_puts() (title and version not verified; every
 * kernel defines it, none below 6.12 that the archive serves exports it):
 * upstream's body, as lib/seq_buf.c has it, with its static helper.
 */
static bool seq_buf_can_fit(struct seq_buf *s, size_t len)
{
	return s->len + len <= s->size;
}

int seq_buf_puts(struct seq_buf *s, const char *str)
{
	size_t len = strlen(str);

	WARN_ON(s->size == 0);

	/* Add 1 to len for the trailing null byte which must be there */
	len += 1;

	if (seq_buf_can_fit(s, len)) {
		memcpy(s->buffer + s->len, str, len);
		/* Don't count the trailing null byte against the capacity */
		s->len += len - 1;
		return 0;
	}
	seq_buf_set_overflow(s);
	return -1;
}
EXPORT_SYMBOL_GPL(seq_buf_puts);
RETROFI_CENSUS(seq_buf_puts, "6.1.192..6.12", "structural",
	       "the export of seq_buf_puts() (title and version not verified)");
#endif /* < 6.12 */
