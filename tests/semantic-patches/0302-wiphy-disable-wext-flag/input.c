// Test input for 0302-wiphy-disable-wext-flag: 7.3's enum wiphy_flags
// (include/net/cfg80211.h), where bit 9 is free.
#include <linux/bits.h>
#include <linux/module.h>

enum wiphy_flags {
	WIPHY_FLAG_SUPPORTS_EXT_KEK_KCK		= BIT(0),
	WIPHY_FLAG_SUPPORTS_MLO			= BIT(1),
	WIPHY_FLAG_CONTROL_PORT_PROTOCOL	= BIT(7),
	WIPHY_FLAG_IBSS_RSN			= BIT(8),
	/* reuse bit 9 */
	WIPHY_FLAG_MESH_AUTH			= BIT(10),
	WIPHY_FLAG_CHANNEL_CHANGE_ON_BEACON     = BIT(25),
};

/* what the target's built-in wext-core tests */
bool test_wext_disabled(u32 flags);
bool test_wext_disabled(u32 flags)
{
	BUILD_BUG_ON(WIPHY_FLAG_DISABLE_WEXT != BIT(9));
	return flags & WIPHY_FLAG_DISABLE_WEXT;
}

MODULE_LICENSE("GPL");
