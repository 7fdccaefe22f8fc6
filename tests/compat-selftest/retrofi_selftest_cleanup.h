/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: the cleanup classes the 7.3 stack uses beside
 * the mutex guard: guard(spinlock) and __free(kfree), which
 * <linux/spinlock.h> and <linux/slab.h> shim where the target has no
 * <linux/cleanup.h> of its own (5.10 before stable took it). guard(rcu)
 * (<linux/rcupdate.h>) has no case here: Debian's 5.10 has neither
 * preemptible RCU nor a preemption count, so nothing in a guest shows a
 * read-side section; test_abi_probes.py compiles its callers instead. Included by retrofi_selftest_5x.h (the table entries are in
 * retrofi_selftest_5x_cases.h); tests/scripts/test_abi_probes.py also
 * compiles it alone against the oldest and the newest 5.10 ABI, of which
 * the oldest needs the shims. guard() in a block: scoped_guard() needs
 * gnu11, and 5.10 builds gnu89.
 *
 * __free(device_node) (<linux/of.h>, 6.7, for ath12k) is here too.
 *
 * In retrofi_selftest_probes_off (probes forced off: <retrofi/backport.h>)
 * the cases take the shims' classes below 6.5 even where the target has
 * its own, under their backport_ names: st_class().
 */
#include <linux/err.h>
#include <linux/of.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * The class a case takes: name, the class the stack's guard(name) and
 * __free(name) resolve to; with probes forced off, below 6.5 (where the
 * shims of <linux/mutex.h>, <linux/spinlock.h>, <linux/rcupdate.h> and
 * <linux/slab.h> are), the shim's, backport_name where the probe found
 * the target's own.
 */
#if RETROFI_LINUX_LESS(6, 5, 0)
#define st_class(name, have) RETROFI_PROBED_NAME(name, have)
#else
#define st_class(name, have) name
#endif
/* __free() pastes its argument unexpanded: st_class() is expanded here. */
#define st_free(name) __free(name)

/* guard(spinlock): the lock is held in the guard's scope, released after. */
static const char *test_spinlock_guard_releases_at_scope_exit(void)
{
	static DEFINE_SPINLOCK(lock);
	bool held = false;

	{
		guard(st_class(spinlock, RETROFI_HAVE_spinlock_guard))(&lock);
		held = spin_is_locked(&lock);
	}
	if (!held)
		return "the spinlock was not held in the scope";
	if (spin_is_locked(&lock))
		return "the spinlock stayed held after the scope";
	return NULL;
}

/*
 * guard(spinlock_irqsave): in the scope the lock is held with local
 * interrupts off; after it, the lock is free and interrupts are as they
 * were (on, in a module's init). PREEMPT_RT's spin_lock_irqsave() leaves
 * interrupts on (the lock is a sleeping one there), so on such a kernel
 * only the lock is checked.
 */
static const char *test_spinlock_irqsave_guard_masks_interrupts_in_its_scope(void)
{
	static DEFINE_SPINLOCK(lock);
	bool held = false, masked = false, were_off = irqs_disabled();

	{
		guard(st_class(spinlock_irqsave, RETROFI_HAVE_spinlock_irqsave_guard))(&lock);
		held = spin_is_locked(&lock);
		masked = irqs_disabled();
	}
	if (!held)
		return "the spinlock was not held in the scope";
	if (!masked && !IS_ENABLED(CONFIG_PREEMPT_RT))
		return "local interrupts were on in the scope";
	if (spin_is_locked(&lock))
		return "the spinlock stayed held after the scope";
	if (irqs_disabled() != were_off)
		return "local interrupts were not restored after the scope";
	return NULL;
}

/*
 * __free(kfree): an allocation is freed at the end of the scope, and NULL
 * and an error pointer are left alone: kfree() of an error pointer
 * oopses, which fails the boot.
 */
static const char *test_kfree_class_leaves_null_and_error_pointers_alone(void)
{
	{
		void *none st_free(st_class(kfree, RETROFI_HAVE_kfree_free_class)) = NULL;
		void *error st_free(st_class(kfree, RETROFI_HAVE_kfree_free_class)) =
			ERR_PTR(-ENOMEM);
		void *p st_free(st_class(kfree, RETROFI_HAVE_kfree_free_class)) =
			kmalloc(16, GFP_KERNEL);

		if (!p)
			return "kmalloc() failed";
		(void)none;
		(void)error;
	}
	return NULL;
}

/*
 * __free(device_node) (6.7): the class exists (without it the declaration
 * does not compile: "cleanup argument not a function") and leaves a NULL
 * pointer alone. No Debian amd64 kernel has CONFIG_OF, so of_node_put()
 * is empty on every row and a put cannot be observed.
 */
static const char *test_device_node_class_compiles_and_leaves_null_alone(void)
{
	{
		struct device_node *np
			st_free(st_class(device_node, RETROFI_HAVE_device_node_free)) = NULL;

		(void)np;
	}
	return NULL;
}
