/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/ethtool.h>
 */
#ifndef _RETROFI_LINUX_ETHTOOL_H
#define _RETROFI_LINUX_ETHTOOL_H

#include_next <linux/ethtool.h>
#include <retrofi/backport.h>

/*
 * struct kernel_ethtool_ringparam -- "ethtool: extend ringparam
 * setting/getting API with rx_buf_len" (v5.17) added it, and an extack,
 * to the get_ringparam()/set_ringparam() callbacks. mac80211's callbacks
 * keep 6.12's four parameters (and read neither new one); semantic patch
 * 0205 gives an older kernel two-parameter wrappers. Declared, never
 * defined, so that the callbacks' prototypes name a type at file scope.
 * Structural.
 */
#if RETROFI_LINUX_LESS(5, 17, 0)
struct kernel_ethtool_ringparam;
RETROFI_CENSUS(kernel_ethtool_ringparam, "5.17", "structural",
	       "ethtool: extend ringparam setting/getting API with rx_buf_len (v5.17)");
#endif /* < 5.17 */

#endif /* _RETROFI_LINUX_ETHTOOL_H */
