/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/cleanup.h>
 */
#ifndef _RETROFI_LINUX_CLEANUP_H
#define _RETROFI_LINUX_CLEANUP_H

#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * DEFINE_FREE(), __free(), no_free_ptr(), return_ptr(), DEFINE_CLASS(),
 * EXTEND_CLASS(), CLASS(), DEFINE_GUARD(), guard(), scoped_guard(),
 * DEFINE_LOCK_GUARD_0/1() -- "locking: Introduce __cleanup() based
 * infrastructure" (v6.5), carried by stable 5.10.y (Debian 5.10.0-46,
 * 5.10.262 has it; 5.10.0-30, 5.10.218 does not). Structural (a header
 * that appeared); since a stable kernel may carry it, the target's own
 * header is used wherever it has one. The body is that of the stable
 * backport (5.10.0-46's include/linux/cleanup.h), so an older ABI of a
 * line gets exactly what a newer one of the same line has, with the
 * __cleanup() attribute the same change added to
 * <linux/compiler_attributes.h> where the target's lacks it. The lock
 * classes (mutex, spinlock_bh) are shimmed beside their locks in
 * <linux/mutex.h> and <linux/spinlock.h>.
 *
 * With probes forced off (<retrofi/backport.h>; the selftest module
 * retrofi_selftest_probes_off), this body replaces the target's own
 * header where the target has one below 6.5 (the same 6.5 form from
 * stable: Debian's 5.10.262 and 6.1.192), so that every guard and free
 * class in that object, the target's headers' own DEFINE_GUARD()s and
 * DEFINE_FREE()s among them, is built by this text. Its include guard is
 * the target's too, so the target's header is never read after it.
 */
#if RETROFI_LINUX_LESS(6, 5, 0) && \
	(!__has_include_next(<linux/cleanup.h>) || RETROFI_PROBED_ON(1))
#include <linux/compiler.h>
#define __LINUX_GUARDS_H

#ifndef __cleanup
#define __cleanup(func)			__attribute__((__cleanup__(func)))
#endif

/*
 * DEFINE_FREE(name, type, free):
 *	simple helper macro that defines the required wrapper for a __free()
 *	based cleanup function. @free is an expression using '_T' to access
 *	the variable.
 *
 * __free(name):
 *	variable attribute to add a scoped based cleanup to the variable.
 *
 * no_free_ptr(var):
 *	like a non-atomic xchg(var, NULL), such that the cleanup function will
 *	be inhibited -- provided it sanely deals with a NULL value.
 *
 * return_ptr(p):
 *	returns p while inhibiting the __free().
 *
 * Ex.
 *
 * DEFINE_FREE(kfree, void *, if (_T) kfree(_T))
 *
 *	struct obj *p __free(kfree) = kmalloc(...);
 *	if (!p)
 *		return NULL;
 *
 *	if (!init_obj(p))
 *		return NULL;
 *
 *	return_ptr(p);
 */

#define DEFINE_FREE(_name, _type, _free) \
	static inline void __free_##_name(void *p) { _type _T = *(_type *)p; _free; }

#define __free(_name)	__cleanup(__free_##_name)

#define no_free_ptr(p) \
	({ __auto_type __ptr = (p); (p) = NULL; __ptr; })

#define return_ptr(p)	return no_free_ptr(p)


/*
 * DEFINE_CLASS(name, type, exit, init, init_args...):
 *	helper to define the destructor and constructor for a type.
 *	@exit is an expression using '_T' -- similar to FREE above.
 *	@init is an expression in @init_args resulting in @type
 *
 * EXTEND_CLASS(name, ext, init, init_args...):
 *	extends class @name to @name@ext with the new constructor
 *
 * CLASS(name, var)(args...):
 *	declare the variable @var as an instance of the named class
 *
 * Ex.
 *
 * DEFINE_CLASS(fdget, struct fd, fdput(_T), fdget(fd), int fd)
 *
 *	CLASS(fdget, f)(fd);
 *	if (!f.file)
 *		return -EBADF;
 *
 *	// use 'f' without concern
 */

#define DEFINE_CLASS(_name, _type, _exit, _init, _init_args...)		\
typedef _type class_##_name##_t;					\
static inline void class_##_name##_destructor(_type *p)			\
{ _type _T = *p; _exit; }						\
static inline _type class_##_name##_constructor(_init_args)		\
{ _type t = _init; return t; }

#define EXTEND_CLASS(_name, ext, _init, _init_args...)			\
typedef class_##_name##_t class_##_name##ext##_t;			\
static inline void class_##_name##ext##_destructor(class_##_name##_t *p)\
{ class_##_name##_destructor(p); }					\
static inline class_##_name##_t class_##_name##ext##_constructor(_init_args) \
{ class_##_name##_t t = _init; return t; }

#define CLASS(_name, var)						\
	class_##_name##_t var __cleanup(class_##_name##_destructor) =	\
		class_##_name##_constructor


/*
 * DEFINE_GUARD(name, type, lock, unlock):
 *	trivial wrapper around DEFINE_CLASS() above specifically
 *	for locks.
 *
 * guard(name):
 *	an anonymous instance of the (guard) class
 *
 * scoped_guard (name, args...) { }:
 *	similar to CLASS(name, scope)(args), except the variable (with the
 *	explicit name 'scope') is declard in a for-loop such that its scope is
 *	bound to the next (compound) statement.
 *
 */

#define DEFINE_GUARD(_name, _type, _lock, _unlock) \
	DEFINE_CLASS(_name, _type, _unlock, ({ _lock; _T; }), _type _T)

#define guard(_name) \
	CLASS(_name, __UNIQUE_ID(guard))

#define scoped_guard(_name, args...)					\
	for (CLASS(_name, scope)(args),					\
	     *done = NULL; !done; done = (void *)1)

/*
 * Additional helper macros for generating lock guards with types, either for
 * locks that don't have a native type (eg. RCU, preempt) or those that need a
 * 'fat' pointer (eg. spin_lock_irqsave).
 *
 * DEFINE_LOCK_GUARD_0(name, lock, unlock, ...)
 * DEFINE_LOCK_GUARD_1(name, type, lock, unlock, ...)
 *
 * will result in the following type:
 *
 *   typedef struct {
 *	type *lock;		// 'type := void' for the _0 variant
 *	__VA_ARGS__;
 *   } class_##name##_t;
 *
 * As above, both _lock and _unlock are statements, except this time '_T' will
 * be a pointer to the above struct.
 */

#define __DEFINE_UNLOCK_GUARD(_name, _type, _unlock, ...)		\
typedef struct {							\
	_type *lock;							\
	__VA_ARGS__;							\
} class_##_name##_t;							\
									\
static inline void class_##_name##_destructor(class_##_name##_t *_T)	\
{									\
	if (_T->lock) { _unlock; }					\
}


#define __DEFINE_LOCK_GUARD_1(_name, _type, _lock)			\
static inline class_##_name##_t class_##_name##_constructor(_type *l)	\
{									\
	class_##_name##_t _t = { .lock = l }, *_T = &_t;		\
	_lock;								\
	return _t;							\
}

#define __DEFINE_LOCK_GUARD_0(_name, _lock)				\
static inline class_##_name##_t class_##_name##_constructor(void)	\
{									\
	class_##_name##_t _t = { .lock = (void*)1 },			\
			 *_T __maybe_unused = &_t;			\
	_lock;								\
	return _t;							\
}

#define DEFINE_LOCK_GUARD_1(_name, _type, _lock, _unlock, ...)		\
__DEFINE_UNLOCK_GUARD(_name, _type, _unlock, __VA_ARGS__)		\
__DEFINE_LOCK_GUARD_1(_name, _type, _lock)

#define DEFINE_LOCK_GUARD_0(_name, _lock, _unlock, ...)			\
__DEFINE_UNLOCK_GUARD(_name, void, _unlock, __VA_ARGS__)		\
__DEFINE_LOCK_GUARD_0(_name, _lock)

RETROFI_CENSUS(cleanup_h, "6.5", "structural",
	       "locking: Introduce __cleanup() based infrastructure (v6.5)");
#else
#include_next <linux/cleanup.h>
#endif /* < 6.5 */

/*
 * scoped_guard() whose body the compiler sees run -- "cleanup: Adjust
 * scoped_guard() macros to avoid potential warning" (v6.13): the 6.5
 * form is a for-loop over a 'done' pointer, so after a body that
 * returns, the compiler still sees the end of the function reached
 * (-Werror=return-type in 7.3's mac80211_hwsim_tsf_to_boottime()). The
 * loop's step jumps past the loop and, for an unconditional guard, its
 * condition is a constant true. Upstream's macros, with the condition
 * "__guard_ptr(_name)(&scope) || !__is_cond_ptr(_name)" reduced to true:
 * where this applies the guards are all unconditional (the 6.5 form of
 * cleanup.h, the stable backports' and the shim above, has no
 * conditional guards; a target with DEFINE_GUARD_COND(), 6.6's, keeps
 * its own). Structural and probed: Debian's 6.12.118 has the new form
 * from stable, its 6.1.192 and 5.10.262 the old.
 */
#if RETROFI_LINUX_LESS(6, 13, 0) && !RETROFI_HAVE_scoped_guard_return && \
	!defined(DEFINE_GUARD_COND)
#undef scoped_guard
#define __scoped_guard(_name, _label, args...)				\
	for (CLASS(_name, scope)(args); true; ({ goto _label; }))	\
		if (0) {						\
_label:									\
			break;						\
		} else

#define scoped_guard(_name, args...)	\
	__scoped_guard(_name, __UNIQUE_ID(label), args)
RETROFI_CENSUS(scoped_guard_return, "6.13", "structural",
	       "cleanup: Adjust scoped_guard() macros to avoid potential warning (v6.13)");
#endif /* < 6.13 */

#endif /* _RETROFI_LINUX_CLEANUP_H */
