// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 5.11 introduced that the stack uses.
 */
#include <linux/export.h>
#include <linux/netdevice.h>

#if RETROFI_API_NEED(5, 11, 0, RETROFI_HAVE_dev_get_tstats64)
/*
 * "net: core: add dev_get_tstats64 as a ndo_get_stats64 implementation":
 * the netdev's own counters plus the sum of its per-CPU tstats; the body
 * is upstream's (dev_fetch_sw_netstats() is 5.10's).
 */
void dev_get_tstats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	netdev_stats_to_stats64(s, &dev->stats);
	dev_fetch_sw_netstats(s, dev->tstats);
}
EXPORT_SYMBOL_GPL(dev_get_tstats64);
#endif /* < 5.11 */
