// A file whose netdev ops have their own .ndo_init: the allocation
// belongs there, which a rule cannot write, so an older kernel gets an
// #error rather than netdevs without tstats.
// does-not-build: 5.10, 5.10-api2.6.21: #error "retrofi 0203: this net_device_ops has its own .ndo_init
#include <linux/module.h>
#include <linux/netdevice.h>

static int test_init(struct net_device *dev)
{
	return 0;
}

static const struct net_device_ops test_ops = {
	
#if RETROFI_LINUX_IS_LESS(6,7,0)
#error "retrofi 0203: this net_device_ops has its own .ndo_init; allocate the tstats there"
#endif
	.ndo_init = test_init,
};

void test_setup(struct net_device *dev);

void test_setup(struct net_device *dev)
{
	dev->netdev_ops = &test_ops;
	
#if RETROFI_LINUX_IS_GEQ(6,7,0)
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
#endif

}

MODULE_LICENSE("GPL");
