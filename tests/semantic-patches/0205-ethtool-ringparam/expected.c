// Test input for 0205-ethtool-ringparam: the ring callbacks of 6.12's
// net/mac80211/ethtool.c.
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>

static u32 tx_ring = 64, rx_ring = 32;

static int test_set_ringparam(struct net_device *dev,
			      struct ethtool_ringparam *rp,
			      struct kernel_ethtool_ringparam *kernel_rp,
			      struct netlink_ext_ack *extack)
{
	if (rp->rx_mini_pending != 0 || rp->rx_jumbo_pending != 0)
		return -EINVAL;

	tx_ring = rp->tx_pending;
	rx_ring = rp->rx_pending;
	return 0;
}
#if RETROFI_LINUX_IS_LESS(5,17,0)
static int retrofi_test_set_ringparam(struct net_device *dev,
				      struct ethtool_ringparam *rp){
	return test_set_ringparam(dev, rp, NULL, NULL);
}
#endif

static void test_get_ringparam(struct net_device *dev,
			       struct ethtool_ringparam *rp,
			       struct kernel_ethtool_ringparam *kernel_rp,
			       struct netlink_ext_ack *extack)
{
	memset(rp, 0, sizeof(*rp));
	rp->tx_pending = tx_ring;
	rp->rx_pending = rx_ring;
}
#if RETROFI_LINUX_IS_LESS(5,17,0)
static void retrofi_test_get_ringparam(struct net_device *dev,
				       struct ethtool_ringparam *rp){
	test_get_ringparam(dev, rp, NULL, NULL);
}
#endif

const struct ethtool_ops test_ethtool_ops = {
	.get_link = ethtool_op_get_link,
	
#if RETROFI_LINUX_IS_GEQ(5,17,0)
	.get_ringparam = test_get_ringparam,
#else
	
	.get_ringparam = retrofi_test_get_ringparam,
#endif
	
	
#if RETROFI_LINUX_IS_GEQ(5,17,0)
	.set_ringparam = test_set_ringparam,
#else
	
	.set_ringparam = retrofi_test_set_ringparam,
#endif

};

MODULE_LICENSE("GPL");
