/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <crypto/aes-cbc-macs.h>
 *
 * The AES-CMAC library that mac80211 uses for BIP (aes_cmac.c), FILS
 * (fils_aead.c) and its keys (key.c), in place of a "cmac(aes)" shash.
 * A header of 7.x (7.3 has it, 6.12 not; the commit that added it is not
 * verified here, 7.1 is the guard).
 */
#ifndef _RETROFI_CRYPTO_AES_CBC_MACS_H
#define _RETROFI_CRYPTO_AES_CBC_MACS_H

#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * struct aes_cmac_key, struct aes_cmac_ctx, aes_cmac_preparekey(),
 * aes_cmac_init(), aes_cmac_update(), aes_cmac_final(), aes_cmac(),
 * aes_cmac_zeroize_key(), aes_cmac_zeroize_ctx() -- the AES-CMAC part of
 * <crypto/aes-cbc-macs.h>, from "lib/crypto: aes: Add support for
 * CBC-based MACs" (posted on 2026-02-18, in 7.0's merge window, so most
 * likely v7.1; the release is not verified). Every 6.12 ABI the archive
 * serves lacks it, 7.2.6 has it: the record is the bound 6.12.118..7.2.6
 * and the guard stands at its high end (a 7.1 or early 7.2 kernel that
 * has the header keeps its own: see below). A
 * prepared key (the AES key schedule and the two CMAC subkeys of RFC
 * 4493) and an incremental MAC over it, with no allocation, usable in any
 * context. The shim runs over the AES library (<crypto/aes.h>:
 * aes_expandkey(), aes_encrypt(); lib/crypto/aes.c, in every target since
 * 5.4) rather than a "cmac(aes)" shash: a shash needs a transform
 * allocated per key and freed, and this API has no call to free one.
 * 7.3's structures with the target's struct crypto_aes_ctx for its
 * struct aes_enckey; the functions are compat.ko's (backport-7.1.c).
 * Structural, by header (a new header, which a kernel below the guard
 * may have): below 7.2.6 unless the target has the header itself.
 * AES-XCBC-MAC and AES-CBC-MAC, which the stack does not use, are left
 * out. RETROFI_AES_CMAC_LIBRARY tells compat/backport-7.1.c, which
 * compiles the functions, that the shim is in force: in a .c file
 * __has_include_next() would find this header itself.
 */
#if RETROFI_LINUX_LESS(7, 2, 6) && !__has_include_next("crypto/aes-cbc-macs.h")
#define RETROFI_AES_CMAC_LIBRARY 1
#include <crypto/aes.h>
#include <linux/string.h>

struct aes_cmac_key {
	struct crypto_aes_ctx aes;
	union {
		u8 b[AES_BLOCK_SIZE];
		__be64 w[2];
	} k_final[2];
};

static inline void aes_cmac_zeroize_key(struct aes_cmac_key *key)
{
	memzero_explicit(key, sizeof(*key));
}

struct aes_cmac_ctx {
	const struct aes_cmac_key *key;
	size_t partial_len;
	u8 h[AES_BLOCK_SIZE];
};

static inline void aes_cmac_zeroize_ctx(struct aes_cmac_ctx *ctx)
{
	memzero_explicit(ctx, sizeof(*ctx));
}

#define aes_cmac_preparekey LINUX_BACKPORT(aes_cmac_preparekey)
int aes_cmac_preparekey(struct aes_cmac_key *key, const u8 *in_key,
			size_t key_len);

static inline void aes_cmac_init(struct aes_cmac_ctx *ctx,
				 const struct aes_cmac_key *key)
{
	*ctx = (struct aes_cmac_ctx){ .key = key };
}

#define aes_cmac_update LINUX_BACKPORT(aes_cmac_update)
void aes_cmac_update(struct aes_cmac_ctx *ctx, const u8 *data, size_t data_len);

#define aes_cmac_final LINUX_BACKPORT(aes_cmac_final)
void aes_cmac_final(struct aes_cmac_ctx *ctx, u8 out[AES_BLOCK_SIZE]);

static inline void aes_cmac(const struct aes_cmac_key *key, const u8 *data,
			    size_t data_len, u8 out[AES_BLOCK_SIZE])
{
	struct aes_cmac_ctx ctx;

	aes_cmac_init(&ctx, key);
	aes_cmac_update(&ctx, data, data_len);
	aes_cmac_final(&ctx, out);
}
RETROFI_CENSUS(aes_cmac_preparekey, "6.12.118..7.2.6", "structural",
	       "lib/crypto: aes: Add support for CBC-based MACs (most likely v7.1, not verified)");
#else
#include_next <crypto/aes-cbc-macs.h>
#endif /* < 7.2.6 */

/*
 * aes_cmac_zeroize_key(), aes_cmac_zeroize_ctx() -- the library's
 * zeroizing helpers, which 7.3's <crypto/aes-cbc-macs.h> has and 7.2's
 * lacks (every 7.2 ABI the archive serves, up to 7.2.12, lacks them and
 * 7.3.4 has them; the commit that added them is not verified here, so
 * the record is the bound 7.2.12..7.3.4 and the guard its high end):
 * mac80211's fils_aead.c declares its key with
 * __cleanup(aes_cmac_zeroize_key). Structural (inline helpers of a new
 * header), chosen by the probe aes_cmac_zeroize_key where the target has
 * the header; where it has not, the block above defines them.
 */
#if RETROFI_LINUX_LESS(7, 3, 4) && __has_include_next("crypto/aes-cbc-macs.h") && \
	!RETROFI_HAVE_aes_cmac_zeroize_key
#include <linux/string.h>

static inline void aes_cmac_zeroize_key(struct aes_cmac_key *key)
{
	memzero_explicit(key, sizeof(*key));
}

static inline void aes_cmac_zeroize_ctx(struct aes_cmac_ctx *ctx)
{
	memzero_explicit(ctx, sizeof(*ctx));
}
RETROFI_CENSUS(aes_cmac_zeroize_key, "7.2.12..7.3.4", "structural",
	       "aes_cmac_zeroize_key() and aes_cmac_zeroize_ctx() of <crypto/aes-cbc-macs.h> (commit not verified)");
#endif /* < 7.3.4 */

#endif /* _RETROFI_CRYPTO_AES_CBC_MACS_H */
