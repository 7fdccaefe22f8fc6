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
		
#if RETROFI_LINUX_IS_GEQ(6,12,0)
		wdev->netdev->netns_immutable = false;
#else
		wdev->netdev->features &= ~NETIF_F_NETNS_LOCAL;
#endif
		
		err = dev_change_net_namespace(wdev->netdev, net, "wlan%d");
		if (err)
			break;
		
#if RETROFI_LINUX_IS_GEQ(6,12,0)
		wdev->netdev->netns_immutable = true;
#else
		wdev->netdev->features |= NETIF_F_NETNS_LOCAL;
#endif
	
	}
	return err;
}

static void cfg80211_post_init(struct net_device *dev)
{
	/* can only change netns with wiphy */
	
#if RETROFI_LINUX_IS_GEQ(6,12,0)
	dev->netns_immutable = true;
#else
	dev->features |= NETIF_F_NETNS_LOCAL;
#endif

}
