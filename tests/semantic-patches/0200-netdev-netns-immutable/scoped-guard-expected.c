// Test input for 0200-netdev-netns-immutable: the assignment sits in a
// function that also uses scoped_guard(), shaped like 6.12's
// cfg80211_netdev_notifier_call().
#include <linux/netdevice.h>
#include <net/cfg80211.h>

static int cfg80211_netdev_notifier_call(struct notifier_block *nb,
					 unsigned long state, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct wireless_dev *wdev = dev->ieee80211_ptr;
	struct cfg80211_registered_device *rdev = wiphy_to_rdev(wdev->wiphy);

	switch (state) {
	case NETDEV_POST_INIT:
		wdev->netdev = dev;
		/* can only change netns with wiphy */
		
#if RETROFI_LINUX_IS_GEQ(6,12,0)
		dev->netns_immutable = true;
#else
		dev->features |= NETIF_F_NETNS_LOCAL;
#endif
		
		break;
	case NETDEV_GOING_DOWN:
		scoped_guard(wiphy, &rdev->wiphy) {
			cfg80211_leave(rdev, wdev);
		}
		break;
	}
	return NOTIFY_DONE;
}
