// Test input for 0203-netdev-tstats-alloc: the netdevs of 6.12's
// net/mac80211/iface.c, whose per-CPU tstats the core allocates.
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>

static netdev_tx_t test_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_sw_netstats_tx_add(dev, 1, skb->len);
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops test_dataif_ops = {
	.ndo_start_xmit		= test_start_xmit,
	.ndo_set_mac_address	= eth_mac_addr,
};

static const struct net_device_ops test_monitorif_ops = {
	.ndo_start_xmit		= test_start_xmit,
};

static void test_if_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &test_dataif_ops;
	dev->needs_free_netdev = true;
}

struct net_device *test_if_add(bool monitor);
struct net_device *test_if_add(bool monitor)
{
	struct net_device *ndev;

	ndev = alloc_netdev(0, "test%d", NET_NAME_ENUM, test_if_setup);
	if (!ndev)
		return NULL;

	ndev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;

	if (monitor)
		ndev->netdev_ops = &test_monitorif_ops;
	if (register_netdev(ndev)) {
		free_netdev(ndev);
		return NULL;
	}
	return ndev;
}

MODULE_LICENSE("GPL");
