// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi debug-target self-check: list_add() between two entries that are
 * not neighbours (a corrupted list, as a broken list helper would leave
 * it). DEBUG_LIST must report the corruption and refuse the insertion.
 */
#include <linux/init.h>
#include <linux/list.h>
#include <linux/module.h>

MODULE_DESCRIPTION("retrofi: a corrupted list, to prove DEBUG_LIST is in force");
MODULE_LICENSE("GPL");

static LIST_HEAD(retrofi_list);
static struct list_head retrofi_a, retrofi_b, retrofi_new;

static int __init retrofi_list_corruption_init(void)
{
	list_add(&retrofi_a, &retrofi_list);
	list_add_tail(&retrofi_b, &retrofi_list);
	/* head <-> a <-> b: make a's next skip b, as a broken splice would */
	retrofi_a.next = &retrofi_list;
	list_add(&retrofi_new, &retrofi_a);
	/* leave the list as it was, so nothing later walks the corruption */
	retrofi_a.next = &retrofi_b;
	INIT_LIST_HEAD(&retrofi_list);
	return 0;
}

static void __exit retrofi_list_corruption_exit(void)
{
}

module_init(retrofi_list_corruption_init);
module_exit(retrofi_list_corruption_exit);
