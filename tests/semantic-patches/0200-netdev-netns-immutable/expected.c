// Test input for 0200-netdev-netns-immutable, shaped like 6.12's
// net/wireless/core.c.
#include <linux/list.h>
#include <linux/module.h>
#include <linux/netdevice.h>

struct test_wdev {
	struct list_head list;
	struct net_device *netdev;
};

int test_switch_netns(struct list_head *wdev_list, struct net *net);
void test_post_init(struct net_device *dev);

int test_switch_netns(struct list_head *wdev_list, struct net *net)
{
	struct test_wdev *wdev;
	int err = 0;

	list_for_each_entry(wdev, wdev_list, list) {
		if (!wdev->netdev)
			continue;
		
#if RETROFI_HAVE_netdev_netns_immutable
		wdev->netdev->netns_immutable = false;
#elif RETROFI_HAVE_netdev_netns_local
		wdev->netdev->netns_local = false;
#else
		wdev->netdev->features &= ~NETIF_F_NETNS_LOCAL;
#endif
		
		err = dev_change_net_namespace(wdev->netdev, net, "wlan%d");
		if (err)
			break;
		
#if RETROFI_HAVE_netdev_netns_immutable
		wdev->netdev->netns_immutable = true;
#elif RETROFI_HAVE_netdev_netns_local
		wdev->netdev->netns_local = true;
#else
		wdev->netdev->features |= NETIF_F_NETNS_LOCAL;
#endif
	
	}
	return err;
}

void test_post_init(struct net_device *dev)
{
	/* can only change netns with wiphy */
	
#if RETROFI_HAVE_netdev_netns_immutable
	dev->netns_immutable = true;
#elif RETROFI_HAVE_netdev_netns_local
	dev->netns_local = true;
#else
	dev->features |= NETIF_F_NETNS_LOCAL;
#endif

}

MODULE_LICENSE("GPL");
