// Test input for 0101-class-namespace-const, shaped like 6.12's
// net/wireless/sysfs.c.
#include <linux/device.h>
#include <net/cfg80211.h>

static const void *wiphy_namespace(const struct device *d)
{
	struct wiphy *wiphy = container_of(d, struct wiphy, dev);

	return wiphy_net(wiphy);
}

struct class ieee80211_class = {
	.name = "ieee80211",
	.dev_release = wiphy_dev_release,
	.ns_type = &net_ns_type_operations,
	.namespace = wiphy_namespace,
};
