// Test input for 0208-netdev-path-wdma-amsdu: the end of 7.3's
// mt7996_net_fill_forward_path(), which fills a WDMA path entry (struct
// net_device_path is complete from 5.13 on; before, retrofi's
// <linux/netdevice.h> only declares it).
#include <linux/netdevice.h>

#if RETROFI_LINUX_IS_GEQ(5,13,0)
int test_fill_wdma_path(struct net_device_path *path, int bss, u16 wcid,
			u8 amsdu, bool hw_amsdu);

int test_fill_wdma_path(struct net_device_path *path, int bss, u16 wcid,
			u8 amsdu, bool hw_amsdu)
{
	path->type = DEV_PATH_MTK_WDMA;
	path->mtk_wdma.wdma_idx = 0;
	path->mtk_wdma.bss = bss;
	path->mtk_wdma.queue = 0;
	path->mtk_wdma.wcid = wcid;

	if (hw_amsdu)
		path->mtk_wdma.amsdu = amsdu;
	else
		path->mtk_wdma.amsdu = 0;

	return 0;
}
#endif
