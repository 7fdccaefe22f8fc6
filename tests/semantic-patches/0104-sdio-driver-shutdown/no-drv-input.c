// Test input for 0104-sdio-driver-shutdown: a driver that sets no member
// of its struct device_driver, with its own static callback.
#include <linux/mmc/sdio_func.h>
#include <linux/module.h>

static int demo_probe(struct sdio_func *func, const struct sdio_device_id *id)
{
	return 0;
}

static void demo_remove(struct sdio_func *func)
{
}

static void demo_shutdown(struct sdio_func *func)
{
	sdio_claim_host(func);
	sdio_release_host(func);
}

static const struct sdio_device_id demo_ids[] = {
	{ SDIO_DEVICE(0x02d0, 0x4329) },
	{}
};
MODULE_DEVICE_TABLE(sdio, demo_ids);

static struct sdio_driver demo_driver = {
	.name = "retrofi_demo_sdio",
	.id_table = demo_ids,
	.probe = demo_probe,
	.remove = demo_remove,
	.shutdown = demo_shutdown,
};
module_sdio_driver(demo_driver);

MODULE_LICENSE("GPL");
