/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <kunit/static_stub.h>
 *
 * "kunit: Add "static stub" support" (v6.3, title not verified; every
 * 6.1 ABI the archive serves lacks it, up to 6.1.192, and every 6.12 one
 * has it, from 6.12.107: the record is that bound and the guard its high
 * end, safe since the guard also asks for the header itself) added
 * this header: KUNIT_STATIC_STUB_REDIRECT() at the top of a function lets
 * a KUnit test replace the function. mac80211's mlme.c uses it.
 */
#ifndef _RETROFI_KUNIT_STATIC_STUB_H
#define _RETROFI_KUNIT_STATIC_STUB_H

#include <retrofi/backport.h>

/*
 * KUNIT_STATIC_STUB_REDIRECT() -- as upstream's without CONFIG_KUNIT: it
 * does nothing, so the function runs its own body. The output tree
 * builds no KUnit test, and a target older than 6.3 has no static stubs
 * to redirect to. Structural (a new header); the target's own header is
 * used wherever it has one.
 */
#if IS_ENABLED(CONFIG_RETROFI_KUNIT)
/*
 * Where the tree builds its own kunit.ko (include/retrofi/kunit.h), the
 * source's enabled half (7.3's, unchanged): the target's header, if it has
 * one, would give its !CONFIG_KUNIT half, and kunit.ko's static_stub.c
 * defines what these declare. kunit_hooks is compat.ko's.
 */
#include <kunit/test.h>
#include <kunit/test-bug.h>
#include <linux/compiler.h>
#include <linux/sched.h>

#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...)		\
do {									\
	typeof(&real_fn_name) replacement;				\
	struct kunit *current_test = kunit_get_current_test();		\
									\
	if (likely(!current_test))					\
		break;							\
									\
	replacement = kunit_hooks.get_static_stub_address(current_test,	\
							&real_fn_name);	\
									\
	if (unlikely(replacement))					\
		return replacement(args);				\
} while (0)

void __kunit_activate_static_stub(struct kunit *test,
				  void *real_fn_addr,
				  void *replacement_addr);

#define kunit_activate_static_stub(test, real_fn_addr, replacement_addr) do {	\
	typecheck_fn(typeof(&replacement_addr), real_fn_addr);			\
	__kunit_activate_static_stub(test, real_fn_addr, replacement_addr);	\
} while (0)

void kunit_deactivate_static_stub(struct kunit *test, void *real_fn_addr);
RETROFI_CENSUS(kunit_static_stub, "6.3", "config",
	       "kunit: Add static stub support (v6.3, title not verified)");
#else
#if RETROFI_LINUX_LESS(6, 12, 107) && !__has_include_next("kunit/static_stub.h")
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) do {} while (0)
RETROFI_CENSUS(KUNIT_STATIC_STUB_REDIRECT, "6.1.192..6.12.107", "structural",
	       "kunit: Add static stub support (v6.3, title not verified)");
#else
#include_next <kunit/static_stub.h>
#endif /* < 6.12.107 */
#endif /* CONFIG_RETROFI_KUNIT */

#endif /* _RETROFI_KUNIT_STATIC_STUB_H */
