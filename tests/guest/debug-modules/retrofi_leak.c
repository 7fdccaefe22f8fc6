// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi debug-target self-check: memory allocated on load whose only
 * pointer is dropped. kmemleak's scan after the tests must report it.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

MODULE_DESCRIPTION("retrofi: a memory leak, to prove kmemleak is in force");
MODULE_LICENSE("GPL");

static int __init retrofi_leak_init(void)
{
	char *p = kmalloc(128, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	strscpy(p, "retrofi: leaked on purpose", 128);
	pr_info("retrofi_leak: 128 bytes allocated and forgotten\n");
	return 0;
}

static void __exit retrofi_leak_exit(void)
{
}

module_init(retrofi_leak_init);
module_exit(retrofi_leak_exit);
