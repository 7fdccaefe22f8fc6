/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <net/page_pool/helpers.h>
 */
#ifndef _RETROFI_NET_PAGE_POOL_HELPERS_H
#define _RETROFI_NET_PAGE_POOL_HELPERS_H

#include <retrofi/backport.h>

/*
 * "page_pool: split types and declarations from page_pool.h" (v6.6)
 * split <net/page_pool.h> into <net/page_pool/types.h> and this header,
 * which mt76 includes. Before, the one header declares the same.
 * Structural (a header that appeared); the target's own header is used
 * wherever it has one.
 */
#if RETROFI_LINUX_LESS(6, 6, 0) && !__has_include_next(<net/page_pool/helpers.h>)
#include <net/page_pool.h>
RETROFI_CENSUS(net_page_pool_helpers_h, "6.6", "structural",
	       "page_pool: split types and declarations from page_pool.h (v6.6)");
#else
#include_next <net/page_pool/helpers.h>
#endif /* < 6.6 */

/*
 * pp_page_to_nmdesc() -- "netmem: introduce struct netmem_desc mirroring
 * struct page" (title and version not verified; no 6.12 ABI the archive
 * serves has it, up to 6.12.118, every 7.2 one has it, from 7.2.6: the
 * record is that bound and the guard its high end, safe since it is a
 * macro the guard sees): the page pool's own fields of a page moved to a
 * struct netmem_desc that overlays struct page, and this gives a page
 * pool page's descriptor. mt76 reads its pool through it
 * (pp_page_to_nmdesc(page)->pp). Before, the same fields are struct
 * page's own (page->pp, since 5.14), so the page itself is the
 * descriptor. Structural (a type the target lacks).
 */
#if RETROFI_LINUX_LESS(7, 2, 6) && !defined(pp_page_to_nmdesc)
#define pp_page_to_nmdesc(p) (p)
RETROFI_CENSUS(pp_page_to_nmdesc, "6.12.118..7.2.6", "structural",
	       "netmem: introduce struct netmem_desc mirroring struct page (title and version not verified)");
#endif /* < 7.2.6 */

#endif /* _RETROFI_NET_PAGE_POOL_HELPERS_H */
