// Test input for 0200-netdev-netns-immutable, shaped like 6.12's
// net/wireless/core.c.
#include <linux/netdevice.h>
#include <net/cfg80211.h>

int cfg80211_switch_netns(struct cfg80211_registered_device *rdev,
			  struct net *net)
{
	struct wireless_dev *wdev;
	int err = 0;

	list_for_each_entry(wdev, &rdev->wiphy.wdev_list, list) {
		if (!wdev->netdev)
			continue;
		wdev->netdev->netns_immutable = false;
		err = dev_change_net_namespace(wdev->netdev, net, "wlan%d");
		if (err)
			break;
		wdev->netdev->netns_immutable = true;
	}
	return err;
}

static void cfg80211_post_init(struct net_device *dev)
{
	/* can only change netns with wiphy */
	dev->netns_immutable = true;
}
