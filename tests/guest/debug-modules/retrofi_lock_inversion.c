// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi debug-target self-check: two mutexes taken in both orders, one
 * after the other (no deadlock happens; the order inversion is the bug).
 * Lockdep must report a possible circular locking dependency.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>

MODULE_DESCRIPTION("retrofi: a lock order inversion, to prove lockdep is in force");
MODULE_LICENSE("GPL");

static DEFINE_MUTEX(retrofi_lock_a);
static DEFINE_MUTEX(retrofi_lock_b);

static int __init retrofi_lock_inversion_init(void)
{
	mutex_lock(&retrofi_lock_a);
	mutex_lock(&retrofi_lock_b);
	mutex_unlock(&retrofi_lock_b);
	mutex_unlock(&retrofi_lock_a);

	mutex_lock(&retrofi_lock_b);
	mutex_lock(&retrofi_lock_a);
	mutex_unlock(&retrofi_lock_a);
	mutex_unlock(&retrofi_lock_b);
	return 0;
}

static void __exit retrofi_lock_inversion_exit(void)
{
}

module_init(retrofi_lock_inversion_init);
module_exit(retrofi_lock_inversion_exit);
