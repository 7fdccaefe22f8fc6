// Test input for 0209-netdev-threaded: 7.3's mt76 (debugfs.c's threaded
// NAPI attribute, dma.c's dummy NAPI device), shortened.
#include <linux/netdevice.h>

struct st_dev {
	struct net_device *napi_dev;
};

int st_napi_threaded_set(struct st_dev *dev, u64 val);
int st_napi_threaded_get(struct st_dev *dev, u64 *val);
void st_dma_init(struct st_dev *dev);

int st_napi_threaded_set(struct st_dev *dev, u64 val)
{
	if (retrofi_netdev_threaded(dev->napi_dev) != val)
		return dev_set_threaded(dev->napi_dev, val);

	return 0;
}

int st_napi_threaded_get(struct st_dev *dev, u64 *val)
{
	*val = retrofi_netdev_threaded(dev->napi_dev);

	return 0;
}

void st_dma_init(struct st_dev *dev)
{
#if RETROFI_LINUX_IS_GEQ(5,12,0)
	dev->napi_dev->threaded = 1;
#endif
}
