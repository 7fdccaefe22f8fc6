// Test input for 0100-platform-remove-new, shaped like 6.12's
// drivers/net/wireless/ath/ath9k/ahb.c.
#include <linux/platform_device.h>
#include <linux/module.h>

static int ath_ahb_probe(struct platform_device *pdev)
{
	return 0;
}

static void ath_ahb_remove(struct platform_device *pdev)
{
	struct ieee80211_hw *hw = platform_get_drvdata(pdev);

	if (hw)
		ieee80211_free_hw(hw);
}

static struct platform_driver ath_ahb_driver = {
	.probe      = ath_ahb_probe,
	.remove_new = ath_ahb_remove,
	.driver		= {
		.name	= "ath9k",
	},
};
