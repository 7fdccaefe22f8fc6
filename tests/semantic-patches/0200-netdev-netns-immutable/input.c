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
		wdev->netdev->netns_immutable = false;
		err = dev_change_net_namespace(wdev->netdev, net, "wlan%d");
		if (err)
			break;
		wdev->netdev->netns_immutable = true;
	}
	return err;
}

void test_post_init(struct net_device *dev)
{
	/* can only change netns with wiphy */
	dev->netns_immutable = true;
}

MODULE_LICENSE("GPL");
