// Test input for 0303-mac80211-kunit-fixture-bitrates: the shape of 7.3's
// t_sdata_init() (net/mac80211/tests/util.c), which copies each band's
// bitrates twice.
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>

struct t_rate { u32 flags; u16 bitrate; };
struct t_sband { int band; struct t_rate *bitrates; int n_bitrates; };
struct t_sdata { struct t_sband bands[2]; };

static const struct t_rate bitrates[] = { { 0, 10 }, { 0, 20 } };

int t_sdata_init(struct t_sdata *t_sdata);
int t_sdata_init(struct t_sdata *t_sdata)
{
	for (int band = 0; band <= 1; band++) {
		struct t_sband *sband;

		sband = &t_sdata->bands[band];
		sband->band = band;

		switch (band) {
		case 0:
			sband->bitrates = kmemdup(bitrates,
						  sizeof(bitrates),
						  GFP_KERNEL);
			sband->n_bitrates = ARRAY_SIZE(bitrates);
			break;
		default:
			sband->bitrates = kmemdup(bitrates,
						  sizeof(bitrates),
						  GFP_KERNEL);
			sband->n_bitrates = ARRAY_SIZE(bitrates);
			break;
		}
	}
	return 0;
}

MODULE_LICENSE("GPL");
