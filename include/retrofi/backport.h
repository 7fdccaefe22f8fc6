/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi: the version tests every compat header uses.
 *
 * Three kinds of guard, and each shim says which it uses (two narrower
 * forms of the structural one follow them):
 *
 *  structural  RETROFI_LINUX_LESS(a, b, c)
 *      The target's real version. For changed signatures and structures,
 *      which only the real kernel can decide.
 *
 *  additive    RETROFI_API_LESS(a, b, c)
 *      The API level: LINUX_VERSION_CODE unless the build sets a lower one
 *      (make KLIB=... API_LEVEL=2.6.26 -> -DRETROFI_API_CODE=...). Below a
 *      shim's version the shim is compiled in and the target's own
 *      definition is redirected to it with LINUX_BACKPORT(), so the shim is
 *      what the stack uses: this is how API-shape targets run old-kernel
 *      code paths on a new base kernel.
 *
 *  probed      RETROFI_API_NEED(a, b, c, RETROFI_HAVE_sym)
 *      For APIs that stable or distribution kernels may have backported
 *      without changing their version (Debian's 6.1.192 has
 *      list_count_nodes() from 6.3). RETROFI_HAVE_sym comes from
 *      <retrofi/probes.h>, written once per KLIB by compat/probe.sh. The
 *      shim is used when the API level is forced below its version, or
 *      when the target's headers lack it.
 *
 * Two narrower forms of the structural guard, for a structural change
 * that a stable kernel may have taken without changing its version. Like
 * structural guards, the API level never forces them (the base's own
 * signature or header is what the stack compiles against), and their
 * census records say "structural":
 *
 *  structural, probed
 *      RETROFI_LINUX_LESS(a, b, c) && !RETROFI_HAVE_sym
 *      Below the version, unless compat/probe.sh found the API in the
 *      target's headers (dev_sw_netstats_tx_add(), the rfkill hard
 *      block reasons, tasklet_disable_in_atomic(), enum skb_drop_reason).
 *
 *  structural, by header
 *      RETROFI_LINUX_LESS(a, b, c) && !__has_include_next("path")
 *      For a header that appeared (<net/gso.h>, <kunit/visibility.h>):
 *      below the version, unless the target has the header itself. The
 *      preprocessor answers, so no probe is needed.
 *
 * Probes forced off (RETROFI_PROBES_OFF, set only by the selftest module
 * retrofi_selftest_probes_off, never by the stack): a kernel that has a
 * probed API never runs the shim's body, so a booted row would only test
 * the target's own copy. In that build the structural-probed shims that
 * opt in (RETROFI_PROBED_ON(have) in their guard) are compiled below
 * their version even where the probe found the API. A shim whose name
 * the target already defines takes RETROFI_PROBED_NAME(name, have):
 * backport_name in that build where the target has name, name otherwise,
 * so that the shim's own text is instantiated beside the target's, under
 * another name, and a selftest case calls it by that name. A shim of a
 * whole header (<linux/cleanup.h>) replaces the target's header in that
 * build instead. Outside that build both are no-ops.
 */
#ifndef _RETROFI_BACKPORT_H
#define _RETROFI_BACKPORT_H

#include <linux/version.h>

#ifndef RETROFI_API_CODE
#define RETROFI_API_CODE LINUX_VERSION_CODE
#endif

#if RETROFI_API_CODE > LINUX_VERSION_CODE
#error "retrofi: API_LEVEL is newer than the target kernel; it can only be lowered"
#endif

#define RETROFI_LINUX_LESS(a, b, c) (LINUX_VERSION_CODE < KERNEL_VERSION(a, b, c))
#define RETROFI_API_LESS(a, b, c) (RETROFI_API_CODE < KERNEL_VERSION(a, b, c))
#define RETROFI_API_FORCED (RETROFI_API_CODE != LINUX_VERSION_CODE)
#define RETROFI_API_NEED(a, b, c, have) \
	(RETROFI_API_LESS(a, b, c) && (RETROFI_API_FORCED || !(have)))

#ifdef RETROFI_PROBES_OFF
#define RETROFI_PROBED_ON(have) 1
#define RETROFI_PROBED_NAME(name, have) __RETROFI_PROBED_NAME(name, have)
#else
#define RETROFI_PROBED_ON(have) (!(have))
#define RETROFI_PROBED_NAME(name, have) name
#endif
#define __RETROFI_PROBED_NAME(name, have) __RETROFI_PROBED_NAME_ ## have(name)
#define __RETROFI_PROBED_NAME_0(name) name
#define __RETROFI_PROBED_NAME_1(name) backport_ ## name
/*
 * DEFINE_FREE() pastes its name unexpanded: a free class named by
 * RETROFI_PROBED_NAME() is defined through this macro, which expands the
 * name first (<linux/slab.h>'s kfree, <linux/of.h>'s device_node).
 */
#define __retrofi_define_free(_name, _type, _free) DEFINE_FREE(_name, _type, _free)

/*
 * Every symbol the compat layer defines over one the target may have goes
 * through this, so it never clashes with the target's own (backports'
 * convention).
 */
#define LINUX_BACKPORT(sym) backport_ ## sym

/*
 * The shim census: RETROFI_CENSUS(name, since, kind, change), written at
 * file scope inside a shim's guard, records in the object that compiles
 * the shim that it is in force: the API's name, the kernel version that
 * introduced it ("4.13"), the kind of guard ("additive", "probed" or
 * "structural") and the upstream change it stands in for. The record is a
 * string "name|since|kind|change" in the section .comment.retrofi_census,
 * which is not allocated: the module loader never copies it, strip
 * --strip-debug keeps it, and scripts/retrofi_census.py reads it back from
 * the built modules. (modpost warns about a non-allocated section unless
 * its name is one it knows, such as .comment*.) Every object that includes the shim's header carries the
 * record, so a module's census is the set of shims compiled into it.
 * The arguments are string literals without double quotes, except name.
 * Every guarded block records its shim, whatever its kind, in the branch
 * that compiles the shim (the #if branch, or the #else of a negated
 * guard), and inside the #ifndef X or #if !defined(X) that defines X.
 * Exceptions: a block of nothing but #include_next (it picks the
 * target's header), a guard nested in a shim (part of that shim), and a
 * block that only holds code its file's shims share, no API of its own,
 * which says so with a comment that starts "Helpers". A block of a compat
 * .c file is recorded by the header block of the same guard; for a header
 * chosen by __has_include_next(), which in a .c file finds the compat
 * header itself, the .c guard tests a macro that the header's shim defines
 * (scripts/retrofi_census.py: check_blocks()).
 */
#define RETROFI_CENSUS(name, since, kind, change)			\
	asm(".pushsection .comment.retrofi_census,\"\",@progbits\n\t"	\
	    ".asciz \"" #name "|" since "|" kind "|" change "\"\n\t"	\
	    ".popsection")

/* Exported by compat.ko; every backported module references it. */
void retrofi_compat_dependency(void);

#endif /* _RETROFI_BACKPORT_H */
