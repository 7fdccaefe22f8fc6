// Test input for 0300-wiphy-wext-layout: the members of 6.12's
// struct wiphy (include/net/cfg80211.h) around those that move, in order.
#include <linux/mutex.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/iw_handler.h>

struct wiphy_radio;

struct wiphy {
	
#if RETROFI_LINUX_IS_GEQ(5,12,0)
	struct mutex mtx;
#endif

	/* assign these fields before you register the wiphy */

	u8 perm_addr[ETH_ALEN];
	u8 addr_mask[ETH_ALEN];

	u32 flags, regulatory_flags, features;

	
#if RETROFI_LINUX_IS_GEQ(5,16,0)
	const void *privid;
#endif

	void *bands[6];

	const struct iw_handler_def *wext;

	int n_radio;
	const struct wiphy_radio *radio;
#if RETROFI_LINUX_IS_LESS(5,16,0)
	const void *privid;
#endif
#if RETROFI_LINUX_IS_LESS(5,12,0)
	struct mutex mtx;
#endif

	char priv[] __aligned(NETDEV_ALIGN);
};

size_t wiphy_wext_offset(void);
size_t wiphy_wext_offset(void)
{
	return offsetof(struct wiphy, wext);
}

MODULE_LICENSE("GPL");
