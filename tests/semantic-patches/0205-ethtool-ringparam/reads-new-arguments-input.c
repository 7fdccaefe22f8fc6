// Not matched on purpose: a callback that reads the parameters 5.17 added
// cannot be called with NULL for them. The rule leaves it alone, and the
// build on < 5.17 fails loudly instead of dereferencing NULL.
// does-not-build: 5.10, 5.10-api2.6.21: invalid use of undefined type 'struct kernel_ethtool_ringparam'
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>

static void test_get_ringparam(struct net_device *dev,
			       struct ethtool_ringparam *rp,
			       struct kernel_ethtool_ringparam *kernel_rp,
			       struct netlink_ext_ack *extack)
{
	rp->rx_pending = kernel_rp->rx_buf_len;
}

const struct ethtool_ops test_ethtool_ops = {
	.get_ringparam = test_get_ringparam,
};

MODULE_LICENSE("GPL");
