/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/genetlink.h>
 */
#ifndef _RETROFI_NET_GENETLINK_H
#define _RETROFI_NET_GENETLINK_H

#include_next <net/genetlink.h>
#include <retrofi/backport.h>

/*
 * struct genl_split_ops -- "genetlink: introduce split op representation"
 * (v6.2) made the family's pre_doit()/post_doit() hooks take a
 * const struct genl_split_ops *; before, they take the const struct
 * genl_ops * of the operation, which has the same internal_flags (the only
 * member nl80211's hooks read). Structural: the hooks' signature. The name
 * is mapped, as the backports project did, so the stack's hooks have the
 * type the old struct genl_family expects.
 */
#if RETROFI_LINUX_LESS(6, 2, 0)
#define genl_split_ops genl_ops
#endif /* < 6.2 */

#endif /* _RETROFI_NET_GENETLINK_H */
