// Test input for 0301-wiphy-radio-cfg-layout: the members of 7.3's
// struct wiphy (include/net/cfg80211.h) around those that move, in order.
#include <linux/mutex.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/iw_handler.h>

struct wiphy_radio;
struct wiphy_radio_cfg;

struct wiphy {
	struct mutex mtx;

	u32 flags, regulatory_flags, features;

	const void *privid;

	void *bands[6];

	void (*reg_notifier)(struct wiphy *wiphy, void *request);

	struct wiphy_radio_cfg *radio_cfg;

	const struct iw_handler_def *wext;

	int n_radio;
	const struct wiphy_radio *radio;

	char priv[] __aligned(NETDEV_ALIGN);
};

size_t wiphy_wext_offset(void);
size_t wiphy_wext_offset(void)
{
	/* where the target has no radio_cfg, wext follows reg_notifier */
	BUILD_BUG_ON(!RETROFI_HAVE_wiphy_radio_cfg &&
		     offsetof(struct wiphy, wext) !=
		     offsetof(struct wiphy, reg_notifier) + sizeof(void *));
	return offsetof(struct wiphy, wext);
}

MODULE_LICENSE("GPL");
