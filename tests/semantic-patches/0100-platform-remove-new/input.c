// Test input for 0100-platform-remove-new, shaped like 6.12's
// drivers/net/wireless/ath/ath9k/ahb.c.
#include <linux/platform_device.h>
#include <linux/module.h>
#include <linux/slab.h>

static int ath_ahb_probe(struct platform_device *pdev)
{
	return 0;
}

static void ath_ahb_remove(struct platform_device *pdev)
{
	void *priv = platform_get_drvdata(pdev);

	kfree(priv);
}

static struct platform_driver ath_ahb_driver = {
	.probe      = ath_ahb_probe,
	.remove_new = ath_ahb_remove,
	.driver		= {
		.name	= "ath9k",
	},
};

module_platform_driver(ath_ahb_driver);
MODULE_LICENSE("GPL");
