// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi debug-target self-check: a use-after-free on load. KASAN must
 * report it, and the target must fail with the report quoted.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>

MODULE_DESCRIPTION("retrofi: a use-after-free, to prove KASAN is in force");
MODULE_LICENSE("GPL");

static int __init retrofi_uaf_init(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	p[0] = 1;
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	pr_info("retrofi_uaf: read %d after kfree\n", READ_ONCE(p[8]));
	return 0;
}

static void __exit retrofi_uaf_exit(void)
{
}

module_init(retrofi_uaf_init);
module_exit(retrofi_uaf_exit);
