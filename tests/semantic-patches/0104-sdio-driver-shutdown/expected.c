// Test input for 0104-sdio-driver-shutdown, shaped like 7.3's
// drivers/net/wireless/realtek/rtw88/rtw8822bs.c: the callback is another
// module's export, and the driver sets its device driver's PM operations.
#include <linux/mmc/sdio_func.h>
#include <linux/module.h>
#include <linux/pm.h>

int rtw_sdio_probe(struct sdio_func *sdio_func, const struct sdio_device_id *id);
void rtw_sdio_remove(struct sdio_func *sdio_func);
void rtw_sdio_shutdown(struct sdio_func *sdio_func);
extern const struct dev_pm_ops rtw_sdio_pm_ops;

static const struct sdio_device_id rtw_8822bs_id_table[] = {
	{ SDIO_DEVICE(0x024c, 0xb822) },
	{}
};
MODULE_DEVICE_TABLE(sdio, rtw_8822bs_id_table);

#if !RETROFI_HAVE_sdio_driver_shutdown
static void retrofi_drv_rtw_sdio_shutdown(struct device *dev){
	rtw_sdio_shutdown(dev_to_sdio_func(dev));
}
#endif

static struct sdio_driver rtw_8822bs_driver = {
	.name = KBUILD_MODNAME,
	.probe = rtw_sdio_probe,
	.remove = rtw_sdio_remove,
	
#if RETROFI_HAVE_sdio_driver_shutdown
	.shutdown = rtw_sdio_shutdown,
#endif
	
	.id_table = rtw_8822bs_id_table,
	.drv = {
#if !RETROFI_HAVE_sdio_driver_shutdown
		.shutdown = retrofi_drv_rtw_sdio_shutdown,
#endif
		
		.pm = &rtw_sdio_pm_ops,
	}
};
module_sdio_driver(rtw_8822bs_driver);

MODULE_LICENSE("Dual BSD/GPL");
