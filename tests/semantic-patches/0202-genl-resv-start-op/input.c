// Test input for 0202-genl-resv-start-op: the families of 6.12's
// net/wireless/nl80211.c and mac80211_hwsim.c.
#include <linux/module.h>
#include <net/genetlink.h>

enum { FAM_CMD_UNSPEC, FAM_CMD_GET, FAM_CMD_SET, __FAM_CMD_MAX };

static const struct genl_small_ops fam_ops[] = {
	{ .cmd = FAM_CMD_GET },
};

static struct genl_family fam __ro_after_init = {
	.name = "retrofi_test",
	.hdrsize = 0,
	.version = 1,
	.maxattr = 1,
	.netnsok = true,
	.small_ops = fam_ops,
	.n_small_ops = ARRAY_SIZE(fam_ops),
	.resv_start_op = FAM_CMD_SET + 1,
	.module = THIS_MODULE,
};

static struct genl_family other = {
	.name = "retrofi_other",
	.small_ops = fam_ops,
	.n_small_ops = ARRAY_SIZE(fam_ops),
	.resv_start_op = __FAM_CMD_MAX, // match with the last command
};

static int __init register_both(void)
{
	int err = genl_register_family(&fam);

	if (err)
		return err;
	return genl_register_family(&other);
}
module_init(register_both);
MODULE_LICENSE("GPL");
