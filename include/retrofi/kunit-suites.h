/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: the suites of a KUnit test module, for a target without
 * CONFIG_KUNIT.
 *
 * The source's kunit_test_suites() puts an array of suite pointers into
 * the section .kunit_test_suites, and a kernel with CONFIG_KUNIT has its
 * module loader fill mod->kunit_suites from that section ("kunit: unify
 * module and builtin suite definitions", v6.0). A Debian kernel's loader
 * reads no such section, so a test module of the tree (net/wireless/tests,
 * net/mac80211/tests) is linked from one object of this header first and
 * one last: their empty arrays bound the section (ld -r keeps the
 * objects' order inside a section), and the first object's module init
 * hands the bounds to compat.ko's store (kunit_module_register(),
 * include/retrofi/kunit.h), which the source's kunit_module_init() reads
 * when the module goes live (rule 0004-kunit-module-suites).
 *
 * The first object defines RETROFI_KUNIT_SUITES_FIRST before it includes
 * this header, the last one does not: each object includes it once.
 */
#ifndef _RETROFI_KUNIT_SUITES_H
#define _RETROFI_KUNIT_SUITES_H

#include <linux/module.h>
#include <kunit/test.h>
#include <retrofi/kunit.h>

extern struct kunit_suite *retrofi_kunit_suites_start[];
extern struct kunit_suite *retrofi_kunit_suites_end[];

#ifdef RETROFI_KUNIT_SUITES_FIRST
struct kunit_suite *retrofi_kunit_suites_start[0]
	__aligned(sizeof(struct kunit_suite *))
	__used __section(".kunit_test_suites") = {};

static int __init retrofi_kunit_suites_init(void)
{
	return kunit_module_register(THIS_MODULE, retrofi_kunit_suites_start,
				     retrofi_kunit_suites_end);
}
module_init(retrofi_kunit_suites_init);

/* compat.ko frees the module's entry when the module goes */
static void __exit retrofi_kunit_suites_exit(void)
{
}
module_exit(retrofi_kunit_suites_exit);
#else
struct kunit_suite *retrofi_kunit_suites_end[0]
	__aligned(sizeof(struct kunit_suite *))
	__used __section(".kunit_test_suites") = {};
#endif

#endif /* _RETROFI_KUNIT_SUITES_H */
