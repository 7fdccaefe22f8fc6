/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/bitfield.h>
 */
#ifndef _RETROFI_LINUX_BITFIELD_H
#define _RETROFI_LINUX_BITFIELD_H

#include_next <linux/bitfield.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * FIELD_PREP_CONST() -- "bitfield: add FIELD_PREP_CONST()" (v6.3): a
 * FIELD_PREP() that is a constant expression, for initialisers. Additive
 * and probed (stable kernels may carry it); a macro, so it is replaced
 * rather than renamed. The body is upstream's.
 */
#if RETROFI_API_NEED(6, 3, 0, RETROFI_HAVE_FIELD_PREP_CONST)
#undef __BF_CHECK_POW2
#define __BF_CHECK_POW2(n)	BUILD_BUG_ON_ZERO(((n) & ((n) - 1)) != 0)

#undef FIELD_PREP_CONST
#define FIELD_PREP_CONST(_mask, _val)					\
	(								\
		/* mask must be non-zero */				\
		BUILD_BUG_ON_ZERO((_mask) == 0) +			\
		/* check if value fits */				\
		BUILD_BUG_ON_ZERO(~((_mask) >> __bf_shf(_mask)) & (_val)) + \
		/* check if mask is contiguous */			\
		__BF_CHECK_POW2((_mask) + (1ULL << __bf_shf(_mask))) +	\
		/* and create the value */				\
		(((typeof(_mask))(_val) << __bf_shf(_mask)) & (_mask))	\
	)
RETROFI_CENSUS(FIELD_PREP_CONST, "6.3", "probed",
	       "bitfield: add FIELD_PREP_CONST() (v6.3)");
#endif /* < 6.3 */

/*
 * field_prep(), field_get() -- "bitfield: Add non-constant field_{prep,get}()
 * helpers" (title and version not verified: no 6.12 ABI the archive serves
 * has them, up to 6.12.118, every 7.2 one has, from 7.2.6: the record is
 * that bound): FIELD_PREP() and FIELD_GET() for a mask that need not be a
 * compile-time constant (rtw89 reads masks from its tables). A constant
 * mask takes FIELD_PREP()/FIELD_GET(), with their checks, as upstream's
 * takes its __FIELD_PREP()/__FIELD_GET(); any other is shifted by its
 * lowest set bit. Probed, by the preprocessor: macros, so the target has
 * them when they are defined, and at a forced API level they are defined
 * again.
 */
#if defined(field_prep) && defined(field_get)
#define RETROFI_HAVE_field_get 1
#else
#define RETROFI_HAVE_field_get 0
#endif
#if RETROFI_API_NEED(7, 2, 6, RETROFI_HAVE_field_get)
#undef field_prep
#undef field_get
#define __retrofi_field_shift(mask)					\
	(BITS_PER_TYPE(mask) <= 32 ? __ffs(mask) : __ffs64(mask))
#define __retrofi_field_prep(mask, val)					\
	({								\
		__auto_type __mask = (mask);				\
		typeof(__mask) __val = (val);				\
		(__val << __retrofi_field_shift(__mask)) & __mask;	\
	})
#define __retrofi_field_get(mask, reg)					\
	({								\
		__auto_type __mask = (mask);				\
		typeof(__mask) __reg = (reg);				\
		(__reg & __mask) >> __retrofi_field_shift(__mask);	\
	})
#define field_prep(mask, val)						\
	(__builtin_constant_p(mask) ? FIELD_PREP(mask, val)		\
				    : __retrofi_field_prep(mask, val))
#define field_get(mask, reg)						\
	(__builtin_constant_p(mask) ? FIELD_GET(mask, reg)		\
				    : __retrofi_field_get(mask, reg))
RETROFI_CENSUS(field_get, "6.12.118..7.2.6", "probed",
	       "bitfield: Add non-constant field_{prep,get}() helpers (title and version not verified)");
#endif /* < 7.2.6 */

/*
 * FIELD_GET_SIGNED() -- "bitfield: Add FIELD_GET_SIGNED()" (title and
 * version not verified: no 6.12 ABI the archive serves has it, up to
 * 6.12.118, every 7.2 one has, from 7.2.6: the record is that bound): a
 * field extracted and sign-extended from its top bit, in the signed type
 * of the mask's width (rtw89's calibration values). The body is
 * upstream's, with its __signed_scalar_typeof() written out. Probed, by
 * the preprocessor, like field_get().
 */
#ifdef FIELD_GET_SIGNED
#define RETROFI_HAVE_FIELD_GET_SIGNED 1
#else
#define RETROFI_HAVE_FIELD_GET_SIGNED 0
#endif
#if RETROFI_API_NEED(7, 2, 6, RETROFI_HAVE_FIELD_GET_SIGNED)
#undef FIELD_GET_SIGNED
#define FIELD_GET_SIGNED(mask, reg)					\
	({								\
		__BF_FIELD_CHECK(mask, reg, 0U, "FIELD_GET_SIGNED: ");	\
		((typeof(_Generic((mask),				\
				  char: (signed char)0,			\
				  unsigned char: (signed char)0,	\
				  signed char: (signed char)0,		\
				  unsigned short: (signed short)0,	\
				  signed short: (signed short)0,	\
				  unsigned int: (signed int)0,		\
				  signed int: (signed int)0,		\
				  unsigned long: (signed long)0,	\
				  signed long: (signed long)0,		\
				  unsigned long long: (signed long long)0, \
				  signed long long: (signed long long)0, \
				  default: (mask))))			\
		 (((long long)(reg) << __builtin_clzll(mask)) >>	\
		  (__builtin_clzll(mask) + __builtin_ctzll(mask))));	\
	})
RETROFI_CENSUS(FIELD_GET_SIGNED, "6.12.118..7.2.6", "probed",
	       "bitfield: Add FIELD_GET_SIGNED() (title and version not verified)");
#endif /* < 7.2.6 */

#endif /* _RETROFI_LINUX_BITFIELD_H */
