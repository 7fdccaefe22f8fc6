/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/property.h>
 */
#ifndef _RETROFI_LINUX_PROPERTY_H
#define _RETROFI_LINUX_PROPERTY_H

#include_next <linux/property.h>
#include <retrofi/backport.h>

/*
 * software_node_register_node_group(), software_node_unregister_node_group()
 * of a "const struct software_node * const *" -- title and version not
 * verified: no 6.12 ABI the archive serves has that form, up to 6.12.118,
 * and every 7.2 ABI has, from 7.2.6; the record is that bound, and the
 * guard its high end. The node group became an array
 * of const pointers; before, the same function takes a
 * "const struct software_node **" and only reads the array, so passing
 * the const array through a cast is sound. KUnit's lib/kunit/fwnode.c
 * passes such an array (kunit_software_node_register_node_group()), and
 * without this the target's prototype warns "discards 'const' qualifier".
 * Structural (a changed signature), and harmless where the target already
 * has the new form: a "const struct software_node **" converts to it.
 */
#if RETROFI_LINUX_LESS(7, 2, 6)
static inline int
backport_software_node_register_node_group(const struct software_node * const *node_group)
{
	return software_node_register_node_group((const struct software_node **)node_group);
}

static inline void
backport_software_node_unregister_node_group(const struct software_node * const *node_group)
{
	software_node_unregister_node_group((const struct software_node **)node_group);
}

#define software_node_register_node_group \
	LINUX_BACKPORT(software_node_register_node_group)
#define software_node_unregister_node_group \
	LINUX_BACKPORT(software_node_unregister_node_group)
RETROFI_CENSUS(software_node_register_node_group, "6.12.118..7.2.6", "structural",
	       "the const node group of software_node_register_node_group() (title and version not verified)");
#endif /* < 7.2.6 */

/*
 * device_get_mac_address(dev, addr) -- "eth: fwnode: change the return type
 * of mac address helpers" and "eth: fwnode: remove the addr len from mac
 * helpers" (v5.16): 0 and the address of the device's firmware node in
 * addr (ETH_ALEN bytes), or -ENOENT when it has none (ath10k's core);
 * before, the same function took the buffer's length and returned the
 * buffer or NULL. Structural (a changed signature).
 */
#if RETROFI_LINUX_LESS(5, 16, 0)
#include <uapi/linux/if_ether.h>
static inline int LINUX_BACKPORT(device_get_mac_address)(struct device *dev, char *addr)
{
	return device_get_mac_address(dev, addr, ETH_ALEN) ? 0 : -ENOENT;
}
#define device_get_mac_address LINUX_BACKPORT(device_get_mac_address)
RETROFI_CENSUS(device_get_mac_address, "5.16", "structural",
	       "eth: fwnode: change the return type of mac address helpers (v5.16)");
#endif /* < 5.16 */

#endif /* _RETROFI_LINUX_PROPERTY_H */
