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

#endif /* _RETROFI_LINUX_BITFIELD_H */
