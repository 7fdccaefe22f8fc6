// Test input for 0101-class-namespace-ns-common, shaped like 7.3's
// net/wireless/sysfs.c: the class namespace callback returns the
// ns_common of the device's network namespace.
#include <linux/device.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>

struct test_wiphy {
	struct net *net;
	struct device dev;
};

static struct net *test_wiphy_net(const struct test_wiphy *wiphy)
{
	return wiphy->net;
}

static void wiphy_dev_release(struct device *dev)
{
}

#if RETROFI_HAVE_class_namespace_ns_common
static const struct ns_common *wiphy_namespace(const struct device *d)
{
	const struct test_wiphy *wiphy = container_of(d, struct test_wiphy, dev);

	return to_ns_common(test_wiphy_net(wiphy));
}
#else
static const void *wiphy_namespace(const struct device *d){
	const struct test_wiphy *wiphy = container_of(d, struct test_wiphy,
						      dev);
	return test_wiphy_net(wiphy);
}
#endif

struct class ieee80211_class = {
	.name = "ieee80211",
	.dev_release = wiphy_dev_release,
	.ns_type = &net_ns_type_operations,
	.namespace = wiphy_namespace,
};

MODULE_LICENSE("GPL");
