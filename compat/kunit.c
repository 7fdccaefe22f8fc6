// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: KUnit's built-in part for the tree's own kunit.ko, on a
 * target without CONFIG_KUNIT (include/retrofi/kunit.h says what and why;
 * docs/kunit.md the design).
 */
#include <linux/export.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <kunit/test-bug.h>
#include <retrofi/kunit.h>

#if IS_ENABLED(CONFIG_RETROFI_KUNIT)
/*
 * The source's lib/kunit/hooks.c: the static key that is on while KUnit
 * runs a test, and the table kunit.ko fills with its hook functions
 * (kunit_fail_current_test(), static stubs). The stack's non-test code
 * reads them, so they live here and not in kunit.ko.
 */
DEFINE_STATIC_KEY_FALSE(kunit_running);
EXPORT_SYMBOL(kunit_running);

struct kunit_hooks_table kunit_hooks;
EXPORT_SYMBOL(kunit_hooks);

/*
 * The current test of a task: upstream's task_struct member, kept in an
 * xarray indexed by the task's address. Each entry also holds the task's
 * start_time, so that an entry a dead task left behind is never taken
 * for a new task at the same address. Only a task itself sets its entry;
 * the thread that ran a case is forgotten by kunit_try_catch_run() once
 * it has ended. Readers (any context, as upstream's member) use RCU.
 */
struct kunit_task_entry {
	struct kunit *test;
	u64 start_time;
	struct rcu_head rcu;
};

static DEFINE_XARRAY(kunit_tasks);

static void kunit_task_entry_drop(struct kunit_task_entry *e)
{
	if (e)
		kfree_rcu(e, rcu);
}

struct kunit *kunit_current_test(void)
{
	struct kunit_task_entry *e;
	struct kunit *test = NULL;

	rcu_read_lock();
	e = xa_load(&kunit_tasks, (unsigned long)current);
	if (e && e->start_time == current->start_time)
		test = e->test;
	rcu_read_unlock();
	return test;
}
EXPORT_SYMBOL_GPL(kunit_current_test);

void kunit_set_current_test(struct kunit *test)
{
	struct kunit_task_entry *e = NULL, *old;

	if (test) {
		/* Without memory, the task runs its test unknown to KUnit. */
		e = kmalloc(sizeof(*e), GFP_KERNEL);
		if (e) {
			e->test = test;
			e->start_time = current->start_time;
		}
	}
	if (e)
		old = xa_store(&kunit_tasks, (unsigned long)current, e, GFP_KERNEL);
	else
		old = xa_erase(&kunit_tasks, (unsigned long)current);
	if (xa_is_err(old)) {
		pr_warn("retrofi compat: cannot record the KUnit test of task %d: %d\n",
			task_pid_nr(current), xa_err(old));
		kfree(e);
		return;
	}
	kunit_task_entry_drop(old);
}
EXPORT_SYMBOL_GPL(kunit_set_current_test);

void kunit_forget_task(struct task_struct *task)
{
	kunit_task_entry_drop(xa_erase(&kunit_tasks, (unsigned long)task));
}
EXPORT_SYMBOL_GPL(kunit_forget_task);

/*
 * The suites of a module: upstream's four members of struct module, one
 * entry per test module, created by kunit_module_register() from the
 * module's own init and freed when the module goes (a module notifier
 * that runs after kunit.ko's, which reads the entry at MODULE_STATE_GOING).
 * A module that never registered has no suites: it reads as empty, and
 * setting it empty (kunit_module_init() does that for every module: an
 * empty filtered set is ZERO_SIZE_PTR) keeps nothing.
 */
struct kunit_module_entry {
	struct list_head list;
	struct module *mod;
	struct kunit_suite **suites, **init_suites;
	int num_suites, num_init_suites;
};

static LIST_HEAD(kunit_modules);
static DEFINE_MUTEX(kunit_modules_lock);

static struct kunit_module_entry *kunit_module_entry(struct module *mod)
{
	struct kunit_module_entry *e;

	lockdep_assert_held(&kunit_modules_lock);
	list_for_each_entry(e, &kunit_modules, list)
		if (e->mod == mod)
			return e;
	return NULL;
}

int kunit_module_register(struct module *mod, struct kunit_suite **start,
			  struct kunit_suite **end)
{
	struct kunit_module_entry *e;
	int err = 0;

	mutex_lock(&kunit_modules_lock);
	if (kunit_module_entry(mod)) {
		err = -EEXIST;
		goto out;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e) {
		err = -ENOMEM;
		goto out;
	}
	e->mod = mod;
	e->suites = start;
	e->num_suites = end - start;
	list_add(&e->list, &kunit_modules);
out:
	mutex_unlock(&kunit_modules_lock);
	return err;
}
EXPORT_SYMBOL_GPL(kunit_module_register);

/* The entry of @mod, with the store locked: the caller unlocks it. */
static struct kunit_module_entry *kunit_module_lock(struct module *mod)
{
	mutex_lock(&kunit_modules_lock);
	return kunit_module_entry(mod);
}

/* Setting suites a module never registered: only "none" is no error. */
static void kunit_module_unlock(struct module *mod, struct kunit_module_entry *e, bool set)
{
	mutex_unlock(&kunit_modules_lock);
	WARN_ONCE(!e && set, "retrofi compat: module %s sets KUnit suites it never registered\n",
		  mod->name);
}

struct kunit_suite **kunit_module_suites(struct module *mod)
{
	struct kunit_module_entry *e = kunit_module_lock(mod);
	struct kunit_suite **v = e ? e->suites : NULL;

	kunit_module_unlock(mod, e, false);
	return v;
}
EXPORT_SYMBOL_GPL(kunit_module_suites);

int kunit_module_num_suites(struct module *mod)
{
	struct kunit_module_entry *e = kunit_module_lock(mod);
	int v = e ? e->num_suites : 0;

	kunit_module_unlock(mod, e, false);
	return v;
}
EXPORT_SYMBOL_GPL(kunit_module_num_suites);

struct kunit_suite **kunit_module_init_suites(struct module *mod)
{
	struct kunit_module_entry *e = kunit_module_lock(mod);
	struct kunit_suite **v = e ? e->init_suites : NULL;

	kunit_module_unlock(mod, e, false);
	return v;
}
EXPORT_SYMBOL_GPL(kunit_module_init_suites);

int kunit_module_num_init_suites(struct module *mod)
{
	struct kunit_module_entry *e = kunit_module_lock(mod);
	int v = e ? e->num_init_suites : 0;

	kunit_module_unlock(mod, e, false);
	return v;
}
EXPORT_SYMBOL_GPL(kunit_module_num_init_suites);

void kunit_module_set_suites(struct module *mod, struct kunit_suite **suites)
{
	struct kunit_module_entry *e = kunit_module_lock(mod);

	if (e)
		e->suites = suites;
	kunit_module_unlock(mod, e, !ZERO_OR_NULL_PTR(suites));
}
EXPORT_SYMBOL_GPL(kunit_module_set_suites);

void kunit_module_set_num_suites(struct module *mod, int num)
{
	struct kunit_module_entry *e = kunit_module_lock(mod);

	if (e)
		e->num_suites = num;
	kunit_module_unlock(mod, e, num);
}
EXPORT_SYMBOL_GPL(kunit_module_set_num_suites);

void kunit_module_set_init_suites(struct module *mod, struct kunit_suite **suites)
{
	struct kunit_module_entry *e = kunit_module_lock(mod);

	if (e)
		e->init_suites = suites;
	kunit_module_unlock(mod, e, !ZERO_OR_NULL_PTR(suites));
}
EXPORT_SYMBOL_GPL(kunit_module_set_init_suites);

void kunit_module_set_num_init_suites(struct module *mod, int num)
{
	struct kunit_module_entry *e = kunit_module_lock(mod);

	if (e)
		e->num_init_suites = num;
	kunit_module_unlock(mod, e, num);
}
EXPORT_SYMBOL_GPL(kunit_module_set_num_init_suites);

static int kunit_module_going(struct notifier_block *nb, unsigned long val,
			      void *data)
{
	struct kunit_module_entry *e;

	if (val != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&kunit_modules_lock);
	e = kunit_module_entry(data);
	if (e)
		list_del(&e->list);
	mutex_unlock(&kunit_modules_lock);
	kfree(e);
	return NOTIFY_DONE;
}

/* After kunit.ko's notifier (priority 0), which reads the entry. */
static struct notifier_block kunit_module_nb = {
	.notifier_call = kunit_module_going,
	.priority = -1,
};

int retrofi_kunit_init(void)
{
	return register_module_notifier(&kunit_module_nb);
}

void retrofi_kunit_exit(void)
{
	struct kunit_module_entry *e, *tmp;
	struct kunit_task_entry *t;
	unsigned long index;

	unregister_module_notifier(&kunit_module_nb);
	list_for_each_entry_safe(e, tmp, &kunit_modules, list)
		kfree(e);
	xa_for_each(&kunit_tasks, index, t)
		kunit_task_entry_drop(xa_erase(&kunit_tasks, index));
	rcu_barrier();
}
#endif /* CONFIG_RETROFI_KUNIT */
