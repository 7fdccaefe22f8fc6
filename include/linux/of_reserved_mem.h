/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/of_reserved_mem.h>
 */
#ifndef _RETROFI_LINUX_OF_RESERVED_MEM_H
#define _RETROFI_LINUX_OF_RESERVED_MEM_H

#include_next <linux/of_reserved_mem.h>
#include <linux/errno.h>
#include <linux/ioport.h>
#include <linux/of.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * of_reserved_mem_region_to_resource(),
 * of_reserved_mem_region_to_resource_byname() -- "of: reserved_mem: Add
 * functions to parse "memory-region"" (title and version not verified:
 * no 6.12 ABI the archive serves has them, up to 6.12.118, every 7.2 one
 * has, from 7.2.6: the record is that bound and the guard its high end,
 * safe since probed): the reserved memory region that a node's
 * "memory-region" phandle (by index, or by its "memory-region-names"
 * entry) points to, as a struct resource. ath11k and ath12k find their
 * firmware's memory with them on Qualcomm SoCs. Upstream's bodies, on
 * the lookups every target has; without CONFIG_OF_RESERVED_MEM (every
 * Debian amd64 kernel) they fail with -ENOSYS, as upstream's stubs do.
 */
#if RETROFI_API_NEED(7, 2, 6, RETROFI_HAVE_of_reserved_mem_region_to_resource)
static inline int
LINUX_BACKPORT(of_reserved_mem_region_to_resource)(const struct device_node *np,
						   unsigned int idx,
						   struct resource *res)
{
#if IS_ENABLED(CONFIG_OF_RESERVED_MEM)
	struct device_node *target;
	struct reserved_mem *rmem;

	if (!np)
		return -EINVAL;
	target = of_parse_phandle(np, "memory-region", idx);
	if (!target || !of_device_is_available(target)) {
		of_node_put(target);
		return -ENODEV;
	}
	rmem = of_reserved_mem_lookup(target);
	of_node_put(target);
	if (!rmem)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	res->start = rmem->base;
	res->end = rmem->base + rmem->size - 1;
	res->flags = IORESOURCE_MEM;
	res->name = rmem->name;
	return 0;
#else
	return -ENOSYS;
#endif
}
#define of_reserved_mem_region_to_resource LINUX_BACKPORT(of_reserved_mem_region_to_resource)

static inline int
LINUX_BACKPORT(of_reserved_mem_region_to_resource_byname)(const struct device_node *np,
							  const char *name,
							  struct resource *res)
{
#if IS_ENABLED(CONFIG_OF_RESERVED_MEM)
	int idx;

	if (!name)
		return -EINVAL;
	idx = of_property_match_string(np, "memory-region-names", name);
	if (idx < 0)
		return idx;
	return of_reserved_mem_region_to_resource(np, idx, res);
#else
	return -ENOSYS;
#endif
}
#define of_reserved_mem_region_to_resource_byname \
	LINUX_BACKPORT(of_reserved_mem_region_to_resource_byname)
RETROFI_CENSUS(of_reserved_mem_region_to_resource, "6.12.118..7.2.6", "probed",
	       "of: reserved_mem: Add functions to parse memory-region (title and version not verified)");
#endif /* < 7.2.6 */

#endif /* _RETROFI_LINUX_OF_RESERVED_MEM_H */
