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

static void test_get_ringparam(struct net_device *dev,
			       struct ethtool_ringparam *rp,
			       struct kernel_ethtool_ringparam *kernel_rp,
			       struct netlink_ext_ack *extack)
{
	memset(rp, 0, sizeof(*rp));
	rp->tx_pending = tx_ring;
	rp->rx_pending = rx_ring;
}

const struct ethtool_ops test_ethtool_ops = {
	.get_link = ethtool_op_get_link,
	.get_ringparam = test_get_ringparam,
	.set_ringparam = test_set_ringparam,
};

MODULE_LICENSE("GPL");
