// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 6.4 introduced that the stack uses.
 */
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <net/dropreason.h>

#if RETROFI_API_NEED(6, 4, 0, RETROFI_HAVE_drop_reasons_register_subsys)
/*
 * "net: extend drop reasons for multiple subsystems" (v6.4): the table of
 * the subsystems' lists of reasons and its registration, upstream's bodies
 * (6.12 net/core/skbuff.c). The core's own entry stays empty: an older
 * core keeps its reasons' names elsewhere, and never reads this table.
 */
const struct drop_reason_list __rcu *
drop_reasons_by_subsys[SKB_DROP_REASON_SUBSYS_NUM];
EXPORT_SYMBOL(drop_reasons_by_subsys);

void drop_reasons_register_subsys(enum skb_drop_reason_subsys subsys,
				  const struct drop_reason_list *list)
{
	if (WARN(subsys <= SKB_DROP_REASON_SUBSYS_CORE ||
		 subsys >= ARRAY_SIZE(drop_reasons_by_subsys),
		 "invalid subsystem %d\n", subsys))
		return;

	/* must point to statically allocated memory, so INIT is OK */
	RCU_INIT_POINTER(drop_reasons_by_subsys[subsys], list);
}
EXPORT_SYMBOL_GPL(drop_reasons_register_subsys);

void drop_reasons_unregister_subsys(enum skb_drop_reason_subsys subsys)
{
	if (WARN(subsys <= SKB_DROP_REASON_SUBSYS_CORE ||
		 subsys >= ARRAY_SIZE(drop_reasons_by_subsys),
		 "invalid subsystem %d\n", subsys))
		return;

	RCU_INIT_POINTER(drop_reasons_by_subsys[subsys], NULL);

	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(drop_reasons_unregister_subsys);
#endif /* < 6.4 */
