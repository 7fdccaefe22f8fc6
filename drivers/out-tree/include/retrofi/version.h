/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi: kernel version tests used by the code semantic-patches/ writes.
 * Force-included into every file of the output tree (see the top-level
 * Makefile, NOSTDINC_FLAGS), so a rewritten file never depends on whether it
 * happened to include <linux/version.h> itself.
 */
#ifndef _RETROFI_VERSION_H
#define _RETROFI_VERSION_H
#include <linux/version.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

#define RETROFI_LINUX_IS_LESS(a, b, c) \
	(LINUX_VERSION_CODE < KERNEL_VERSION(a, b, c))
#define RETROFI_LINUX_IS_GEQ(a, b, c) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(a, b, c))

/*
 * Whether the stack may call an API that stable kernels may carry without
 * a version change, upstream since a.b.c: the target has it (compile probe
 * RETROFI_HAVE_<name> of compat/probes.list, <retrofi/probes.h>) and the
 * API level is not forced below a.b.c. The opposite of RETROFI_API_NEED().
 * A name missing from probes.list is an undefined macro in #if: -Wundef
 * (on in every Kbuild) warns, and a warning fails the build.
 */
#define RETROFI_API_HAS(a, b, c, name) \
	(!RETROFI_API_NEED(a, b, c, RETROFI_HAVE_ ## name))

/*
 * Every object of the output tree references compat.ko's marker symbol, so
 * modpost records the dependency and depmod/modprobe load compat.ko first,
 * whether or not a module uses another shim.
 */
#if defined(MODULE) && !defined(__ASSEMBLY__)
static void (* const __retrofi_compat_dep)(void) __attribute__((__used__)) =
	retrofi_compat_dependency;
#endif

#endif /* _RETROFI_VERSION_H */
