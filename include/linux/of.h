/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/of.h>
 */
#ifndef _RETROFI_LINUX_OF_H
#define _RETROFI_LINUX_OF_H

#include_next <linux/of.h>
#include <linux/cleanup.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * __free(device_node) -- "of: Add cleanup.h based auto release via
 * __free(device_node) markings" (v6.7; title and version not verified:
 * every 5.10 the archive serves lacks it, every 6.1 has it from stable):
 * of_node_put() when the pointer leaves its scope (ath12k's core.c). The
 * class is upstream's. Structural and probed, like the RCU guard (a
 * class defined twice is an error); with probes forced off,
 * backport_device_node beside the target's own.
 */
#if RETROFI_LINUX_LESS(6, 7, 0) && RETROFI_PROBED_ON(RETROFI_HAVE_device_node_free)
__retrofi_define_free(RETROFI_PROBED_NAME(device_node, RETROFI_HAVE_device_node_free),
		      struct device_node *, if (_T) of_node_put(_T))
RETROFI_CENSUS(device_node_free, "6.7", "structural",
	       "of: Add cleanup.h based auto release via __free(device_node) markings (v6.7, title and version not verified)");
#endif /* < 6.7 */

#endif /* _RETROFI_LINUX_OF_H */
