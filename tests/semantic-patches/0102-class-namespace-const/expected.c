// Test input for 0102-class-namespace-const, shaped like 6.12's
// net/wireless/sysfs.c.
#include <linux/device.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>

struct test_wiphy {
	struct net *net;
	struct device dev;
};

static void wiphy_dev_release(struct device *dev)
{
}

static const void *wiphy_namespace(const struct device *d)
{
	const struct test_wiphy *wiphy = container_of(d, struct test_wiphy, dev);

	return wiphy->net;
}
#if RETROFI_LINUX_IS_LESS(6,2,0)
static const void *retrofi_wiphy_namespace(struct device *d){
	return wiphy_namespace(d);
}
#endif

struct class ieee80211_class = {
	.name = "ieee80211",
	.dev_release = wiphy_dev_release,
	.ns_type = &net_ns_type_operations,
	
#if RETROFI_LINUX_IS_GEQ(6,2,0)
	.namespace = wiphy_namespace,
#else
	
	.namespace = retrofi_wiphy_namespace,
#endif

};

MODULE_LICENSE("GPL");
