/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/netlink.h>
 */
#ifndef _RETROFI_LINUX_NETLINK_H
#define _RETROFI_LINUX_NETLINK_H

#include_next <linux/netlink.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * NL_SET_ERR_MSG_FMT() -- "netlink: add support for formatted extack
 * messages" (v6.2; every 6.1 ABI the archive serves lacks it, every 6.12
 * one has it): an extack message formatted into
 * a buffer that the same change added to struct netlink_ext_ack. A
 * target without it has no buffer to format into, so the shim sets the
 * format string itself as the message (still a string literal, as
 * NL_SET_ERR_MSG() needs); the arguments go to no_printk(), which checks
 * them against the format and never runs: userspace gets the message
 * without its values. Structural (the structure changed),
 * probed: stable kernels may carry it.
 */
#if RETROFI_LINUX_LESS(6, 2, 0) && !RETROFI_HAVE_NL_SET_ERR_MSG_FMT
#define NL_SET_ERR_MSG_FMT(extack, fmt, args...) do {	\
	NL_SET_ERR_MSG(extack, fmt);				\
	no_printk(fmt, ##args);					\
} while (0)
#define NL_SET_ERR_MSG_FMT_MOD(extack, fmt, args...) do {	\
	NL_SET_ERR_MSG_MOD(extack, fmt);			\
	no_printk(fmt, ##args);					\
} while (0)
RETROFI_CENSUS(NL_SET_ERR_MSG_FMT, "6.2", "structural",
	       "netlink: add support for formatted extack messages (v6.2)");
#endif /* < 6.2 */

#endif /* _RETROFI_LINUX_NETLINK_H */
