// Not matched: a driver that already uses the int-returning .remove (the
// pre-6.3 form, as 6.12's ath9k pci.c uses .remove of struct pci_driver)
// is left alone.
static int old_remove(struct platform_device *pdev)
{
	return 0;
}

static struct platform_driver old_driver = {
	.remove = old_remove,
};
