// Not matched: a driver that already uses the int-returning .remove (the
// pre-6.3 form, as 6.12's ath9k pci.c uses .remove of struct pci_driver)
// is left alone. 6.11 made .remove return void, so 6.12 rejects it.
// does-not-build: 6.12: from incompatible pointer type 'int (*)(struct platform_device *)'
#include <linux/module.h>
#include <linux/platform_device.h>

static int old_remove(struct platform_device *pdev)
{
	return 0;
}

static struct platform_driver old_driver = {
	.remove = old_remove,
};

module_platform_driver(old_driver);
MODULE_LICENSE("GPL");
