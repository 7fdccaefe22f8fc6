// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi boot-runner self-check: a module whose only job is to WARN when
 * it loads. A guest that loads it must fail its target with the splat
 * quoted, even though every KTAP line it prints is "ok".
 */
#include <linux/bug.h>
#include <linux/init.h>
#include <linux/module.h>

MODULE_DESCRIPTION("retrofi: WARN on load, to prove the splat scanner");
MODULE_LICENSE("GPL");

static int __init retrofi_warn_init(void)
{
	WARN(1, "retrofi: deliberate warning from a test module\n");
	return 0;
}

static void __exit retrofi_warn_exit(void)
{
}

module_init(retrofi_warn_init);
module_exit(retrofi_warn_exit);
