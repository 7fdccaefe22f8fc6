// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat selftest: exercises the compat shims inside a guest and
 * prints KTAP on the console. Built like the backported stack (compat
 * headers first), optionally with API_LEVEL forced low so that the shims,
 * not the target's own definitions, are what runs.
 *
 * retrofi_selftest_api.c builds these cases again as a second module, at an
 * API level forced below every additive shim (Kbuild), with
 * RETROFI_SELFTEST_INLINE_SHIMS_ONLY defined. There a forced shim must be
 * what the case calls: a case whose API resolves to the target's own name
 * fails. The cases of additive shims that compat.ko exports (out of line)
 * are left out of that module and reported as skipped: compat.ko exports a
 * shim only when the target itself needs it, so a reference to it from a
 * module forced below the target's level would not load. This module runs
 * those cases at the target's real API level.
 */
#include <crypto/utils.h>
#include <keys/asymmetric-type.h>
#include <linux/bitfield.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/init.h>
#include <linux/key.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/unaligned.h>
#include <linux/units.h>
#include <linux/virtio_config.h>
#include <net/dropreason.h>
#include <net/netlink.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>
#include <trace/events/skb.h>

#if defined(RETROFI_SELFTEST_INLINE_SHIMS_ONLY) && !RETROFI_API_FORCED
#error "retrofi_selftest_api is built at a forced API level (see Kbuild)"
#endif

/* Last: this file defines the selftest's own trace event. */
#define CREATE_TRACE_POINTS
#include "retrofi_selftest_trace.h"

MODULE_DESCRIPTION("retrofi compat layer selftest (KTAP)");
MODULE_LICENSE("GPL");

struct item {
	struct list_head node;
	int v;
};

static struct item items[8];

/* Build @head from values; returns 0. */
static void fill(struct list_head *head, int first, int n)
{
	int i;

	INIT_LIST_HEAD(head);
	for (i = 0; i < n; i++) {
		items[first + i].v = first + i;
		list_add_tail(&items[first + i].node, head);
	}
}

/* Whether @head holds exactly the values in @want, in order. */
static bool holds(struct list_head *head, const int *want, int n)
{
	struct item *it;
	int i = 0;

	list_for_each_entry(it, head, node) {
		if (i >= n || it->v != want[i])
			return false;
		i++;
	}
	return i == n && head->prev->next == head && head->next->prev == head;
}

static const char *test_splice_tail_appends_in_order(void)
{
	static const int want[] = { 0, 1, 2, 3, 4 };
	LIST_HEAD(a);
	LIST_HEAD(b);

	fill(&a, 0, 2);
	fill(&b, 2, 3);
	list_splice_tail(&b, &a);
	return holds(&a, want, 5) ? NULL : "a is not 0 1 2 3 4";
}

static const char *test_splice_tail_of_empty_list_changes_nothing(void)
{
	static const int want[] = { 0, 1 };
	LIST_HEAD(a);
	LIST_HEAD(empty);

	fill(&a, 0, 2);
	list_splice_tail(&empty, &a);
	return holds(&a, want, 2) ? NULL : "a changed";
}

static const char *test_splice_tail_init_reinitialises_source(void)
{
	static const int want[] = { 0, 1, 2 };
	LIST_HEAD(a);
	LIST_HEAD(b);

	fill(&a, 0, 1);
	fill(&b, 1, 2);
	list_splice_tail_init(&b, &a);
	if (!list_empty(&b))
		return "source list not empty";
	return holds(&a, want, 3) ? NULL : "a is not 0 1 2";
}

static const char *test_cut_position_moves_head_through_entry(void)
{
	static const int cut[] = { 0, 1, 2 };
	static const int rest[] = { 3, 4 };
	LIST_HEAD(a);
	LIST_HEAD(b);

	fill(&a, 0, 5);
	list_cut_position(&b, &a, &items[2].node);
	if (!holds(&b, cut, 3))
		return "cut part is not 0 1 2";
	return holds(&a, rest, 2) ? NULL : "rest is not 3 4";
}

static const char *test_cut_position_at_head_gives_empty_list(void)
{
	static const int all[] = { 0, 1 };
	LIST_HEAD(a);
	struct list_head b;

	fill(&a, 0, 2);
	list_cut_position(&b, &a, &a);
	if (!list_empty(&b))
		return "new list not empty";
	return holds(&a, all, 2) ? NULL : "source changed";
}

static const char *test_cut_position_of_singular_list_takes_it_all(void)
{
	static const int one[] = { 0 };
	LIST_HEAD(a);
	LIST_HEAD(b);

	fill(&a, 0, 1);
	list_cut_position(&b, &a, &items[0].node);
	if (!list_empty(&a))
		return "source not empty";
	return holds(&b, one, 1) ? NULL : "new list is not 0";
}

static const char *test_is_singular(void)
{
	LIST_HEAD(a);

	if (list_is_singular(&a))
		return "empty list is singular";
	fill(&a, 0, 1);
	if (!list_is_singular(&a))
		return "one-entry list is not singular";
	fill(&a, 0, 2);
	return list_is_singular(&a) ? "two-entry list is singular" : NULL;
}

static const char *test_count_nodes(void)
{
	LIST_HEAD(a);

	if (list_count_nodes(&a) != 0)
		return "empty list counts non-zero";
	fill(&a, 0, 7);
	return list_count_nodes(&a) == 7 ? NULL : "7-entry list miscounted";
}

#ifndef RETROFI_SELFTEST_INLINE_SHIMS_ONLY
static const char *test_kmemdup_array_copies_and_refuses_overflow(void)
{
	static const u16 src[] = { 1, 2, 3 };
	const void *hidden = src;
	u16 *dup = kmemdup_array(src, ARRAY_SIZE(src), sizeof(src[0]),
				 GFP_KERNEL);
	bool same = dup && !memcmp(dup, src, sizeof(src));

	kfree(dup);
	if (!same)
		return "copy differs";
	/* Hide the object size so fortify does not reject the call at build time. */
	OPTIMIZER_HIDE_VAR(hidden);
	dup = kmemdup_array(hidden, SIZE_MAX / 2, 4, GFP_KERNEL | __GFP_NOWARN);
	if (dup) {
		kfree(dup);
		return "overflowing size allocated";
	}
	return NULL;
}
#endif

static const char *test_field_prep_const_in_initialiser(void)
{
	static const u32 packed = FIELD_PREP_CONST(GENMASK(7, 4), 3);

	return packed == 0x30 ? NULL : "FIELD_PREP_CONST(GENMASK(7, 4), 3) != 0x30";
}

static const char *test_moved_headers(void)
{
	static const u8 le[] = { 0x34, 0x12, 0x00 };

	/* <linux/unaligned.h> (6.12), <crypto/utils.h> (6.4), KHZ_PER_GHZ (6.9) */
	if (get_unaligned_le16(le + 1) != 0x0012 || get_unaligned_le16(le) != 0x1234)
		return "get_unaligned_le16 misread";
	if (crypto_memneq(le, le, sizeof(le)) || !crypto_memneq(le, le + 1, 2))
		return "crypto_memneq wrong";
	return KHZ_PER_GHZ == 1000000 ? NULL : "KHZ_PER_GHZ != 1000000";
}

static const char *test_class_create_takes_a_name(void)
{
	struct class *c = class_create("retrofi_selftest");

	if (IS_ERR(c))
		return "class_create failed";
	class_destroy(c);
	return NULL;
}

static const char *test_const_full_range_policy_validates(void)
{
	static const struct netlink_range_validation range = { .min = 1, .max = 5 };
	static const struct nla_policy policy[2] = {
		[1] = NLA_POLICY_FULL_RANGE(NLA_U32, &range),
	};
	struct {
		struct nlattr nla;
		u32 v;
	} a = { .nla = { .nla_len = nla_attr_size(sizeof(u32)), .nla_type = 1 } };

	a.v = 3;
	if (nla_validate(&a.nla, sizeof(a), 1, policy, NULL))
		return "in-range value rejected";
	a.v = 7;
	if (nla_validate(&a.nla, sizeof(a), 1, policy, NULL) != -ERANGE)
		return "out-of-range value accepted";
	return NULL;
}

/* kfree_skb_reason(): which skbs the kfree_skb tracepoint saw, and why. */
static struct sk_buff *watched_skb;
static bool watched_dropped;
static unsigned int watched_reason;

#if RETROFI_LINUX_LESS(6, 11, 0)
static void watch_kfree_skb(void *data, struct sk_buff *skb, void *location,
			    enum skb_drop_reason reason)
#else
static void watch_kfree_skb(void *data, struct sk_buff *skb, void *location,
			    enum skb_drop_reason reason, struct sock *rx_sk)
#endif
{
	if (skb == READ_ONCE(watched_skb)) {
		watched_dropped = true;
		watched_reason = reason;
	}
}

static void free_watched(enum skb_drop_reason reason)
{
	struct sk_buff *skb = alloc_skb(0, GFP_KERNEL);

	watched_dropped = false;
	WRITE_ONCE(watched_skb, skb);
	kfree_skb_reason(skb, reason);
	WRITE_ONCE(watched_skb, NULL);
}

static const char *test_kfree_skb_reason_consumed_and_subsystem(void)
{
	const unsigned int mac80211 = (SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE <<
				       SKB_DROP_REASON_SUBSYS_SHIFT) | 1;
#if RETROFI_API_NEED(6, 4, 0, RETROFI_HAVE_drop_reasons_register_subsys)
	const unsigned int want = SKB_DROP_REASON_NOT_SPECIFIED;
#else
	const unsigned int want = mac80211;
#endif
	const char *err = NULL;

	if (register_trace_kfree_skb(watch_kfree_skb, NULL))
		return "cannot watch the kfree_skb tracepoint";
	free_watched(SKB_CONSUMED);
	if (watched_dropped)
		err = "SKB_CONSUMED reported as a drop";
	free_watched(mac80211);
	if (!err && !watched_dropped)
		err = "subsystem reason not reported as a drop";
	else if (!err && watched_reason != want)
		err = "subsystem reason reported with the wrong value";
	free_watched(SKB_DROP_REASON_PKT_TOO_SMALL);
	if (!err && (!watched_dropped ||
		     watched_reason != SKB_DROP_REASON_PKT_TOO_SMALL))
		err = "core reason not passed through";
	unregister_trace_kfree_skb(watch_kfree_skb, NULL);
	tracepoint_synchronize_unregister();
	return err;
}

/* virtio_find_vqs() with struct virtqueue_info, on a fake transport. */
static struct {
	unsigned int nvqs;
	const char *names[2];
	vq_callback_t *callbacks[2];
	bool ctx[2];
} seen_vqs;

static void fake_vq_done(struct virtqueue *vq)
{
}

#if RETROFI_LINUX_LESS(6, 11, 0)
static int fake_find_vqs(struct virtio_device *vdev, unsigned int nvqs,
			 struct virtqueue *vqs[], vq_callback_t *callbacks[],
			 const char * const names[], const bool *ctx,
			 struct irq_affinity *desc)
{
	unsigned int i;

	seen_vqs.nvqs = nvqs;
	for (i = 0; i < nvqs && i < 2; i++) {
		seen_vqs.names[i] = names[i];
		seen_vqs.callbacks[i] = callbacks[i];
		seen_vqs.ctx[i] = ctx && ctx[i];
		vqs[i] = NULL;
	}
	return 0;
}
#else
static int fake_find_vqs(struct virtio_device *vdev, unsigned int nvqs,
			 struct virtqueue *vqs[],
			 struct virtqueue_info vqs_info[],
			 struct irq_affinity *desc)
{
	unsigned int i;

	seen_vqs.nvqs = nvqs;
	for (i = 0; i < nvqs && i < 2; i++) {
		seen_vqs.names[i] = vqs_info[i].name;
		seen_vqs.callbacks[i] = vqs_info[i].callback;
		seen_vqs.ctx[i] = vqs_info[i].ctx;
		vqs[i] = NULL;
	}
	return 0;
}
#endif

static const struct virtio_config_ops fake_virtio_ops = {
	.find_vqs = fake_find_vqs,
};

static const char *test_virtio_find_vqs_passes_each_queue(void)
{
	struct virtqueue_info info[2] = {
		{ "tx", fake_vq_done },
		{ "rx", NULL, true },
	};
	struct virtio_device *vdev = kzalloc(sizeof(*vdev), GFP_KERNEL);
	struct virtqueue *vqs[2];
	int err;

	if (!vdev)
		return "out of memory";
	vdev->config = &fake_virtio_ops;
	err = virtio_find_vqs(vdev, 2, vqs, info, NULL);
	kfree(vdev);
	if (err)
		return "virtio_find_vqs failed";
	if (seen_vqs.nvqs != 2 || strcmp(seen_vqs.names[0], "tx") ||
	    strcmp(seen_vqs.names[1], "rx"))
		return "queue names not passed";
	if (seen_vqs.callbacks[0] != fake_vq_done || seen_vqs.callbacks[1])
		return "callbacks not passed";
	return !seen_vqs.ctx[0] && seen_vqs.ctx[1] ? NULL : "ctx flags not passed";
}

#ifndef RETROFI_SELFTEST_INLINE_SHIMS_ONLY
static const char *test_x509_load_certificate_list_refuses_garbage(void)
{
#ifdef CONFIG_KEYS
	/* An ASN.1 SEQUENCE claiming 32 KiB, cut short after 5 bytes. */
	static const u8 garbage[] = { 0x30, 0x82, 0x7f, 0xfc, 0x00 };
	struct key *keyring;
	unsigned long keys;
	int ret;

	keyring = keyring_alloc("retrofi_selftest", GLOBAL_ROOT_UID,
				GLOBAL_ROOT_GID, current_cred(),
				KEY_POS_ALL | KEY_USR_VIEW | KEY_USR_READ,
				KEY_ALLOC_NOT_IN_QUOTA, NULL, NULL);
	if (IS_ERR(keyring))
		return "keyring_alloc failed";
	ret = x509_load_certificate_list(garbage, sizeof(garbage), keyring);
	keys = keyring->keys.nr_leaves_on_tree;
	key_put(keyring);
	if (ret)
		return "a malformed list is not an error upstream";
	return keys ? "a malformed list loaded a key" : NULL;
#else
	return NULL;
#endif
}
#endif

static const char *test_trace_event_with_one_argument_assign_str(void)
{
	/* Builds only if __assign_str(dst) works; fires if the event is on. */
	trace_retrofi_selftest_str("retrofi", 1);
	return NULL;
}

struct selftest {
	const char *name;
	const char *(*fn)(void);	/* NULL: left out of this build */
	const char *api;	/* the API as the stack calls it */
	const char *shim;	/* the name the stack's calls resolve to */
	unsigned int since;	/* additive shim: upstream since; else 0 */
};

/* A case of an API the target provides or a structural shim adapts. */
#define T(fn, sym) { #fn, test_ ## fn, #sym, __stringify(sym), 0 }
/*
 * A case of an additive shim that LINUX_BACKPORT() renames, for an API
 * upstream since a.b.c: at an API level forced below that, the case must
 * call backport_sym.
 */
#define TA(fn, sym, a, b, c) \
	{ #fn, test_ ## fn, #sym, __stringify(sym), KERNEL_VERSION(a, b, c) }
/* The same, for a shim that compat.ko exports (defined out of line). */
#ifdef RETROFI_SELFTEST_INLINE_SHIMS_ONLY
#define TX(fn, sym, a, b, c) \
	{ #fn, NULL, #sym, __stringify(sym), KERNEL_VERSION(a, b, c) }
#else
#define TX(fn, sym, a, b, c) TA(fn, sym, a, b, c)
#endif

static const struct selftest tests[] = {
	TA(splice_tail_appends_in_order, list_splice_tail, 2, 6, 27),
	TA(splice_tail_of_empty_list_changes_nothing, list_splice_tail, 2, 6, 27),
	TA(splice_tail_init_reinitialises_source, list_splice_tail_init, 2, 6, 27),
	TA(cut_position_moves_head_through_entry, list_cut_position, 2, 6, 27),
	TA(cut_position_at_head_gives_empty_list, list_cut_position, 2, 6, 27),
	TA(cut_position_of_singular_list_takes_it_all, list_cut_position, 2, 6, 27),
	TA(is_singular, list_is_singular, 2, 6, 27),
	TA(count_nodes, list_count_nodes, 6, 3, 0),
	TX(kmemdup_array_copies_and_refuses_overflow, kmemdup_array, 6, 9, 0),
	T(field_prep_const_in_initialiser, FIELD_PREP_CONST),
	T(moved_headers, get_unaligned_le16),
	T(class_create_takes_a_name, class_create),
	T(const_full_range_policy_validates, nla_validate),
	TA(kfree_skb_reason_consumed_and_subsystem, kfree_skb_reason, 6, 4, 0),
	T(virtio_find_vqs_passes_each_queue, virtio_find_vqs),
	TX(x509_load_certificate_list_refuses_garbage, x509_load_certificate_list,
	   6, 3, 0),
	T(trace_event_with_one_argument_assign_str, trace_retrofi_selftest_str),
};

#define V_MAJOR(v) (((v) >> 16) & 0xff)
#define V_MINOR(v) (((v) >> 8) & 0xff)
#define V_SUB(v) ((v) & 0xff)

/* Whether the API level is forced below the case's additive shim. */
static bool shim_forced(const struct selftest *t)
{
	return RETROFI_API_FORCED && t->since > RETROFI_API_CODE;
}

/*
 * At a forced API level, an additive shim for an API newer than the level
 * is what the case must call: its name must be the shim's, backport_<api>.
 */
static const char *check_shim_in_force(const struct selftest *t)
{
	static const char prefix[] = "backport_";	/* LINUX_BACKPORT() */

	if (!shim_forced(t))
		return NULL;
	if (strncmp(t->shim, prefix, sizeof(prefix) - 1) ||
	    strcmp(t->shim + sizeof(prefix) - 1, t->api))
		return "resolves to the target's own API, not the compat shim";
	return NULL;
}

static int __init retrofi_selftest_init(void)
{
	int i, failed = 0, skipped = 0;

	pr_info("KTAP version 1\n");
	pr_info("# retrofi compat selftest %s: api level %u.%u.%u on %u.%u.%u%s\n",
		KBUILD_MODNAME, V_MAJOR(RETROFI_API_CODE),
		V_MINOR(RETROFI_API_CODE), V_SUB(RETROFI_API_CODE),
		V_MAJOR(LINUX_VERSION_CODE), V_MINOR(LINUX_VERSION_CODE),
		V_SUB(LINUX_VERSION_CODE),
		RETROFI_API_FORCED ? " (forced)" : "");
	pr_info("1..%zu\n", ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		const struct selftest *t = &tests[i];
		const char *err, *forced;

		if (!t->fn) {
			skipped++;
			pr_info("ok %d %s # SKIP exported shim %s: compat.ko exports it only for targets that need it; retrofi_selftest runs this case at the real API level\n",
				i + 1, t->name, t->shim);
			continue;
		}
		err = t->fn();
		forced = check_shim_in_force(t);
		if (shim_forced(t))
			pr_info("# %s: uses %s (api level below %u.%u.%u: the shim must run)\n",
				t->name, t->shim, V_MAJOR(t->since),
				V_MINOR(t->since), V_SUB(t->since));
		else
			pr_info("# %s: uses %s\n", t->name, t->shim);
		if (forced)
			pr_info("# %s: %s %s\n", t->name, t->api, forced);
		if (err)
			pr_info("# %s: %s\n", t->name, err);
		if (err || forced) {
			failed++;
			pr_info("not ok %d %s\n", i + 1, t->name);
		} else {
			pr_info("ok %d %s\n", i + 1, t->name);
		}
	}
	pr_info("# retrofi compat selftest %s: %d passed, %d failed, %d skipped\n",
		KBUILD_MODNAME, (int)ARRAY_SIZE(tests) - failed - skipped,
		failed, skipped);
	return 0;
}
static void __exit retrofi_selftest_exit(void)
{
}

module_init(retrofi_selftest_init);
module_exit(retrofi_selftest_exit);
