/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/jiffies.h>
 */
#ifndef _RETROFI_LINUX_JIFFIES_H
#define _RETROFI_LINUX_JIFFIES_H

#include_next <linux/jiffies.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * time_is_before_jiffies(), time_is_after_jiffies(),
 * time_is_before_eq_jiffies() -- 2.6.26 (compat-2.6.26.h of mcgrof/compat
 * and hauke/backports; the upstream commit title is not verified here):
 * compare a time in jiffies with now, wrap-safe. Additive; macros,
 * redirected to backport_ macros with 6.12's bodies.
 */
#if RETROFI_API_LESS(2, 6, 26)
#undef time_is_before_jiffies
#define time_is_before_jiffies LINUX_BACKPORT(time_is_before_jiffies)
#define backport_time_is_before_jiffies(a) time_after(jiffies, a)
RETROFI_CENSUS(time_is_before_jiffies, "2.6.26", "additive",
	       "compat-2.6.26.h of hauke/backports (title not verified)");

#undef time_is_after_jiffies
#define time_is_after_jiffies LINUX_BACKPORT(time_is_after_jiffies)
#define backport_time_is_after_jiffies(a) time_before(jiffies, a)
RETROFI_CENSUS(time_is_after_jiffies, "2.6.26", "additive",
	       "compat-2.6.26.h of hauke/backports (title not verified)");

#undef time_is_before_eq_jiffies
#define time_is_before_eq_jiffies LINUX_BACKPORT(time_is_before_eq_jiffies)
#define backport_time_is_before_eq_jiffies(a) time_after_eq(jiffies, a)
RETROFI_CENSUS(time_is_before_eq_jiffies, "2.6.26", "additive",
	       "compat-2.6.26.h of hauke/backports (title not verified)");
#endif /* < 2.6.26 */

/*
 * secs_to_jiffies() -- "jiffies: Define secs_to_jiffies()" (v6.13): a
 * count of seconds in jiffies, a constant expression for a constant.
 * 6.13's body. Probed: Debian's 6.1.192 has it from stable.
 */
#if RETROFI_API_NEED(6, 13, 0, RETROFI_HAVE_secs_to_jiffies)
#undef secs_to_jiffies
#define secs_to_jiffies LINUX_BACKPORT(secs_to_jiffies)
#define backport_secs_to_jiffies(_secs) ((unsigned long)((_secs) * HZ))
RETROFI_CENSUS(secs_to_jiffies, "6.13", "probed",
	       "jiffies: Define secs_to_jiffies() (v6.13)");
#endif /* < 6.13 */

#endif /* _RETROFI_LINUX_JIFFIES_H */
