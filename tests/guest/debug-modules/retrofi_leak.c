// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi debug-target self-check: memory allocated on load whose pointers
 * are dropped. kmemleak's scan after the tests must report it.
 *
 * Eight objects, not one: a stale copy of the last pointer may survive in
 * a stack frame or register save area that kmemleak scans, which keeps
 * that object referenced (seen here: 7 of the 8 are reported); the ones
 * before it have no copy left anywhere.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

MODULE_DESCRIPTION("retrofi: memory leaks, to prove kmemleak is in force");
MODULE_LICENSE("GPL");

#define RETROFI_LEAKS 8

static int __init retrofi_leak_init(void)
{
	int i;

	for (i = 0; i < RETROFI_LEAKS; i++) {
		char *p = kmalloc(128, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		strscpy(p, "retrofi: leaked on purpose", 128);
	}
	pr_info("retrofi_leak: %d objects of 128 bytes allocated and forgotten\n", RETROFI_LEAKS);
	return 0;
}

static void __exit retrofi_leak_exit(void)
{
}

module_init(retrofi_leak_init);
module_exit(retrofi_leak_exit);
