// Test input for 0206-netdev-path-ieee80211: the 802.3 netdev's
// forward-path callback of 7.3's net/mac80211/iface.c, as rule 0204 leaves
// it (kept for 5.13 and later).
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>

static netdev_tx_t test_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

#if RETROFI_LINUX_IS_GEQ(5,13,0)
static int test_fill_forward_path(struct net_device_path_ctx *ctx,
				  struct net_device_path *path)
{
#if RETROFI_HAVE_net_device_path_ieee80211
	if (ctx->ieee80211) {
		path->type = DEV_PATH_IEEE80211;
		path->dev = ctx->dev;
		ctx->dev = NULL;
		return 0;
	}
#endif

	if (is_multicast_ether_addr(ctx->daddr))
		return -ENOENT;

	path->type = DEV_PATH_ETHERNET;
	path->dev = ctx->dev;
	return 0;
}
#endif

const struct net_device_ops test_netdev_ops = {
	.ndo_start_xmit		= test_start_xmit,
	.ndo_set_mac_address	= eth_mac_addr,
#if RETROFI_LINUX_IS_GEQ(5,13,0)
	.ndo_fill_forward_path	= test_fill_forward_path,
#endif
};

MODULE_LICENSE("GPL");
