/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/if_ether.h>
 */
#ifndef _RETROFI_LINUX_IF_ETHER_H
#define _RETROFI_LINUX_IF_ETHER_H

#include_next <linux/if_ether.h>
#include <retrofi/backport.h>

/*
 * MAC_ADDR_STR_LEN -- "net, treewide: define and use MAC_ADDR_STR_LEN"
 * (v6.15; Debian's 6.12 has it from stable, 6.1 does not): the length of
 * a MAC address written XX:XX:XX:XX:XX:XX (mac80211's station debugfs
 * files). Probed, by the preprocessor: a constant macro, so the target
 * has it when it is defined, and at a forced API level it is defined
 * again with upstream's value.
 */
#ifdef MAC_ADDR_STR_LEN
#define RETROFI_HAVE_MAC_ADDR_STR_LEN 1
#else
#define RETROFI_HAVE_MAC_ADDR_STR_LEN 0
#endif
#if RETROFI_API_NEED(6, 15, 0, RETROFI_HAVE_MAC_ADDR_STR_LEN)
#undef MAC_ADDR_STR_LEN
#define MAC_ADDR_STR_LEN (3 * ETH_ALEN - 1)
RETROFI_CENSUS(MAC_ADDR_STR_LEN, "6.15", "probed",
	       "net, treewide: define and use MAC_ADDR_STR_LEN (v6.15)");
#endif /* < 6.15 */

#endif /* _RETROFI_LINUX_IF_ETHER_H */
