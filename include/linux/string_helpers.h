/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/string_helpers.h>
 */
#ifndef _RETROFI_LINUX_STRING_HELPERS_H
#define _RETROFI_LINUX_STRING_HELPERS_H

#include_next <linux/string_helpers.h>
#include <retrofi/backport.h>

/*
 * str_yes_no(), str_on_off(), str_enable_disable(), str_enabled_disabled()
 * -- "lib/string_helpers: Consolidate string helpers implementation"
 * (v5.16): the word for a boolean (rtw89's messages). Upstream's bodies.
 * Additive: renamed, so a stable kernel's own never clashes.
 */
#if RETROFI_API_LESS(5, 16, 0)
static inline const char *LINUX_BACKPORT(str_yes_no)(bool v)
{
	return v ? "yes" : "no";
}
#define str_yes_no LINUX_BACKPORT(str_yes_no)

static inline const char *LINUX_BACKPORT(str_on_off)(bool v)
{
	return v ? "on" : "off";
}
#define str_on_off LINUX_BACKPORT(str_on_off)

static inline const char *LINUX_BACKPORT(str_enable_disable)(bool v)
{
	return v ? "enable" : "disable";
}
#define str_enable_disable LINUX_BACKPORT(str_enable_disable)

static inline const char *LINUX_BACKPORT(str_enabled_disabled)(bool v)
{
	return v ? "enabled" : "disabled";
}
#define str_enabled_disabled LINUX_BACKPORT(str_enabled_disabled)
RETROFI_CENSUS(str_yes_no, "5.16", "additive",
	       "lib/string_helpers: Consolidate string helpers implementation (v5.16)");
#endif /* < 5.16 */

/*
 * str_read_write() -- title and version not verified: no 5.10 ABI the
 * archive serves has it, up to 5.10.262, and every 6.1 ABI has; the record
 * is that bound, and the guard its high end (harmless: additive, renamed).
 * "read" or "write" for a boolean (rtw89's USB glue). Upstream's body.
 */
#if RETROFI_API_LESS(6, 1, 0)
static inline const char *LINUX_BACKPORT(str_read_write)(bool v)
{
	return v ? "read" : "write";
}
#define str_read_write LINUX_BACKPORT(str_read_write)
RETROFI_CENSUS(str_read_write, "5.10.262..6.1", "additive",
	       "str_read_write() (title and version not verified)");
#endif /* < 6.1 */

/*
 * str_disable_enable() -- title and version not verified: no 6.1 ABI the
 * archive serves has it, up to 6.1.192, and every 6.12 ABI has (a macro
 * of <linux/string_choices.h>); the record is that bound, and the guard
 * its high end (harmless: additive, renamed). "disable" for true,
 * "enable" for false: upstream's str_enable_disable(!(v)) (rtw89's
 * debugfs). The #undef drops the target's macro where an API level below
 * the target's asks for the shim.
 */
#if RETROFI_API_LESS(6, 12, 0)
static inline const char *LINUX_BACKPORT(str_disable_enable)(bool v)
{
	return v ? "disable" : "enable";
}
#undef str_disable_enable
#define str_disable_enable LINUX_BACKPORT(str_disable_enable)
RETROFI_CENSUS(str_disable_enable, "6.1.192..6.12", "additive",
	       "str_disable_enable() (title and version not verified)");
#endif /* < 6.12 */

#endif /* _RETROFI_LINUX_STRING_HELPERS_H */
