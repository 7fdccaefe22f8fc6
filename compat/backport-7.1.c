// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 7.1 introduced that the stack uses.
 */
#include <crypto/aes-cbc-macs.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <crypto/utils.h>

/*
 * Where <crypto/aes-cbc-macs.h> compiled its shim (below 7.2.6, unless
 * the target has the header): it says so with RETROFI_AES_CMAC_LIBRARY.
 */
#if RETROFI_LINUX_LESS(7, 2, 6) && defined(RETROFI_AES_CMAC_LIBRARY)
/*
 * The AES-CMAC library of <crypto/aes-cbc-macs.h> ("lib/crypto: aes: Add
 * support for CBC-based MACs", most likely v7.1; its census record is the
 * bound 6.12.118..7.2.6 and the guard its high end, as the header's),
 * over the AES library: RFC 4493. The context
 * keeps the last block unencrypted until aes_cmac_final() (it may be the
 * final block, which takes a subkey): @h is the chaining value with the
 * bytes of the current block XORed in, @partial_len how many.
 */

/* RFC 4493 "dbl": a left shift of the 128-bit value, reduced by 0x87. */
static void cmac_dbl(__be64 out[2], const __be64 in[2])
{
	u64 a = be64_to_cpu(in[0]), b = be64_to_cpu(in[1]);

	out[0] = cpu_to_be64((a << 1) | (b >> 63));
	out[1] = cpu_to_be64((b << 1) ^ ((a >> 63) ? 0x87 : 0));
}

int aes_cmac_preparekey(struct aes_cmac_key *key, const u8 *in_key,
			size_t key_len)
{
	__be64 l[2] = {};
	int err;

	err = aes_expandkey(&key->aes, in_key, key_len);
	if (err) {
		aes_cmac_zeroize_key(key);
		return err;
	}
	/* L = AES(K, 0); K1 = dbl(L); K2 = dbl(K1). */
	aes_encrypt(&key->aes, (u8 *)l, (const u8 *)l);
	cmac_dbl(key->k_final[0].w, l);
	cmac_dbl(key->k_final[1].w, key->k_final[0].w);
	memzero_explicit(l, sizeof(l));
	return 0;
}
EXPORT_SYMBOL_GPL(aes_cmac_preparekey);

void aes_cmac_update(struct aes_cmac_ctx *ctx, const u8 *data, size_t data_len)
{
	while (data_len) {
		size_t n;

		/* A full block is chained only once more data follows it. */
		if (ctx->partial_len == AES_BLOCK_SIZE) {
			aes_encrypt(&ctx->key->aes, ctx->h, ctx->h);
			ctx->partial_len = 0;
		}
		n = min(data_len, AES_BLOCK_SIZE - ctx->partial_len);
		crypto_xor(&ctx->h[ctx->partial_len], data, n);
		ctx->partial_len += n;
		data += n;
		data_len -= n;
	}
}
EXPORT_SYMBOL_GPL(aes_cmac_update);

void aes_cmac_final(struct aes_cmac_ctx *ctx, u8 out[AES_BLOCK_SIZE])
{
	const struct aes_cmac_key *key = ctx->key;

	if (ctx->partial_len == AES_BLOCK_SIZE) {
		crypto_xor(ctx->h, key->k_final[0].b, AES_BLOCK_SIZE);
	} else {
		/* Pad with 10...0 (an empty message is one padded block). */
		ctx->h[ctx->partial_len] ^= 0x80;
		crypto_xor(ctx->h, key->k_final[1].b, AES_BLOCK_SIZE);
	}
	aes_encrypt(&key->aes, out, ctx->h);
	aes_cmac_zeroize_ctx(ctx);
}
EXPORT_SYMBOL_GPL(aes_cmac_final);
#endif /* < 7.2.6 */
