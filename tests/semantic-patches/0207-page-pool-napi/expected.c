#include <linux/netdevice.h>
#include <net/page_pool/helpers.h>

struct st_dev {
	struct napi_struct napi[4];
	struct page_pool *pool;
};

int st_create_page_pool(struct st_dev *dev, int idx);

int st_create_page_pool(struct st_dev *dev, int idx)
{
	struct page_pool_params pp_params = {
		.order = 0,
		.flags = 0,
		.nid = NUMA_NO_NODE,
	};

	pp_params.pool_size = 16;
#if RETROFI_LINUX_IS_GEQ(6,4,0)
	if (idx >= 0 && idx < ARRAY_SIZE(dev->napi))
		pp_params.napi = &dev->napi[idx];
#endif

	dev->pool = page_pool_create(&pp_params);
	return PTR_ERR_OR_ZERO(dev->pool);
}
