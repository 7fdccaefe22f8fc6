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
 * Every pool hands out fragments -- "page_pool: remove PP_FLAG_PAGE_FRAG"
 * (v6.6; title not verified): page_pool_alloc_frag() stopped asking the
 * pool for a flag, and drivers (mt76) stopped setting it. From 5.14 to
 * 6.5 the allocation warns and returns NULL unless the pool was created
 * with PP_FLAG_PAGE_FRAG, so every rx buffer of mt76 would fail there.
 * page_pool_create() adds the flag, which makes the pool what 6.6 made
 * every pool. Such a pool counts fragments on every page it takes back
 * (page_pool_is_last_frag()), so a whole page it hands out carries a
 * count of one, as every page does since 6.7: the page allocators set it.
 * Structural, below 6.6 where the flag exists (a macro the preprocessor
 * sees: a kernel older than 5.14 has none, and needs the block below).
 */
#if RETROFI_LINUX_LESS(6, 6, 0) && defined(PP_FLAG_PAGE_FRAG)
static inline struct page_pool *
LINUX_BACKPORT(page_pool_create)(const struct page_pool_params *params)
{
	struct page_pool_params p = *params;

	p.flags |= PP_FLAG_PAGE_FRAG;
	return page_pool_create(&p);
}
#define page_pool_create LINUX_BACKPORT(page_pool_create)

static inline struct page *
LINUX_BACKPORT(page_pool_alloc_pages)(struct page_pool *pool, gfp_t gfp)
{
	struct page *page = page_pool_alloc_pages(pool, gfp);

	if (page && (pool->p.flags & PP_FLAG_PAGE_FRAG))
		page_pool_fragment_page(page, 1);
	return page;
}
#define page_pool_alloc_pages LINUX_BACKPORT(page_pool_alloc_pages)

static inline struct page *
LINUX_BACKPORT(page_pool_dev_alloc_pages)(struct page_pool *pool)
{
	return page_pool_alloc_pages(pool, GFP_ATOMIC | __GFP_NOWARN);
}
#define page_pool_dev_alloc_pages LINUX_BACKPORT(page_pool_dev_alloc_pages)
RETROFI_CENSUS(page_pool_frag_flag, "6.6", "structural",
	       "page_pool: remove PP_FLAG_PAGE_FRAG (v6.6; title not verified)");
#endif /* < 6.6 */

/*
 * A page pool's fragments and its pages' own pool -- "page_pool: add
 * interface to manipulate frag count in page pool" and "page_pool: keep
 * pp info as long as page pool owns the page" (v5.14): a pool hands out
 * parts of a page (page_pool_alloc_frag()), every page names its pool
 * (page->pp, which pp_page_to_nmdesc() reads), and skb_mark_for_recycle()
 * makes freeing an skb give its pages back to their pool. mt76 rests on
 * all three. Before 5.14 struct page has no room the pool owns for a
 * pointer, a pool cuts no fragments and the network stack gives no page
 * back to a pool. So, below 5.14, as drivers did then:
 *  - page_pool_alloc_frag() hands out a whole page at offset 0 (every
 *    size mt76 asks for fits one: its pools are of order 0, and a larger
 *    size fails as upstream's does), and records the pool in the page's
 *    private word, with a signature in its index word: words the 5.10
 *    pool leaves alone (it keeps its DMA address in the first two);
 *  - pp_page_to_nmdesc(page)->pp reads that record (NULL on a page that
 *    has none), and page_pool_put_full_page() clears it before the page
 *    goes back to its pool, or frees a page that no longer has one;
 *  - an skb marked for recycling, and every fragment such a pool page
 *    becomes (skb_add_rx_frag()), releases its page from the pool
 *    (page_pool_release_page(): unmapped, no longer counted in flight),
 *    so the stack frees it as any page. No page is recycled through the
 *    stack, which 5.10 cannot do; none leaks, and page_pool_destroy()
 *    finds nothing in flight.
 * Structural (members of struct page and struct sk_buff).
 */
#if RETROFI_LINUX_LESS(5, 14, 0)
#include <linux/mm.h>
#include <linux/poison.h>
#include <linux/skbuff.h>

#define RETROFI_PP_SIGNATURE (0x40UL + POISON_POINTER_DELTA)

struct retrofi_pp_desc {
	struct page_pool *pp;
};

static inline struct page_pool *retrofi_page_pool_of(struct page *page)
{
	if (page->index != RETROFI_PP_SIGNATURE)
		return NULL;
	return (struct page_pool *)page_private(page);
}

static inline void retrofi_page_pool_forget(struct page *page)
{
	page->index = 0;
	set_page_private(page, 0);
}

#define pp_page_to_nmdesc(page) \
	(&(struct retrofi_pp_desc){ .pp = retrofi_page_pool_of(page) })

static inline struct page *
LINUX_BACKPORT(page_pool_alloc_frag)(struct page_pool *pool,
				     unsigned int *offset, unsigned int size,
				     gfp_t gfp)
{
	struct page *page;

	if (WARN_ON(size > (PAGE_SIZE << pool->p.order)))
		return NULL;
	page = page_pool_alloc_pages(pool, gfp);
	if (!page)
		return NULL;
	page->index = RETROFI_PP_SIGNATURE;
	set_page_private(page, (unsigned long)pool);
	*offset = 0;
	return page;
}
#define page_pool_alloc_frag LINUX_BACKPORT(page_pool_alloc_frag)

static inline struct page *
LINUX_BACKPORT(page_pool_dev_alloc_frag)(struct page_pool *pool,
					 unsigned int *offset,
					 unsigned int size)
{
	return page_pool_alloc_frag(pool, offset, size,
				    GFP_ATOMIC | __GFP_NOWARN);
}
#define page_pool_dev_alloc_frag LINUX_BACKPORT(page_pool_dev_alloc_frag)

static inline void
LINUX_BACKPORT(page_pool_put_full_page)(struct page_pool *pool,
					struct page *page, bool allow_direct)
{
	if (!pool) {
		put_page(page);
		return;
	}
	retrofi_page_pool_forget(page);
	page_pool_put_full_page(pool, page, allow_direct);
}
#define page_pool_put_full_page LINUX_BACKPORT(page_pool_put_full_page)

static inline void retrofi_page_pool_release(struct page *page)
{
	struct page_pool *pool = retrofi_page_pool_of(page);

	if (!pool)
		return;
	retrofi_page_pool_forget(page);
	page_pool_release_page(pool, page);
}

static inline void LINUX_BACKPORT(skb_mark_for_recycle)(struct sk_buff *skb)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	int i;

	if (!skb->head_frag)
		return;
	retrofi_page_pool_release(virt_to_head_page(skb->head));
	for (i = 0; i < shinfo->nr_frags; i++)
		retrofi_page_pool_release(skb_frag_page(&shinfo->frags[i]));
}
#define skb_mark_for_recycle LINUX_BACKPORT(skb_mark_for_recycle)

static inline void LINUX_BACKPORT(skb_add_rx_frag)(struct sk_buff *skb, int i,
						   struct page *page, int off,
						   int size,
						   unsigned int truesize)
{
	retrofi_page_pool_release(page);
	skb_add_rx_frag(skb, i, page, off, size, truesize);
}
#define skb_add_rx_frag LINUX_BACKPORT(skb_add_rx_frag)
RETROFI_CENSUS(page_pool_frag, "5.14", "structural",
	       "page_pool: keep pp info as long as page pool owns the page (v5.14)");
#endif /* < 5.14 */

/*
 * page_pool_ethtool_stats_get_count(), _get_strings() and _get() --
 * "page_pool: Add function to batch and return stats" and "net:
 * page_pool: introduce ethtool stats" (v6.0; titles not verified): a
 * pool's counters for a driver's ethtool statistics (mt76's mt7915 and
 * mt792x). Before 6.0 a pool keeps no counters, which is what upstream's
 * helpers say without CONFIG_PAGE_POOL_STATS: none, and no strings; these
 * are those bodies. Structural (a kernel older than 6.0 has no such
 * configuration), by version.
 */
#if RETROFI_LINUX_LESS(6, 0, 0)
static inline int page_pool_ethtool_stats_get_count(void)
{
	return 0;
}

static inline u8 *page_pool_ethtool_stats_get_strings(u8 *data)
{
	return data;
}

static inline u64 *page_pool_ethtool_stats_get(u64 *data, const void *stats)
{
	return data;
}
RETROFI_CENSUS(page_pool_ethtool_stats, "6.0", "structural",
	       "net: page_pool: introduce ethtool stats (v6.0; title not verified)");
#endif /* < 6.0 */

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
