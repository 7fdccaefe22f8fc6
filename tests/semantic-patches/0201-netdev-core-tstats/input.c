/* The shape of net/mac80211/iface.c in 6.12: netdevs with core tstats. */
#include <linux/module.h>
#include <linux/netdevice.h>

static int ieee80211_open(struct net_device *dev)
{
	return 0;
}

static int ieee80211_stop(struct net_device *dev)
{
	return 0;
}

static netdev_tx_t ieee80211_subif_start_xmit(struct sk_buff *skb,
					      struct net_device *dev)
{
	dev_sw_netstats_tx_add(dev, 1, skb->len);
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static netdev_tx_t ieee80211_monitor_start_xmit(struct sk_buff *skb,
						struct net_device *dev)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops ieee80211_dataif_ops = {
	.ndo_open		= ieee80211_open,
	.ndo_stop		= ieee80211_stop,
	.ndo_start_xmit		= ieee80211_subif_start_xmit,
};

static const struct net_device_ops ieee80211_monitorif_ops = {
	.ndo_open		= ieee80211_open,
	.ndo_stop		= ieee80211_stop,
	.ndo_start_xmit		= ieee80211_monitor_start_xmit,
};

static void own_get_stats64(struct net_device *dev,
			    struct rtnl_link_stats64 *stats)
{
}

/* Already has its own: left alone. */
static const struct net_device_ops own_stats_ops = {
	.ndo_open		= ieee80211_open,
	.ndo_get_stats64	= own_get_stats64,
};

const struct net_device_ops *if_add(struct net_device *ndev, int type);
const struct net_device_ops *if_add(struct net_device *ndev, int type)
{
	ndev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
	return type == 0 ? &ieee80211_dataif_ops :
	       type == 1 ? &ieee80211_monitorif_ops : &own_stats_ops;
}

MODULE_LICENSE("GPL");
