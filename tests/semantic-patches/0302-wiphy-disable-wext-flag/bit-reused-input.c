// Test input for 0302-wiphy-disable-wext-flag: a later enum wiphy_flags
// whose new flag takes bit 9. The rule must not put the name back there
// (the target would read the new flag as "wext disabled"): it changes
// nothing, generation stops (must-match), and the code does not build.
// does-not-build: 5.10, 5.10-api2.6.21, 6.12: 'WIPHY_FLAG_DISABLE_WEXT' undeclared
#include <linux/bits.h>
#include <linux/module.h>

enum wiphy_flags {
	WIPHY_FLAG_SUPPORTS_EXT_KEK_KCK		= BIT(0),
	WIPHY_FLAG_SUPPORTS_MLO			= BIT(1),
	WIPHY_FLAG_CONTROL_PORT_PROTOCOL	= BIT(7),
	WIPHY_FLAG_IBSS_RSN			= BIT(8),
	/* reuse bit 9 */
	WIPHY_FLAG_NEW = BIT(9),
	WIPHY_FLAG_MESH_AUTH = BIT(10),
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
