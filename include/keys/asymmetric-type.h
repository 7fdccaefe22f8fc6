/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <keys/asymmetric-type.h>
 */
#ifndef _RETROFI_KEYS_ASYMMETRIC_TYPE_H
#define _RETROFI_KEYS_ASYMMETRIC_TYPE_H

#include_next <keys/asymmetric-type.h>
#include <retrofi/backport.h>

/*
 * x509_load_certificate_list() -- exported to modules by "wifi: cfg80211:
 * Deduplicate certificate loading" (v6.3), which made
 * cfg80211 load its regulatory database keys with it. Older kernels declare
 * it but do not export it, so a modular cfg80211 cannot link against it.
 * Additive, by version only: a compile probe cannot see whether a symbol is
 * exported. The compat copy (compat/backport-6.3.c) is upstream's.
 */
#if RETROFI_API_LESS(6, 3, 0)
#define x509_load_certificate_list LINUX_BACKPORT(x509_load_certificate_list)
int x509_load_certificate_list(const u8 cert_list[],
			       const unsigned long list_size,
			       const struct key *keyring);
RETROFI_CENSUS(x509_load_certificate_list, "6.3", "additive",
	       "wifi: cfg80211: Deduplicate certificate loading (v6.3): exported to modules");
#endif /* < 6.3 */

#endif /* _RETROFI_KEYS_ASYMMETRIC_TYPE_H */
