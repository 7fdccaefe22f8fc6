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
 */
#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

/* guard(spinlock): the lock is held in the guard's scope, released after. */
static const char *test_spinlock_guard_releases_at_scope_exit(void)
{
	static DEFINE_SPINLOCK(lock);
	bool held = false;

	{
		guard(spinlock)(&lock);
		held = spin_is_locked(&lock);
	}
	if (!held)
		return "the spinlock was not held in the scope";
	if (spin_is_locked(&lock))
		return "the spinlock stayed held after the scope";
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
		void *none __free(kfree) = NULL;
		void *error __free(kfree) = ERR_PTR(-ENOMEM);
		void *p __free(kfree) = kmalloc(16, GFP_KERNEL);

		if (!p)
			return "kmalloc() failed";
		(void)none;
		(void)error;
	}
	return NULL;
}
