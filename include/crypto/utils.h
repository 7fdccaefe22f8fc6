/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <crypto/utils.h>
 *
 * "crypto: lib/utils - Move utilities into new header" (v6.4) moved
 * crypto_xor(), crypto_xor_cpy() and crypto_memneq() out of
 * <crypto/algapi.h> into the new <crypto/utils.h>; algapi.h still includes
 * it (6.12's does), so including algapi.h gives the same functions on
 * every kernel.
 * Structural (a header that appeared).
 */
#ifndef _RETROFI_CRYPTO_UTILS_H
#define _RETROFI_CRYPTO_UTILS_H

#include <retrofi/backport.h>

#if RETROFI_LINUX_LESS(6, 4, 0)
#include <crypto/algapi.h>
RETROFI_CENSUS(crypto_utils_h, "6.4", "structural",
	       "crypto: lib/utils - Move utilities into new header (v6.4)");
#else
#include_next <crypto/utils.h>
#endif /* < 6.4 */

#endif /* _RETROFI_CRYPTO_UTILS_H */
