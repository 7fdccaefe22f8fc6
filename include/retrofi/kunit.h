/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: KUnit's built-in part, for a target without CONFIG_KUNIT.
 *
 * Where the option RETROFI_KUNIT is on, the tree builds the source's
 * lib/kunit as its own kunit.ko (docs/kunit.md). A kernel with
 * CONFIG_KUNIT gives KUnit more than that module: a member of struct
 * task_struct (the test a task runs), four members of struct module (the
 * suites the loader found in a module), the static key kunit_running and
 * the hooks table (lib/kunit/hooks.c, built in even when KUnit is a
 * module). A Debian kernel has none of them, and the tree cannot add a
 * member to a structure the kernel allocates, so compat.ko
 * (compat/kunit.c) keeps them in stores of its own:
 *
 *  - the current test: a lookup keyed by task; rule
 *    0003-kunit-current-test turns current->kunit_test into these calls;
 *  - a module's suites: a store keyed by module, filled by the test
 *    module's own init (kunit_module_register()); rule
 *    0004-kunit-module-suites turns mod->*kunit*suites into these calls;
 *  - kunit_running and kunit_hooks, under backport_ names (a kernel with
 *    its own KUnit exports the upstream ones).
 *
 * <kunit/test-bug.h> includes this header (rule 0900-kunit-config), and so
 * does <retrofi/kunit-suites.h>, the test modules' first and last object.
 * compat/kunit.c defines what it declares; a defconfig turns it on with
 * RETROFI_KUNIT=m (config/options).
 * Records: kind "config" (the guard is the tree's option, not a version:
 * a kernel of any version has these only with CONFIG_KUNIT), each naming
 * the upstream change that added what it stands in for.
 */
#ifndef _RETROFI_KUNIT_H
#define _RETROFI_KUNIT_H

#include <retrofi/backport.h>

#if IS_ENABLED(CONFIG_RETROFI_KUNIT)
#include <linux/types.h>

struct kunit;
struct kunit_suite;
struct module;
struct task_struct;

/*
 * kunit_running, kunit_hooks -- "kunit: Add "hooks" to call into KUnit
 * when it's built as a module" (v6.3, title not verified): lib/kunit/hooks.c,
 * built into the kernel even when KUnit is a module.
 */
#define kunit_running LINUX_BACKPORT(kunit_running)
#define kunit_hooks LINUX_BACKPORT(kunit_hooks)
RETROFI_CENSUS(kunit_hooks, "6.3", "config",
	       "kunit: Add hooks to call into KUnit when it is built as a module (v6.3, title not verified)");

/*
 * current->kunit_test -- "kunit: KASAN integration" (v5.9, title not
 * verified): the test the current task runs, NULL if none.
 */
#define kunit_current_test LINUX_BACKPORT(kunit_current_test)
#define kunit_set_current_test LINUX_BACKPORT(kunit_set_current_test)
#define kunit_forget_task LINUX_BACKPORT(kunit_forget_task)
struct kunit *kunit_current_test(void);
void kunit_set_current_test(struct kunit *test);
void kunit_forget_task(struct task_struct *task);
RETROFI_CENSUS(kunit_current_test, "5.9", "config",
	       "kunit: KASAN integration (v5.9, title not verified)");

/*
 * mod->kunit_suites, mod->num_kunit_suites (and the init_ pair) --
 * "kunit: unify module and builtin suite definitions" (v6.0, title not
 * verified). kunit_module_register() is the tree's own: a test module's
 * init hands over the bounds of its .kunit_test_suites section.
 */
#define kunit_module_register LINUX_BACKPORT(kunit_module_register)
#define kunit_module_suites LINUX_BACKPORT(kunit_module_suites)
#define kunit_module_num_suites LINUX_BACKPORT(kunit_module_num_suites)
#define kunit_module_init_suites LINUX_BACKPORT(kunit_module_init_suites)
#define kunit_module_num_init_suites LINUX_BACKPORT(kunit_module_num_init_suites)
#define kunit_module_set_suites LINUX_BACKPORT(kunit_module_set_suites)
#define kunit_module_set_num_suites LINUX_BACKPORT(kunit_module_set_num_suites)
#define kunit_module_set_init_suites LINUX_BACKPORT(kunit_module_set_init_suites)
#define kunit_module_set_num_init_suites LINUX_BACKPORT(kunit_module_set_num_init_suites)
int kunit_module_register(struct module *mod, struct kunit_suite **start,
			  struct kunit_suite **end);
struct kunit_suite **kunit_module_suites(struct module *mod);
int kunit_module_num_suites(struct module *mod);
struct kunit_suite **kunit_module_init_suites(struct module *mod);
int kunit_module_num_init_suites(struct module *mod);
void kunit_module_set_suites(struct module *mod, struct kunit_suite **suites);
void kunit_module_set_num_suites(struct module *mod, int num);
void kunit_module_set_init_suites(struct module *mod, struct kunit_suite **suites);
void kunit_module_set_num_init_suites(struct module *mod, int num);
RETROFI_CENSUS(kunit_module_suites, "6.0", "config",
	       "kunit: unify module and builtin suite definitions (v6.0, title not verified)");

/* compat.ko's init and exit (compat/main.c). */
int retrofi_kunit_init(void);
void retrofi_kunit_exit(void);
#endif /* CONFIG_RETROFI_KUNIT */

#endif /* _RETROFI_KUNIT_H */
