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
	if (dev->napi_dev->threaded != val)
		return dev_set_threaded(dev->napi_dev, val);

	return 0;
}

int st_napi_threaded_get(struct st_dev *dev, u64 *val)
{
	*val = dev->napi_dev->threaded;

	return 0;
}

void st_dma_init(struct st_dev *dev)
{
	dev->napi_dev->threaded = 1;
}
