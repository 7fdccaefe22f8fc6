// Test input for 0200-netdev-netns-immutable: the assignment sits in a
// function that also uses scoped_guard(), shaped like 6.12's
// cfg80211_netdev_notifier_call() (which takes cfg80211's wiphy guard;
// here a mutex guard on a stand-in for the registered device).
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>

struct test_rdev {
	struct mutex mtx;
	int leaving;
};

struct test_wdev {
	struct net_device *netdev;
	struct test_rdev *rdev;
};

int test_netdev_notifier_call(struct notifier_block *nb,
			      unsigned long state, void *ptr);

int test_netdev_notifier_call(struct notifier_block *nb,
			      unsigned long state, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct test_wdev *wdev = (struct test_wdev *)dev->ieee80211_ptr;
	struct test_rdev *rdev = wdev->rdev;

	switch (state) {
	case NETDEV_POST_INIT:
		wdev->netdev = dev;
		/* can only change netns with wiphy */
		
#if RETROFI_HAVE_netdev_netns_immutable
		dev->netns_immutable = true;
#elif RETROFI_HAVE_netdev_netns_local
		dev->netns_local = true;
#else
		dev->features |= NETIF_F_NETNS_LOCAL;
#endif
		
		break;
	case NETDEV_GOING_DOWN:
		scoped_guard(mutex, &rdev->mtx) {
			rdev->leaving++;
		}
		break;
	}
	return NOTIFY_DONE;
}

MODULE_LICENSE("GPL");
