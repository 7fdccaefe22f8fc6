// Test input for 0106-mhi-controller-fw-data, shaped like 7.3's
// drivers/net/wireless/ath/ath12k/mhi.c: a firmware image from memory
// where firmware-N.bin has one, else the separate file by name; and the
// dual-MAC image, which has no such fallback.
#include <linux/errno.h>
#include <linux/mhi.h>
#include <linux/printk.h>
#include <linux/types.h>

struct t_fw {
	const u8 *amss_data;
	size_t amss_len;
	const u8 *amss_dualmac_data;
	size_t amss_dualmac_len;
	char amss_path[64];
};

int t_mhi_firmware(struct mhi_controller *mhi_ctrl, struct t_fw *fw, bool dualmac);

int t_mhi_firmware(struct mhi_controller *mhi_ctrl, struct t_fw *fw, bool dualmac)
{
	if (dualmac) {
		if (fw->amss_dualmac_data && fw->amss_dualmac_len > 0) {
			/* use MHI firmware file from firmware-N.bin */
			mhi_ctrl->fw_data = fw->amss_dualmac_data;
			mhi_ctrl->fw_sz = fw->amss_dualmac_len;
		} else {
			pr_warn("dualmac firmware IE not present in firmware-N.bin\n");
			return -ENOENT;
		}
	} else {
		if (fw->amss_data && fw->amss_len > 0) {
			/* use MHI firmware file from firmware-N.bin */
			mhi_ctrl->fw_data = fw->amss_data;
			mhi_ctrl->fw_sz = fw->amss_len;
		} else {
			/* use the old separate mhi.bin MHI firmware file */
			mhi_ctrl->fw_image = fw->amss_path;
		}
	}
	return 0;
}
