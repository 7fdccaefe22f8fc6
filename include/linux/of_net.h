/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/of_net.h>
 */
#ifndef _RETROFI_LINUX_OF_NET_H
#define _RETROFI_LINUX_OF_NET_H

#include_next <linux/of_net.h>
#include <linux/err.h>
#include <linux/if_ether.h>
#include <linux/string.h>
#include <retrofi/backport.h>

/*
 * of_get_mac_address(np, mac) -- "of: net: pass the dst buffer to
 * of_get_mac_address()" (v5.13): the address is copied into mac and 0 or
 * a negative error (-ENODEV when there is none, -EPROBE_DEFER from nvmem)
 * returned. Before, the function returned a pointer to the address or an
 * ERR_PTR(). Structural (a changed signature); the wrapper copies the
 * address and turns the pointer into 6.12's return value.
 */
#if RETROFI_LINUX_LESS(5, 13, 0)
static inline int LINUX_BACKPORT(of_get_mac_address)(struct device_node *np,
						     u8 *mac)
{
	const void *addr = of_get_mac_address(np);

	if (!addr)
		return -ENODEV;
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	memcpy(mac, addr, ETH_ALEN);
	return 0;
}
#define of_get_mac_address LINUX_BACKPORT(of_get_mac_address)
RETROFI_CENSUS(of_get_mac_address, "5.13", "structural",
	       "of: net: pass the dst buffer to of_get_mac_address() (v5.13)");
#endif /* < 5.13 */

#endif /* _RETROFI_LINUX_OF_NET_H */
