// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat selftest with the probes forced off: the cases of
 * retrofi_selftest.c, built with RETROFI_PROBES_OFF (Kbuild), so that the
 * structural-probed shims run their own bodies on a kernel that has the
 * API (<retrofi/backport.h>): otherwise a booted row whose kernel carries
 * the API from stable (Debian's 5.10.262 and 6.1.192: <linux/cleanup.h>
 * and its classes, the relaxed min()/max(), genlmsg_multicast_allns()
 * without flags) runs only the target's copy, and the shim is in force
 * only on rows that are built, never booted. Below 6.5 the shim's
 * <linux/cleanup.h> replaces the target's in this object, the cases of the
 * mutex, spinlock, rcu and kfree classes take the shims' classes under
 * their backport_ names (st_class(), retrofi_selftest_cleanup.h), min()
 * and max() are the shim's, and below 6.10 genlmsg_multicast_allns() is
 * the shim over a stand-in of the pre-6.10 function
 * (retrofi_selftest_genl.h). Built at retrofi_selftest's API level, so
 * that its cases and skips are that module's.
 */
#ifndef RETROFI_PROBES_OFF
#error "retrofi_selftest_probes_off is built with the probes forced off (see Kbuild)"
#endif
#include "retrofi_selftest.c"
