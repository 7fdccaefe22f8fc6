// Test input for 0204-netdev-fill-forward-path: the 802.3 netdev ops of
// 6.12's net/mac80211/iface.c, and a driver's op of the same name
// (7.3's mt7996/main.c).
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/mac80211.h>

static netdev_tx_t test_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

#if RETROFI_LINUX_IS_GEQ(5,13,0)
static int test_fill_forward_path(struct net_device_path_ctx *ctx,
				  struct net_device_path *path)
{
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
	.ndo_fill_forward_path = test_fill_forward_path,
#endif

};

static int test_add_interface(struct ieee80211_hw *hw, struct ieee80211_vif *vif)
{
	return 0;
}

/* A driver's op of the same name (mt7996's, shortened). */
#if RETROFI_LINUX_IS_GEQ(5,13,0)
static int
test_drv_fill_forward_path(struct ieee80211_hw *hw, struct ieee80211_vif *vif,
			   struct ieee80211_sta *sta,
			   struct net_device_path_ctx *ctx,
			   struct net_device_path *path)
{
	path->type = DEV_PATH_MTK_WDMA;
	path->dev = ctx->dev;
	path->mtk_wdma.queue = 0;
	ctx->dev = NULL;

	return 0;
}
#endif

const struct ieee80211_ops test_drv_ops = {
	.add_interface = test_add_interface,
	
#if RETROFI_LINUX_IS_GEQ(5,13,0)
	.net_fill_forward_path = test_drv_fill_forward_path,
#endif

};

MODULE_LICENSE("GPL");
