/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/once_lite.h>
 *
 * "once: implement DO_ONCE_LITE for non-fast-path "do once"
 * functionality" (v5.14: applied to net-next after 5.13's release) added
 * this header (every 5.10 ABI the archive serves lacks it, every 6.1 one
 * has it);
 * mac80211's debug.h uses DO_ONCE_LITE() for its once-only messages.
 */
#ifndef _RETROFI_LINUX_ONCE_LITE_H
#define _RETROFI_LINUX_ONCE_LITE_H

#include <retrofi/backport.h>

#if !RETROFI_LINUX_LESS(5, 14, 0)
#include_next <linux/once_lite.h>
#endif

/*
 * DO_ONCE_LITE(), DO_ONCE_LITE_IF() -- call a function the first time
 * the (optional) condition holds at this call site, and never again; the
 * value is the condition. 6.1's bodies, the flag in ordinary data (5.10
 * names its once-only section .data.once, not .data..once). Structural
 * (a new header).
 */
#if RETROFI_LINUX_LESS(5, 14, 0)
#include <linux/compiler.h>
#include <linux/types.h>

#define DO_ONCE_LITE(func, ...)						\
	DO_ONCE_LITE_IF(true, func, ##__VA_ARGS__)

#define __ONCE_LITE_IF(condition)					\
	({								\
		static bool __already_done;				\
		bool __ret_cond = !!(condition);			\
		bool __ret_once = false;				\
									\
		if (unlikely(__ret_cond && !__already_done)) {		\
			__already_done = true;				\
			__ret_once = true;				\
		}							\
		unlikely(__ret_once);					\
	})

#define DO_ONCE_LITE_IF(condition, func, ...)				\
	({								\
		bool __ret_do_once = !!(condition);			\
									\
		if (__ONCE_LITE_IF(__ret_do_once))			\
			func(__VA_ARGS__);				\
									\
		unlikely(__ret_do_once);				\
	})
RETROFI_CENSUS(DO_ONCE_LITE, "5.14", "structural",
	       "once: implement DO_ONCE_LITE for non-fast-path do once functionality (v5.14)");
#endif /* < 5.14 */

#endif /* _RETROFI_LINUX_ONCE_LITE_H */
