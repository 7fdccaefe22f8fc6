/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: the cases of the additive shims that take the
 * stack back to 2.6.21 API shapes (lists, skbs, Ethernet addresses,
 * allocation sizes, time, netlink). Included by retrofi_selftest.c before
 * its table; retrofi_selftest_shapes_cases.h is this file's part of it. Each
 * case checks the API against values worked out by hand (never against the
 * target's own implementation), and the table entry makes the case fail at
 * a forced API level if the call does not resolve to the backport_ shim.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <net/netlink.h>

/* ---- <linux/list.h> */

static const char *test_list_first_and_last_entry(void)
{
	LIST_HEAD(a);

	fill(&a, 0, 3);
	if (list_first_entry(&a, struct item, node) != &items[0])
		return "list_first_entry is not item 0";
	return list_last_entry(&a, struct item, node) == &items[2] ?
		NULL : "list_last_entry is not item 2";
}

static const char *test_list_first_entry_picks_the_head(void)
{
	LIST_HEAD(a);

	fill(&a, 3, 2);
	return list_first_entry(&a, struct item, node)->v == 3 ?
		NULL : "first entry's value is not 3";
}

static const char *test_list_last_entry_of_one(void)
{
	LIST_HEAD(a);

	fill(&a, 5, 1);
	return list_last_entry(&a, struct item, node) == &items[5] ?
		NULL : "last entry of a one-entry list is not that entry";
}

static const char *test_list_next_entry_walks_forward(void)
{
	LIST_HEAD(a);
	struct item *it;

	fill(&a, 0, 3);
	it = list_next_entry(&items[0], node);
	if (it != &items[1])
		return "next of item 0 is not item 1";
	it = list_next_entry(&items[2], node);
	return &it->node == &a ? NULL : "next of the last entry is not the head";
}

static const char *test_list_first_entry_or_null(void)
{
	LIST_HEAD(a);

	if (list_first_entry_or_null(&a, struct item, node))
		return "empty list gives an entry";
	fill(&a, 1, 2);
	return list_first_entry_or_null(&a, struct item, node) == &items[1] ?
		NULL : "first entry is not item 1";
}

/* ---- <linux/skbuff.h> */

static const char *test_skb_put_zero_appends_zeroes(void)
{
	struct sk_buff *skb = alloc_skb(32, GFP_KERNEL);
	u8 *p;
	bool ok;

	if (!skb)
		return "out of memory";
	memset(skb->data, 0xaa, 32);
	p = skb_put_zero(skb, 4);
	ok = p == skb->data && skb->len == 4 && !p[0] && !p[3] &&
		skb->data[4] == 0xaa;
	kfree_skb(skb);
	return ok ? NULL : "4 zero bytes not appended at the start";
}

static const char *test_skb_put_data_appends_a_copy(void)
{
	static const u8 a[] = { 1, 2, 3 }, b[] = { 4, 5 };
	struct sk_buff *skb = alloc_skb(32, GFP_KERNEL);
	u8 *p;
	bool ok;

	if (!skb)
		return "out of memory";
	skb_put_data(skb, a, sizeof(a));
	p = skb_put_data(skb, b, sizeof(b));
	ok = p == skb->data + 3 && skb->len == 5 && skb->data[0] == 1 &&
		skb->data[2] == 3 && skb->data[3] == 4 && skb->data[4] == 5;
	kfree_skb(skb);
	return ok ? NULL : "data is not 1 2 3 4 5, or the pointer is not at 3";
}

static const char *test_skb_put_u8_appends_a_byte(void)
{
	struct sk_buff *skb = alloc_skb(8, GFP_KERNEL);
	bool ok;

	if (!skb)
		return "out of memory";
	skb_put_u8(skb, 0x5a);
	skb_put_u8(skb, 0xa5);
	ok = skb->len == 2 && skb->data[0] == 0x5a && skb->data[1] == 0xa5;
	kfree_skb(skb);
	return ok ? NULL : "bytes are not 5a a5";
}

static const char *test_skb_tail_pointer_follows_put(void)
{
	struct sk_buff *skb = alloc_skb(16, GFP_KERNEL);
	bool ok;

	if (!skb)
		return "out of memory";
	skb_reserve(skb, 4);
	skb_put(skb, 6);
	ok = skb_tail_pointer(skb) == skb->data + 6 &&
		skb_tail_pointer(skb) == skb->head + 10;
	kfree_skb(skb);
	return ok ? NULL : "tail is not data + 6";
}

static const char *test_skb_mac_header_after_reset(void)
{
	struct sk_buff *skb = alloc_skb(32, GFP_KERNEL);
	bool ok;

	if (!skb)
		return "out of memory";
	skb_reserve(skb, 8);
	skb_reset_mac_header(skb);
	ok = skb_mac_header(skb) == skb->head + 8;
	kfree_skb(skb);
	return ok ? NULL : "mac header is not head + 8";
}

static const char *test_skb_reset_mac_header_at_data(void)
{
	struct sk_buff *skb = alloc_skb(32, GFP_KERNEL);
	bool ok;

	if (!skb)
		return "out of memory";
	skb_reserve(skb, 12);
	skb_reset_mac_header(skb);
	ok = skb->mac_header == 12;
	kfree_skb(skb);
	return ok ? NULL : "mac_header offset is not 12";
}

static const char *test_skb_reset_network_header_at_data(void)
{
	struct sk_buff *skb = alloc_skb(32, GFP_KERNEL);
	bool ok;

	if (!skb)
		return "out of memory";
	skb_reserve(skb, 6);
	skb_reset_network_header(skb);
	ok = skb->network_header == 6;
	kfree_skb(skb);
	return ok ? NULL : "network_header offset is not 6";
}

static const char *test_skb_set_network_header_at_offset(void)
{
	struct sk_buff *skb = alloc_skb(32, GFP_KERNEL);
	bool ok;

	if (!skb)
		return "out of memory";
	skb_reserve(skb, 2);
	skb_set_network_header(skb, 14);
	ok = skb->network_header == 16;
	kfree_skb(skb);
	return ok ? NULL : "network_header offset is not 2 + 14";
}

static const char *test_skb_get_queue_mapping(void)
{
	struct sk_buff *skb = alloc_skb(0, GFP_KERNEL);
	bool ok;

	if (!skb)
		return "out of memory";
	skb->queue_mapping = 3;
	ok = skb_get_queue_mapping(skb) == 3;
	kfree_skb(skb);
	return ok ? NULL : "queue mapping is not 3";
}

static const char *test_skb_checksum_start_offset(void)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);
	bool ok;

	if (!skb)
		return "out of memory";
	skb_reserve(skb, 16);
	skb->csum_start = 16 + 20;	/* headroom + 20 */
	ok = skb_checksum_start_offset(skb) == 20;
	kfree_skb(skb);
	return ok ? NULL : "checksum start is not data + 20";
}

static const char *test_skb_mark_not_on_list(void)
{
	struct sk_buff *skb = alloc_skb(0, GFP_KERNEL);
	bool ok;

	if (!skb)
		return "out of memory";
	skb->next = skb;
	skb_mark_not_on_list(skb);
	ok = !skb->next;
	kfree_skb(skb);
	return ok ? NULL : "next is not NULL";
}

/* Queues of n skbs with data[0] = first, first + 1, ... */
static bool fill_queue(struct sk_buff_head *q, int first, int n)
{
	int i;

	__skb_queue_head_init(q);
	for (i = 0; i < n; i++) {
		struct sk_buff *skb = alloc_skb(1, GFP_KERNEL);

		if (!skb)
			return false;
		skb_put_u8(skb, first + i);
		__skb_queue_tail(q, skb);
	}
	return true;
}

/* Whether q holds exactly data[0] values want[], in order, and frees it. */
static bool queue_holds(struct sk_buff_head *q, const u8 *want, int n)
{
	struct sk_buff *skb;
	bool ok = (int)skb_queue_len(q) == n;
	int i = 0;

	while ((skb = __skb_dequeue(q))) {
		if (i >= n || skb->data[0] != want[i])
			ok = false;
		i++;
		kfree_skb(skb);
	}
	return ok && i == n;
}

static const char *test_skb_queue_head_init_empties(void)
{
	struct sk_buff_head q;

	q.qlen = 7;
	__skb_queue_head_init(&q);
	if (!skb_queue_empty(&q) || q.qlen)
		return "queue not empty after init";
	return q.next == (struct sk_buff *)&q && q.prev == (struct sk_buff *)&q ?
		NULL : "head does not point at itself";
}

static const char *test_skb_queue_is_last(void)
{
	static const u8 want[] = { 0, 1 };
	struct sk_buff_head q;
	const char *err = NULL;

	if (!fill_queue(&q, 0, 2))
		err = "out of memory";
	else if (skb_queue_is_last(&q, skb_peek(&q)))
		err = "first of two is last";
	else if (!skb_queue_is_last(&q, skb_peek_tail(&q)))
		err = "tail is not last";
	if (!queue_holds(&q, want, 2) && !err)
		err = "queue changed";
	return err;
}

static const char *test_skb_queue_splice_puts_list_first(void)
{
	static const u8 want[] = { 2, 3, 0, 1 };
	struct sk_buff_head a, b;
	const char *err = NULL;

	if (!fill_queue(&a, 0, 2) || !fill_queue(&b, 2, 2))
		err = "out of memory";
	else
		skb_queue_splice(&b, &a);
	if (!queue_holds(&a, want, 4) && !err)
		err = "a is not 2 3 0 1";
	return err;
}

static const char *test_skb_queue_splice_init_empties_source(void)
{
	static const u8 want[] = { 2, 0 };
	struct sk_buff_head a, b;
	const char *err = NULL;

	if (!fill_queue(&a, 0, 1) || !fill_queue(&b, 2, 1))
		err = "out of memory";
	else
		skb_queue_splice_init(&b, &a);
	if (!err && (!skb_queue_empty(&b) || b.qlen))
		err = "source not empty";
	if (!queue_holds(&a, want, 2) && !err)
		err = "a is not 2 0";
	return err;
}

static const char *test_skb_queue_splice_tail_appends(void)
{
	static const u8 want[] = { 0, 1, 2 };
	struct sk_buff_head a, b;
	const char *err = NULL;

	if (!fill_queue(&a, 0, 2) || !fill_queue(&b, 2, 1))
		err = "out of memory";
	else
		skb_queue_splice_tail(&b, &a);
	if (!queue_holds(&a, want, 3) && !err)
		err = "a is not 0 1 2";
	return err;
}

static const char *test_skb_queue_splice_tail_init_empties_source(void)
{
	static const u8 want[] = { 0, 2, 3 };
	struct sk_buff_head a, b;
	const char *err = NULL;

	if (!fill_queue(&a, 0, 1) || !fill_queue(&b, 2, 2))
		err = "out of memory";
	else
		skb_queue_splice_tail_init(&b, &a);
	if (!err && (!skb_queue_empty(&b) || b.qlen))
		err = "source not empty";
	if (!queue_holds(&a, want, 3) && !err)
		err = "a is not 0 2 3";
	return err;
}

/* ---- <linux/etherdevice.h> */

static const u8 mac_a[ETH_ALEN + 2] __aligned(2) = {
	0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0xee, 0xee };
static const u8 mac_b[ETH_ALEN + 2] __aligned(2) = {
	0x02, 0x11, 0x22, 0x33, 0x44, 0x56, 0xee, 0xee };
static const u8 mac_a_padded[ETH_ALEN + 2] __aligned(2) = {
	0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x77, 0x77 };

static const char *test_ether_addr_copy(void)
{
	u8 dst[ETH_ALEN + 2] __aligned(2) = { [6] = 0x99, [7] = 0x99 };

	ether_addr_copy(dst, mac_a);
	if (memcmp(dst, mac_a, ETH_ALEN))
		return "address not copied";
	return dst[6] == 0x99 && dst[7] == 0x99 ? NULL : "copied past 6 bytes";
}

static const char *test_eth_broadcast_addr(void)
{
	u8 a[ETH_ALEN + 1] __aligned(2) = { [6] = 0x42 };
	int i;

	eth_broadcast_addr(a);
	for (i = 0; i < ETH_ALEN; i++)
		if (a[i] != 0xff)
			return "not ff:ff:ff:ff:ff:ff";
	return a[6] == 0x42 ? NULL : "wrote past 6 bytes";
}

static const char *test_eth_zero_addr(void)
{
	u8 a[ETH_ALEN + 1] __aligned(2) = { 1, 2, 3, 4, 5, 6, 0x42 };
	int i;

	eth_zero_addr(a);
	for (i = 0; i < ETH_ALEN; i++)
		if (a[i])
			return "not 00:00:00:00:00:00";
	return a[6] == 0x42 ? NULL : "wrote past 6 bytes";
}

static const char *test_ether_addr_equal(void)
{
	if (!ether_addr_equal(mac_a, mac_a_padded))
		return "equal addresses compare unequal";
	return ether_addr_equal(mac_a, mac_b) ? "last byte differs, yet equal" : NULL;
}

static const char *test_ether_addr_equal_64bits_ignores_padding(void)
{
	if (!ether_addr_equal_64bits(mac_a, mac_a_padded))
		return "the two bytes after the address were compared";
	return ether_addr_equal_64bits(mac_a, mac_b) ? "last byte differs, yet equal" : NULL;
}

static const char *test_eth_random_addr_is_local_unicast(void)
{
	u8 a[ETH_ALEN] __aligned(2), b[ETH_ALEN] __aligned(2);

	eth_random_addr(a);
	eth_random_addr(b);
	if ((a[0] & 0x01) || !(a[0] & 0x02))
		return "not a locally administered unicast address";
	/* 46 random bits each: equal with probability 2^-46. */
	return memcmp(a, b, ETH_ALEN) ? NULL : "two random addresses are equal";
}

static const char *test_is_unicast_ether_addr(void)
{
	static const u8 mcast[ETH_ALEN] __aligned(2) = { 0x01, 0x00, 0x5e, 0, 0, 1 };

	if (!is_unicast_ether_addr(mac_a))
		return "02:11:22:33:44:55 is not unicast";
	return is_unicast_ether_addr(mcast) ? "01:00:5e:00:00:01 is unicast" : NULL;
}

/* ---- <linux/overflow.h> */

struct flex {
	u32 n;
	u16 data[];
};

static const char *test_array_size_saturates(void)
{
	size_t big = SIZE_MAX / 2;

	OPTIMIZER_HIDE_VAR(big);
	if (array_size(6, 7) != 42)
		return "6 * 7 != 42";
	return array_size(big, 3) == SIZE_MAX ? NULL : "overflow does not saturate";
}

static const char *test_struct_size_of_flexible_array(void)
{
	struct flex *f = NULL;
	size_t n = 5, big = SIZE_MAX / 2;

	OPTIMIZER_HIDE_VAR(n);
	OPTIMIZER_HIDE_VAR(big);
	if (struct_size(f, data, 3) != 4 + 3 * 2)
		return "struct_size(f, data, 3) != 10";
	if (struct_size(f, data, n) != 4 + 5 * 2)
		return "struct_size(f, data, n = 5) != 14";
	return struct_size(f, data, big) == SIZE_MAX ? NULL : "overflow does not saturate";
}

static const char *test_flex_array_size(void)
{
	struct flex *f = NULL;
	size_t n = 7, big = SIZE_MAX / 2 + 1;	/* times 2 overflows */

	OPTIMIZER_HIDE_VAR(n);
	OPTIMIZER_HIDE_VAR(big);
	if (flex_array_size(f, data, 4) != 8)
		return "flex_array_size(f, data, 4) != 8";
	if (flex_array_size(f, data, n) != 14)
		return "flex_array_size(f, data, n = 7) != 14";
	return flex_array_size(f, data, big) == SIZE_MAX ? NULL : "overflow does not saturate";
}

/* ---- <linux/slab.h>, <linux/string.h> */

static const char *test_kmalloc_array_refuses_overflow(void)
{
	size_t big = SIZE_MAX / 2;
	u32 *p = kmalloc_array(4, sizeof(u32), GFP_KERNEL);

	if (!p)
		return "4 u32 not allocated";
	p[3] = 1;
	kfree(p);
	OPTIMIZER_HIDE_VAR(big);
	p = kmalloc_array(big, 4, GFP_KERNEL | __GFP_NOWARN);
	kfree(p);
	return p ? "overflowing size allocated" : NULL;
}

/*
 * kfree_sensitive(): every byte of the object, ksize() of them (more than
 * was asked for where the cache rounds up), is zero once it is freed.
 * Reading freed memory is safe only where the allocator promises it: the
 * object comes from a cache of the test's own with SLAB_TYPESAFE_BY_RCU,
 * whose freed objects stay mapped, unpoisoned by KASAN (and by KFENCE and
 * SLUB_RCU_DEBUG, which defer the free), never overwritten by SLUB's
 * poisoning, init_on_free or its free pointer (kept past the object) until
 * an RCU grace period ends -- and the read is inside rcu_read_lock(). No
 * other code allocates from the cache, so nothing reuses the object
 * meanwhile. An object the shim did not free makes kmem_cache_destroy()
 * warn, which fails the boot (the host's splat scan).
 */
#define ST_SENSITIVE_SIZE 52	/* not a multiple of the word: ksize() >= it */

static const char *test_kfree_sensitive_zeroes_every_byte_it_frees(void)
{
	struct kmem_cache *cache;
	const u8 *seen;
	const char *err = NULL;
	size_t ks;
	u8 *p;

	kfree_sensitive(NULL);
	kfree_sensitive(ZERO_SIZE_PTR);
	cache = kmem_cache_create("retrofi_st_sensitive", ST_SENSITIVE_SIZE, 0,
				  SLAB_TYPESAFE_BY_RCU, NULL);
	if (!cache)
		return "kmem_cache_create failed";
	p = kmem_cache_alloc(cache, GFP_KERNEL);
	if (!p) {
		kmem_cache_destroy(cache);
		return "out of memory";
	}
	ks = ksize(p);
	if (ks < ST_SENSITIVE_SIZE) {
		kmem_cache_free(cache, p);
		kmem_cache_destroy(cache);
		return "ksize() is smaller than the object";
	}
	memset(p, 0x5a, ks);
	rcu_read_lock();
	kfree_sensitive(p);
	seen = p;
	OPTIMIZER_HIDE_VAR(seen);
	if (memchr_inv(seen, 0, ks))
		err = "a byte of the freed object is not zero";
	rcu_read_unlock();
	kmem_cache_destroy(cache);
	return err;
}

static const char *test_memzero_explicit(void)
{
	u8 a[16];
	int i;

	memset(a, 0xff, sizeof(a));
	memzero_explicit(a, 12);
	for (i = 0; i < 12; i++)
		if (a[i])
			return "first 12 bytes not zero";
	return a[12] == 0xff && a[15] == 0xff ? NULL : "zeroed past 12 bytes";
}

/* ---- <linux/kernel.h> */

static const char *test_clamp(void)
{
	int v = -5;

	OPTIMIZER_HIDE_VAR(v);
	if (clamp(v, -3, 3) != -3 || clamp(v + 7, -3, 3) != 2 ||
	    clamp(v + 20, -3, 3) != 3)
		return "clamp(-5|2|15, -3, 3) != -3|2|3";
	return clamp(7u, 7u, 9u) == 7u ? NULL : "clamp at the bound is not the bound";
}

static const char *test_div_round_closest(void)
{
	int x = 7, neg = -7;

	OPTIMIZER_HIDE_VAR(x);
	OPTIMIZER_HIDE_VAR(neg);
	if (DIV_ROUND_CLOSEST(x, 2) != 4 || DIV_ROUND_CLOSEST(x, 3) != 2)
		return "7/2 -> 4, 7/3 -> 2 expected";
	if (DIV_ROUND_CLOSEST(neg, 2) != -4)
		return "-7/2 -> -4 expected (halves away from zero)";
	return DIV_ROUND_CLOSEST(10u, 4u) == 3u ? NULL : "10/4 -> 3 expected";
}

/* ---- time */

static const char *test_time_is_before_jiffies(void)
{
	unsigned long now = jiffies;

	if (!time_is_before_jiffies(now - 10))
		return "10 jiffies ago is not before now";
	return time_is_before_jiffies(now + 1000) ? "future is before now" : NULL;
}

static const char *test_time_is_after_jiffies(void)
{
	unsigned long now = jiffies;

	if (!time_is_after_jiffies(now + 1000))
		return "1000 jiffies ahead is not after now";
	return time_is_after_jiffies(now - 10) ? "past is after now" : NULL;
}

static const char *test_time_is_before_eq_jiffies(void)
{
	unsigned long now = jiffies;

	if (!time_is_before_eq_jiffies(now))
		return "now is not before or equal to now";
	return time_is_before_eq_jiffies(now + 1000) ? "future is before now" : NULL;
}

static const char *test_usleep_range_sleeps_at_least_min(void)
{
	ktime_t t0 = ktime_get();
	s64 us;

	usleep_range(2000, 3000);
	us = ktime_us_delta(ktime_get(), t0);
	return us >= 2000 ? NULL : "woke before 2000 us";
}

/*
 * The seconds getters read the clock as of the last tick.  Each is read
 * between two reads of the precise clock, so that a second boundary (or a
 * stalled vCPU) between the reads cannot be taken for a wrong clock.
 */
static const char *test_ktime_get_seconds_is_monotonic_seconds(void)
{
	s64 ns0 = ktime_to_ns(ktime_get());
	time64_t s = ktime_get_seconds();
	s64 ns1 = ktime_to_ns(ktime_get());

	/* The same clock, in seconds, one tick behind at most. */
	if (s > div_s64(ns1, NSEC_PER_SEC) || s < div_s64(ns0, NSEC_PER_SEC) - 1)
		return "not CLOCK_MONOTONIC in seconds";
	return NULL;
}

static const char *test_ktime_get_boottime_seconds(void)
{
	time64_t mono = ktime_get_seconds();
	s64 ns0 = ktime_to_ns(ktime_get_boottime());
	time64_t s = ktime_get_boottime_seconds();
	s64 ns1 = ktime_to_ns(ktime_get_boottime());

	if (s > div_s64(ns1, NSEC_PER_SEC) || s < div_s64(ns0, NSEC_PER_SEC) - 1)
		return "not CLOCK_BOOTTIME in seconds";
	/* Boot time is monotonic time plus time suspended: read later, never behind. */
	return s >= mono ? NULL : "boot time behind monotonic time";
}

/* ---- <net/netlink.h> */

static const char *test_nla_put_and_get_in_addr(void)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);
	const struct nlattr *nla;
	const char *err = NULL;

	if (!skb)
		return "out of memory";
	if (nla_put_in_addr(skb, 7, htonl(0xc0a80001)))
		err = "put failed";
	nla = (const struct nlattr *)skb->data;
	if (!err && (nla->nla_type != 7 || nla->nla_len != NLA_HDRLEN + 4))
		err = "attribute header is not type 7, length 8";
	if (!err && nla_get_in_addr(nla) != htonl(0xc0a80001))
		err = "address is not 192.168.0.1";
	kfree_skb(skb);
	return err;
}

static const char *test_nla_get_in_addr_reads_network_order(void)
{
	struct {
		struct nlattr nla;
		u8 addr[4];
	} a = { { NLA_HDRLEN + 4, 1 }, { 10, 0, 0, 2 } };

	return nla_get_in_addr(&a.nla) == htonl(0x0a000002) ? NULL : "not 10.0.0.2";
}

static const char *test_nla_put_u64_64bit(void)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);
	const struct nlattr *nla;
	const char *err = NULL;
	u64 v;

	if (!skb)
		return "out of memory";
	if (nla_put_u64_64bit(skb, 3, 0x0123456789abcdefULL, 9))
		err = "put failed";
	nla = (const struct nlattr *)skb->data;
	if (!err && nla->nla_type == 9)		/* an alignment pad first */
		nla = (const struct nlattr *)((u8 *)nla + NLA_ALIGN(nla->nla_len));
	memcpy(&v, nla_data(nla), sizeof(v));
	if (!err && (nla->nla_type != 3 || nla->nla_len != NLA_HDRLEN + 8 ||
		     v != 0x0123456789abcdefULL))
		err = "attribute is not type 3 with 0x0123456789abcdef";
	kfree_skb(skb);
	if (err)
		return err;
	skb = alloc_skb(64, GFP_KERNEL);
	if (!skb)
		return "out of memory";
	skb_put(skb, skb_tailroom(skb) - 8);	/* room for 8, not 12 bytes */
	if (nla_put_u64_64bit(skb, 3, 1, 9) != -EMSGSIZE)
		err = "no room, but no -EMSGSIZE";
	kfree_skb(skb);
	return err;
}

static const char *test_nla_memdup(void)
{
	struct {
		struct nlattr nla;
		u8 data[5];
	} a = { { NLA_HDRLEN + 5, 1 }, { 'h', 'e', 'l', 'l', 'o' } };
	char *p = nla_memdup(&a.nla, GFP_KERNEL);
	bool ok = p && !memcmp(p, "hello", 5);

	kfree(p);
	return ok ? NULL : "copy is not hello";
}

static const char *test_nla_nest_start_noflag(void)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);
	struct nlattr *start;
	const char *err = NULL;

	if (!skb)
		return "out of memory";
	start = nla_nest_start_noflag(skb, 5);
	if (start != (struct nlattr *)skb->data)
		err = "nest does not start at the tail";
	else if (start->nla_type != 5)
		err = "type is not 5 (or carries NLA_F_NESTED)";
	else if (nla_put_u8(skb, 1, 7))
		err = "put in the nest failed";
	else if (nla_nest_end(skb, start) != skb->len ||
		 start->nla_len != NLA_HDRLEN + nla_total_size(1))
		err = "nest length wrong";
	kfree_skb(skb);
	return err;
}
