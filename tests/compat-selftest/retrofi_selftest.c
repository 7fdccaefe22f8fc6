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
#include <linux/acpi_amd_wbrf.h>
#include <linux/device.h>
#include <linux/if_ether.h>
#include <linux/init.h>
#include <linux/ip.h>
#include <linux/key.h>
#include <linux/leds.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/trace.h>
#include <linux/trace_events.h>
#include <linux/udp.h>
#include <linux/unaligned.h>
#include <linux/units.h>
#include <linux/virtio_config.h>
#include <net/checksum.h>
#include <net/dropreason.h>
#include <net/genetlink.h>
#include <net/gso.h>
#include <net/ip.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>
#include <trace/events/skb.h>

#if defined(RETROFI_SELFTEST_INLINE_SHIMS_ONLY) && !RETROFI_API_FORCED
#error "retrofi_selftest_api is built at a forced API level (see Kbuild)"
#endif

/* Last: this file defines the selftest's own trace events, two headers. */
#define CREATE_TRACE_POINTS
#include "retrofi_selftest_trace.h"
#include "retrofi_selftest_trace_class.h"

MODULE_DESCRIPTION("retrofi compat layer selftest (KTAP)");
MODULE_LICENSE("GPL");

/*
 * A namespaced export and its import, written as the stack writes them
 * (a string namespace, 6.13's form: <linux/export.h>, <linux/module.h>).
 * test_compat.py reads them back from the built module: the namespace
 * must be RETROFI_SELFTEST, with no quotes of its own. Only in
 * retrofi_selftest.ko (its two siblings would export the same name).
 */
#if !defined(RETROFI_PROBES_OFF) && !defined(RETROFI_SELFTEST_INLINE_SHIMS_ONLY)
int retrofi_selftest_namespaced(void);
int retrofi_selftest_namespaced(void)
{
	return 0;
}
EXPORT_SYMBOL_NS_GPL(retrofi_selftest_namespaced, "RETROFI_SELFTEST");
MODULE_IMPORT_NS("RETROFI_SELFTEST");
#endif

/*
 * A case that cannot run on this target returns SKIP("why"): the runner
 * reports it as a SKIP with that reason, never as a pass.
 */
#define SKIP_PREFIX "SKIP: "
#define SKIP(why) (SKIP_PREFIX why)

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

static const char *test_cut_position_at_head_of_singular_list_gives_empty_list(void)
{
	static const int one[] = { 0 };
	LIST_HEAD(a);
	struct list_head b;

	fill(&a, 0, 1);
	list_cut_position(&b, &a, &a);
	if (!list_empty(&b))
		return "new list not empty";
	return holds(&a, one, 1) ? NULL : "source changed";
}

/*
 * ath9k's three calls in xmit.c, each with the lists its caller has there
 * (a frame is the buffers first..last_of[first], in a row on one list):
 * what 6.12's list_cut_position() gives, and at a forced API level the
 * seed's, which BUG()s on any other arguments.
 */
static int last_of[ARRAY_SIZE(items)];

static struct list_head *frame_last(int first)
{
	return &items[last_of[first]].node;
}

static const char *test_cut_position_as_ath9k_xmit_calls_it(void)
{
	static const int frames[][3] = { { 0, 1, 2 }, { 3, 3, 3 }, { 4, 4, 4 } };
	static const int held[] = { 1, 2, 3 }, first[] = { 0 };
	static const int fifo_cut[] = { 0, 1 }, fifo_rest[] = { 2, 3 };
	LIST_HEAD(q);
	LIST_HEAD(bf_head);
	int i;

	/* ath_drain_txq_list(): frames 0-2, 3 and 4; the last cut is singular. */
	fill(&q, 0, 5);
	for (i = 0; i < 5; i++)
		last_of[i] = i < 3 ? 2 : i;
	for (i = 0; i < 3; i++) {
		struct item *bf = list_first_entry(&q, struct item, node);
		int n = frames[i][2] - frames[i][0] + 1;

		if (list_empty(&q) || bf->v != frames[i][0])
			return "drain: frames out of order";
		list_cut_position(&bf_head, &q, frame_last(bf->v));
		if (!holds(&bf_head, frames[i], n))
			return "drain: a frame was not cut whole";
	}
	if (!list_empty(&q))
		return "drain: queue not empty";

	/* ath_tx_processq(): cut up to the frame's last buffer, which stays. */
	fill(&q, 0, 4);
	last_of[0] = 1;
	if (list_is_singular(frame_last(0)))
		return "processq: two-frame queue taken for singular";
	list_cut_position(&bf_head, &q, frame_last(0)->prev);
	if (!holds(&bf_head, first, 1) || !holds(&q, held, 3))
		return "processq: not cut before the holding buffer";
	/* A one-buffer frame first: cut at the head, nothing moves. */
	last_of[1] = 1;
	list_cut_position(&bf_head, &q, frame_last(1)->prev);
	if (!list_empty(&bf_head) || !holds(&q, held, 3))
		return "processq: cut at the head moved buffers";
	/* Its only frame: the caller does not cut (list_is_singular()). */
	fill(&q, 0, 1);
	last_of[0] = 0;
	if (!list_is_singular(frame_last(0)))
		return "processq: one-buffer queue not singular";

	/* ath_tx_edma_tasklet(): the last buffer is not the FIFO's last. */
	fill(&q, 0, 4);
	last_of[0] = 2;
	if (list_is_last(frame_last(0), &q))
		return "edma: last buffer taken for the FIFO's last";
	list_cut_position(&bf_head, &q, frame_last(0)->prev);
	if (!holds(&bf_head, fifo_cut, 2) || !holds(&q, fifo_rest, 2))
		return "edma: not cut before the frame's last buffer";
	return NULL;
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

/*
 * FIELD_PREP_CONST() (6.3) is a constant expression, for initialisers: a
 * compile-time fact, so checked at build time (a static_assert needs an
 * integer constant expression too). The values are worked out by hand.
 */
static_assert(FIELD_PREP_CONST(GENMASK(7, 4), 3) == 0x30);
static_assert(FIELD_PREP_CONST(GENMASK(31, 28), 0xf) == 0xf0000000u);
static_assert(FIELD_PREP_CONST(GENMASK_ULL(47, 40), 0xa5) == 0xa50000000000ull);
static_assert(FIELD_PREP_CONST(BIT(0), 1) == 1);

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
	struct device *dev, *found;
	const char *err = NULL;

	if (IS_ERR(c))
		return "class_create failed";
	if (strcmp(c->name, "retrofi_selftest"))
		err = "class has another name";
#if RETROFI_LINUX_LESS(6, 4, 0)
	else if (c->owner != THIS_MODULE)
		err = "class is not owned by the calling module";
#endif
	dev = device_create(c, NULL, MKDEV(0, 0), NULL, "retrofi_selftest%d", 0);
	if (IS_ERR(dev)) {
		class_destroy(c);
		return "device_create in the class failed";
	}
	found = class_find_device_by_name(c, "retrofi_selftest0");
	if (!err && (found != dev || dev->class != c))
		err = "the device is not found in the class";
	put_device(found);
	device_unregister(dev);
	class_destroy(c);
	/* Destroyed: the name is free again. */
	c = class_create("retrofi_selftest");
	if (IS_ERR(c))
		return err ? err : "class_destroy left the class registered";
	class_destroy(c);
	return err;
}

/* led_trigger_blink*() with delays by value, on an LED of the selftest's. */
static struct {
	unsigned long on, off;
	int calls;
} blinked;

static int st_blink_set(struct led_classdev *led, unsigned long *on,
			unsigned long *off)
{
	blinked.on = *on;
	blinked.off = *off;
	blinked.calls++;
	return 0;
}

static void st_brightness_set(struct led_classdev *led,
			      enum led_brightness b)
{
}

static struct led_trigger st_trigger = { .name = "retrofi-selftest" };

static struct led_classdev st_led = {
	.name = "retrofi-selftest::blink",
	.default_trigger = "retrofi-selftest",
	.brightness_set = st_brightness_set,
	.blink_set = st_blink_set,
};

static const char *test_led_trigger_blink_passes_delays_by_value(void)
{
	const char *err = NULL;

	if (led_trigger_register(&st_trigger))
		return "led_trigger_register failed";
	if (led_classdev_register(NULL, &st_led)) {
		led_trigger_unregister(&st_trigger);
		return "led_classdev_register failed";
	}
	if (st_led.trigger != &st_trigger)
		err = "the LED did not take its default trigger";
	/* The LED blinks in hardware: its blink_set() gets the delays. */
	led_trigger_blink(&st_trigger, 100, 200);
	if (!err && (blinked.calls != 1 || blinked.on != 100 || blinked.off != 200))
		err = "led_trigger_blink: blink_set() did not get 100/200 ms";
	/* One shot blinks in software, inverted here. */
	led_trigger_blink_oneshot(&st_trigger, 30, 40, 1);
	if (!err && (st_led.blink_delay_on != 30 || st_led.blink_delay_off != 40))
		err = "led_trigger_blink_oneshot: software blink is not 30/40 ms";
	if (!err && (!test_bit(LED_BLINK_ONESHOT, &st_led.work_flags) ||
		     !test_bit(LED_BLINK_INVERT, &st_led.work_flags)))
		err = "led_trigger_blink_oneshot: not an inverted one shot";
	led_classdev_unregister(&st_led);
	led_trigger_unregister(&st_trigger);
	return err;
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

static const char *test_const_full_range_signed_policy_validates(void)
{
	static const struct netlink_range_validation_signed range = {
		.min = -5, .max = 5,
	};
	static const struct nla_policy policy[2] = {
		[1] = NLA_POLICY_FULL_RANGE_SIGNED(NLA_S32, &range),
	};
	static const s32 ok[] = { -5, -1, 0, 5 }, bad[] = { -6, 6, S32_MIN };
	struct {
		struct nlattr nla;
		s32 v;
	} a = { .nla = { .nla_len = nla_attr_size(sizeof(s32)), .nla_type = 1 } };
	int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		a.v = ok[i];
		if (nla_validate(&a.nla, sizeof(a), 1, policy, NULL))
			return "in-range value rejected";
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		a.v = bad[i];
		if (nla_validate(&a.nla, sizeof(a), 1, policy, NULL) != -ERANGE)
			return "out-of-range value accepted";
	}
	return NULL;
}

/*
 * genl_split_ops: a family whose pre_doit()/post_doit() hooks take the
 * split op, sent a request over a kernel netlink socket; the hooks must
 * see the operation being run.
 */
#define ST_GENL_CMD 1
#define ST_GENL_FLAGS 0x5a

static struct {
	int pre, doit, post;
	bool right_op;
} genl_seen;

static int st_genl_doit(struct sk_buff *skb, struct genl_info *info)
{
	genl_seen.doit++;
	return 0;
}

static int st_genl_pre_doit(const struct genl_split_ops *ops,
			    struct sk_buff *skb, struct genl_info *info)
{
	genl_seen.pre++;
	genl_seen.right_op = ops->cmd == ST_GENL_CMD &&
			     ops->internal_flags == ST_GENL_FLAGS &&
			     ops->doit == st_genl_doit;
	return 0;
}

static void st_genl_post_doit(const struct genl_split_ops *ops,
			      struct sk_buff *skb, struct genl_info *info)
{
	if (ops->cmd == ST_GENL_CMD && ops->internal_flags == ST_GENL_FLAGS)
		genl_seen.post++;
}

static const struct genl_ops st_genl_ops[] = {
	{
		.cmd = ST_GENL_CMD,
		.doit = st_genl_doit,
		.internal_flags = ST_GENL_FLAGS,
	},
};

static struct genl_family st_genl_family = {
	.name = "retrofi_st",
	.version = 1,
	.module = THIS_MODULE,
	.ops = st_genl_ops,
	.n_ops = ARRAY_SIZE(st_genl_ops),
#if !RETROFI_LINUX_LESS(6, 1, 0)	/* as rule 0202 writes it */
	.resv_start_op = ST_GENL_CMD + 1,
#endif
	.pre_doit = st_genl_pre_doit,
	.post_doit = st_genl_post_doit,
};

/* Send one request for ST_GENL_CMD; the ack's error, or a negative errno. */
static int st_genl_request(struct socket *sock)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr genl;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = st_genl_family.id,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
			.nlmsg_seq = 1,
		},
		.genl = { .cmd = ST_GENL_CMD, .version = 1 },
	};
	struct {
		struct nlmsghdr nlh;
		struct nlmsgerr err;
	} ack;
	struct msghdr msg = { .msg_name = &kernel, .msg_namelen = sizeof(kernel) };
	struct kvec iov = { &req, sizeof(req) };
	int ret;

	ret = kernel_sendmsg(sock, &msg, &iov, 1, sizeof(req));
	if (ret < 0)
		return ret;
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &ack;
	iov.iov_len = sizeof(ack);
	ret = kernel_recvmsg(sock, &msg, &iov, 1, sizeof(ack), MSG_DONTWAIT);
	if (ret < (int)sizeof(ack.nlh) + (int)sizeof(ack.err.error))
		return ret < 0 ? ret : -EPROTO;
	return ack.nlh.nlmsg_type == NLMSG_ERROR ? ack.err.error : -EPROTO;
}

static const char *test_genl_split_ops_hooks_see_the_operation(void)
{
	struct socket *sock;
	const char *err = NULL;
	int ret;

	memset(&genl_seen, 0, sizeof(genl_seen));
	if (genl_register_family(&st_genl_family))
		return "genl_register_family failed";
	ret = sock_create_kern(&init_net, AF_NETLINK, SOCK_RAW, NETLINK_GENERIC,
			       &sock);
	if (ret) {
		genl_unregister_family(&st_genl_family);
		return "no kernel netlink socket";
	}
	ret = st_genl_request(sock);
	sock_release(sock);
	genl_unregister_family(&st_genl_family);
	if (ret)
		return "the request was not acked with 0";
	if (genl_seen.pre != 1 || genl_seen.doit != 1 || genl_seen.post != 1)
		err = "pre_doit, doit and post_doit did not run once each";
	else if (!genl_seen.right_op)
		err = "pre_doit did not get the operation's cmd, flags and doit";
	return err;
}

/*
 * <net/gso.h>: a UDP GSO skb (eth + IPv4 + UDP, 250 bytes in segments of
 * 100) segmented in software, as mac80211 does for a device without GSO.
 */
static const char *check_udp_segment(struct sk_buff *seg, unsigned int payload,
				     u8 first)
{
	const struct iphdr *iph = (const struct iphdr *)skb_network_header(seg);
	struct udphdr *uh = (struct udphdr *)skb_transport_header(seg);
	unsigned int ulen = sizeof(*uh) + payload;
	const u8 *data = (const u8 *)(uh + 1);
	unsigned int i;

	if (seg->len != ETH_HLEN + sizeof(*iph) + ulen ||
	    ntohs(iph->tot_len) != sizeof(*iph) + ulen || ntohs(uh->len) != ulen)
		return "a segment has the wrong length";
	if (ip_fast_csum(iph, iph->ihl))
		return "a segment's IP checksum is wrong";
	if (csum_tcpudp_magic(iph->saddr, iph->daddr, ulen, IPPROTO_UDP,
			      csum_partial(uh, ulen, 0)))
		return "a segment's UDP checksum is wrong";
	for (i = 0; i < payload; i++)
		if (data[i] != (u8)(first + i))
			return "a segment carries the wrong bytes";
	return NULL;
}

static const char *test_gso_segments_a_udp_gso_skb(void)
{
	const unsigned int payload = 250, mss = 100;
	struct sk_buff *skb, *segs, *seg;
	struct ethhdr *eth;
	struct iphdr *iph;
	struct udphdr *uh;
	const char *err = NULL;
	unsigned int i, n = 0;
	u8 *data;

	skb = alloc_skb(NET_SKB_PAD + ETH_HLEN + sizeof(*iph) + sizeof(*uh) + payload,
			GFP_KERNEL);
	if (!skb)
		return "out of memory";
	skb_reserve(skb, NET_SKB_PAD);
	skb_reset_mac_header(skb);
	eth = skb_put_zero(skb, ETH_HLEN);
	eth->h_proto = htons(ETH_P_IP);
	skb_set_network_header(skb, ETH_HLEN);
	iph = skb_put_zero(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = htonl(0xc0000201);		/* 192.0.2.1, documentation */
	iph->daddr = htonl(0xc0000202);
	iph->tot_len = htons(sizeof(*iph) + sizeof(*uh) + payload);
	ip_send_check(iph);
	skb_set_transport_header(skb, ETH_HLEN + sizeof(*iph));
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(4000);
	uh->dest = htons(4001);
	uh->len = htons(sizeof(*uh) + payload);
	uh->check = ~csum_tcpudp_magic(iph->saddr, iph->daddr,
				       sizeof(*uh) + payload, IPPROTO_UDP, 0);
	data = skb_put(skb, payload);
	for (i = 0; i < payload; i++)
		data[i] = i;
	skb->protocol = htons(ETH_P_IP);
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct udphdr, check);
	skb_shinfo(skb)->gso_size = mss;
	skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
	skb_shinfo(skb)->gso_segs = DIV_ROUND_UP(payload, mss);

	/* Each segment: eth + IPv4 + UDP headers and at most mss bytes. */
	if (!skb_gso_validate_mac_len(skb, ETH_HLEN + sizeof(*iph) + sizeof(*uh) + mss) ||
	    skb_gso_validate_mac_len(skb, ETH_HLEN + sizeof(*iph) + sizeof(*uh) + mss - 1)) {
		kfree_skb(skb);
		return "skb_gso_validate_mac_len() misjudges the segment size";
	}
	segs = skb_gso_segment(skb, 0);
	if (IS_ERR_OR_NULL(segs)) {
		kfree_skb(skb);
		return "skb_gso_segment() did not segment";
	}
	consume_skb(skb);
	skb_list_walk_safe(segs, seg, skb) {
		unsigned int len = min(mss, payload - n * mss);

		if (!err && n * mss < payload)
			err = check_udp_segment(seg, len, n * mss);
		n++;
		kfree_skb(seg);
	}
	if (!err && n != DIV_ROUND_UP(payload, mss))
		err = "not 3 segments";
	return err;
}

/* <linux/acpi_amd_wbrf.h>: a device without WBRF support, as mac80211 asks. */
static const char *test_amd_wbrf_reports_no_support(void)
{
	struct wbrf_ranges_in_out ranges = { .num_of_ranges = 1 };
	struct device *dev = root_device_register("retrofi_selftest_wbrf");
	const char *err = NULL;

	if (IS_ERR(dev))
		return "root_device_register failed";
	/* Upstream's values (6.12), which mac80211's wbrf.c fills in. */
	if (MAX_NUM_OF_WBRF_RANGES != 11 || WBRF_RECORD_ADD != 0 ||
	    WBRF_RECORD_REMOVE != 1 || ARRAY_SIZE(ranges.band_list) != 11)
		err = "WBRF constants differ from upstream's";
	else if (acpi_amd_wbrf_supported_producer(dev) ||
		 acpi_amd_wbrf_supported_consumer(dev))
		err = "a device without ACPI WBRF is reported as supported";
#if !IS_ENABLED(CONFIG_AMD_WBRF)
	/* Without the AMD_WBRF driver, as a 6.8+ kernel built without it. */
	else if (acpi_amd_wbrf_add_remove(dev, WBRF_RECORD_ADD, &ranges) != -ENODEV ||
		 amd_wbrf_retrieve_freq_band(dev, &ranges) != -ENODEV ||
		 amd_wbrf_register_notifier(NULL) != -ENODEV ||
		 amd_wbrf_unregister_notifier(NULL) != -ENODEV)
		err = "WBRF calls do not fail with -ENODEV";
#endif
	root_device_unregister(dev);
	return err;
}

/*
 * The drop reason subsystems mac80211 registers its reasons under. The
 * shim of registration is exported by compat.ko (compat/backport-6.4.c).
 */
#ifndef RETROFI_SELFTEST_INLINE_SHIMS_ONLY
static const char * const st_drop_names[] = { "RETROFI_ONE", "RETROFI_TWO" };
static const struct drop_reason_list st_drop_list = {
	.reasons = st_drop_names,
	.n_reasons = ARRAY_SIZE(st_drop_names),
};

static const char *test_drop_reason_subsystems_as_upstream(void)
{
	const u32 reason = (SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE <<
			    SKB_DROP_REASON_SUBSYS_SHIFT) | 1;
	int subsys;

#if RETROFI_API_NEED(6, 4, 0, RETROFI_HAVE_drop_reasons_register_subsys) || \
	RETROFI_LINUX_LESS(7, 0, 0)
	/* Upstream's values (6.12 include/net/dropreason{,-core}.h). */
	if (SKB_DROP_REASON_SUBSYS_CORE != 0 ||
	    SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE != 1 ||
	    SKB_DROP_REASON_SUBSYS_MAC80211_MONITOR != 2 ||
	    SKB_DROP_REASON_SUBSYS_OPENVSWITCH != 3 ||
	    SKB_DROP_REASON_SUBSYS_NUM != 4)
		return "subsystem numbers differ from upstream's";
#else
	/*
	 * "wifi: mac80211: remove RX_DROP" (v7.0) took the mac80211 monitor
	 * subsystem out: openvswitch follows the unusable frames' one.
	 */
	if (SKB_DROP_REASON_SUBSYS_CORE != 0 ||
	    SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE != 1 ||
	    SKB_DROP_REASON_SUBSYS_OPENVSWITCH != 2 ||
	    SKB_DROP_REASON_SUBSYS_NUM <= SKB_DROP_REASON_SUBSYS_OPENVSWITCH)
		return "subsystem numbers differ from upstream's";
#endif
	if (SKB_DROP_REASON_SUBSYS_SHIFT != 16 ||
	    SKB_DROP_REASON_SUBSYS_MASK != 0xffff0000)
		return "subsystem shift or mask differs from upstream's";
	if ((reason & SKB_DROP_REASON_SUBSYS_MASK) >> SKB_DROP_REASON_SUBSYS_SHIFT !=
	    SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE)
		return "a subsystem's reason does not name its subsystem";
	/*
	 * The table (the core's, or the shim's in compat.ko where the core has
	 * none): a free subsystem's entry points to the list while it is
	 * registered, and to nothing after.
	 */
	for (subsys = SKB_DROP_REASON_SUBSYS_NUM - 1; subsys > 0; subsys--)
		if (!rcu_access_pointer(drop_reasons_by_subsys[subsys]))
			break;
	if (!subsys)
		return SKIP("every drop reason subsystem is registered here: none free to register");
	drop_reasons_register_subsys(subsys, &st_drop_list);
	if (rcu_access_pointer(drop_reasons_by_subsys[subsys]) != &st_drop_list) {
		drop_reasons_unregister_subsys(subsys);
		return "registration did not take the list";
	}
	drop_reasons_unregister_subsys(subsys);
	return rcu_access_pointer(drop_reasons_by_subsys[subsys]) ?
	       "unregistration left the list" : NULL;
}
#endif

/* kfree_skb_reason(): which skbs the kfree_skb tracepoint saw, and why. */
static struct sk_buff *watched_skb;
static bool watched_dropped;
static unsigned int watched_reason;

#if RETROFI_LINUX_LESS(5, 17, 0)
/* Before 5.17 the tracepoint has no reason: every drop is unspecified. */
static void watch_kfree_skb(void *data, struct sk_buff *skb, void *location)
{
	const unsigned int reason = SKB_DROP_REASON_NOT_SPECIFIED;
#elif RETROFI_LINUX_LESS(6, 11, 0)
static void watch_kfree_skb(void *data, struct sk_buff *skb, void *location,
			    enum skb_drop_reason reason)
{
#elif RETROFI_LINUX_LESS(7, 2, 0)
static void watch_kfree_skb(void *data, struct sk_buff *skb, void *location,
			    enum skb_drop_reason reason, struct sock *rx_sk)
{
#else
/* "net: constify sk_skb_reason_drop() sock parameter" (v7.2): rx_sk is const. */
static void watch_kfree_skb(void *data, struct sk_buff *skb, void *location,
			    enum skb_drop_reason reason,
			    const struct sock *rx_sk)
{
#endif
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
#if RETROFI_API_NEED(5, 17, 0, RETROFI_HAVE_kfree_skb_reason)
	/* The 5.17 shim: a core without reasons reports every drop unspecified. */
	const unsigned int want = SKB_DROP_REASON_NOT_SPECIFIED;
#elif RETROFI_API_NEED(6, 4, 0, RETROFI_HAVE_drop_reasons_register_subsys)
	const unsigned int want = SKB_DROP_REASON_NOT_SPECIFIED;
#else
	const unsigned int want = mac80211;
#endif
	const char *err = NULL;

	/* mac80211's RX_QUEUED, RX_CONTINUE and its drops must stay apart. */
	if (SKB_NOT_DROPPED_YET == SKB_CONSUMED ||
	    SKB_NOT_DROPPED_YET == SKB_DROP_REASON_NOT_SPECIFIED ||
	    SKB_CONSUMED == SKB_DROP_REASON_NOT_SPECIFIED ||
	    (SKB_NOT_DROPPED_YET | SKB_CONSUMED) & SKB_DROP_REASON_SUBSYS_MASK)
		return "SKB_NOT_DROPPED_YET, SKB_CONSUMED and the unspecified drop are not distinct core reasons";

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
#if !RETROFI_LINUX_LESS(5, 17, 0)	/* an older core has no reasons of its own */
	free_watched(SKB_DROP_REASON_PKT_TOO_SMALL);
#if RETROFI_API_NEED(5, 17, 0, RETROFI_HAVE_kfree_skb_reason)
	if (!err && (!watched_dropped ||
		     watched_reason != SKB_DROP_REASON_NOT_SPECIFIED))
		err = "core reason not reported as an unspecified drop by the 5.17 shim";
#else
	if (!err && (!watched_dropped ||
		     watched_reason != SKB_DROP_REASON_PKT_TOO_SMALL))
		err = "core reason not passed through";
#endif
#endif
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
#if IS_ENABLED(CONFIG_KEYS) && IS_BUILTIN(CONFIG_X509_CERTIFICATE_PARSER)
/*
 * A self-signed RSA-2048 certificate, DER (764 bytes), made once with
 *   openssl req -x509 -newkey rsa:2048 -nodes -keyout st.key -outform DER \
 *     -out st.der -days 36500 -subj "/CN=retrofi selftest" -sha256 \
 *     -addext subjectKeyIdentifier=hash -addext authorityKeyIdentifier=keyid
 * (OpenSSL 3.0) and dumped as bytes; the key was thrown away.
 */
static const u8 st_cert[] = {
	0x30, 0x82, 0x02, 0xf8, 0x30, 0x82, 0x01, 0xe0, 0xa0, 0x03, 0x02, 0x01,
	0x02, 0x02, 0x14, 0x73, 0x28, 0xee, 0x0f, 0x2e, 0x4c, 0x7e, 0x30, 0x30,
	0xba, 0xe0, 0xd0, 0x8d, 0xf7, 0x49, 0x3e, 0xfe, 0xaf, 0x9b, 0xc8, 0x30,
	0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b,
	0x05, 0x00, 0x30, 0x1b, 0x31, 0x19, 0x30, 0x17, 0x06, 0x03, 0x55, 0x04,
	0x03, 0x0c, 0x10, 0x72, 0x65, 0x74, 0x72, 0x6f, 0x66, 0x69, 0x20, 0x73,
	0x65, 0x6c, 0x66, 0x74, 0x65, 0x73, 0x74, 0x30, 0x20, 0x17, 0x0d, 0x32,
	0x36, 0x31, 0x32, 0x30, 0x33, 0x31, 0x36, 0x33, 0x30, 0x33, 0x34, 0x5a,
	0x18, 0x0f, 0x32, 0x31, 0x32, 0x36, 0x31, 0x31, 0x30, 0x39, 0x31, 0x36,
	0x33, 0x30, 0x33, 0x34, 0x5a, 0x30, 0x1b, 0x31, 0x19, 0x30, 0x17, 0x06,
	0x03, 0x55, 0x04, 0x03, 0x0c, 0x10, 0x72, 0x65, 0x74, 0x72, 0x6f, 0x66,
	0x69, 0x20, 0x73, 0x65, 0x6c, 0x66, 0x74, 0x65, 0x73, 0x74, 0x30, 0x82,
	0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d,
	0x01, 0x01, 0x01, 0x05, 0x00, 0x03, 0x82, 0x01, 0x0f, 0x00, 0x30, 0x82,
	0x01, 0x0a, 0x02, 0x82, 0x01, 0x01, 0x00, 0xb6, 0x93, 0x30, 0x9d, 0xb2,
	0xc1, 0xf0, 0x60, 0x71, 0x0b, 0x70, 0x2a, 0x7b, 0xba, 0x95, 0x2d, 0xa6,
	0xd9, 0xa7, 0x88, 0x42, 0x98, 0x4e, 0xcc, 0x61, 0x5e, 0x9a, 0x6d, 0x2c,
	0x03, 0x28, 0xd1, 0x08, 0xd6, 0x2c, 0xd6, 0x5e, 0x65, 0x98, 0x41, 0x62,
	0xe3, 0x90, 0x81, 0x29, 0xc0, 0x9c, 0xc4, 0x97, 0x21, 0x6a, 0x79, 0xce,
	0x55, 0xcf, 0x60, 0xb0, 0xb1, 0xd7, 0x2a, 0xba, 0x07, 0x8d, 0xbe, 0x25,
	0xbc, 0xb9, 0x8b, 0xac, 0xf2, 0x83, 0xb2, 0xd4, 0xe4, 0xa4, 0x2d, 0x8d,
	0xe0, 0x9f, 0x06, 0x6a, 0x49, 0xed, 0xeb, 0xeb, 0xc5, 0x46, 0x96, 0x39,
	0x19, 0x04, 0x53, 0xcd, 0xeb, 0x97, 0x31, 0xef, 0x11, 0x87, 0x9b, 0xc6,
	0x94, 0x20, 0x83, 0x3c, 0xf7, 0xdd, 0xf1, 0x7c, 0x98, 0x55, 0x1b, 0xe2,
	0xad, 0x66, 0xe2, 0x3b, 0x06, 0xf8, 0x30, 0x57, 0xf4, 0x77, 0xd1, 0xd1,
	0x24, 0x67, 0xc8, 0xfe, 0xb8, 0xf1, 0xb6, 0x10, 0xbe, 0xe6, 0x12, 0xa7,
	0x56, 0x2e, 0x68, 0x02, 0x6c, 0x0f, 0xe8, 0x11, 0xd9, 0x11, 0x63, 0xf2,
	0x56, 0x4b, 0x71, 0x7b, 0x2b, 0x34, 0xf6, 0x01, 0x92, 0xd1, 0x18, 0x8d,
	0x39, 0xd4, 0xdd, 0xca, 0x1d, 0x78, 0x21, 0x54, 0x61, 0xcb, 0x08, 0x07,
	0x64, 0x17, 0xbc, 0x35, 0xc0, 0xfa, 0x66, 0x59, 0x7f, 0x70, 0x35, 0xc0,
	0x26, 0x40, 0x93, 0x7a, 0x56, 0x04, 0x6b, 0x8a, 0xad, 0x29, 0x23, 0x03,
	0xd6, 0x3b, 0x76, 0xb6, 0x05, 0xa8, 0x95, 0xac, 0x0b, 0x87, 0x9a, 0x70,
	0x79, 0x24, 0xdc, 0xa8, 0xfa, 0xbc, 0xea, 0x90, 0x2d, 0x55, 0xa9, 0x7b,
	0xf0, 0x2d, 0x74, 0xae, 0x0c, 0xfa, 0x5f, 0xfc, 0x99, 0x0a, 0xb0, 0xc8,
	0x10, 0xf3, 0x92, 0xcc, 0x2a, 0x63, 0xfb, 0x3e, 0x3c, 0x53, 0x3f, 0x96,
	0x23, 0x62, 0x6d, 0x4a, 0x68, 0xbc, 0x10, 0x34, 0xce, 0x9d, 0x87, 0x02,
	0x03, 0x01, 0x00, 0x01, 0xa3, 0x32, 0x30, 0x30, 0x30, 0x0f, 0x06, 0x03,
	0x55, 0x1d, 0x13, 0x01, 0x01, 0xff, 0x04, 0x05, 0x30, 0x03, 0x01, 0x01,
	0xff, 0x30, 0x1d, 0x06, 0x03, 0x55, 0x1d, 0x0e, 0x04, 0x16, 0x04, 0x14,
	0x79, 0x06, 0x5b, 0x63, 0xef, 0x00, 0x6a, 0xc1, 0xb5, 0x91, 0xf7, 0xd3,
	0x45, 0x15, 0xf1, 0xda, 0x80, 0xbd, 0x13, 0xa9, 0x30, 0x0d, 0x06, 0x09,
	0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05, 0x00, 0x03,
	0x82, 0x01, 0x01, 0x00, 0x86, 0x42, 0x63, 0x1c, 0xfb, 0x9c, 0xde, 0x5c,
	0xb8, 0x09, 0x33, 0xa1, 0x6c, 0x06, 0xcc, 0xed, 0x54, 0x31, 0x3b, 0x6e,
	0x65, 0x85, 0x31, 0xdc, 0xd9, 0xb5, 0x47, 0x03, 0x95, 0xed, 0x3e, 0x95,
	0x05, 0xbc, 0xc9, 0x24, 0x02, 0x52, 0xe6, 0xaa, 0xb6, 0x9a, 0x5a, 0x7c,
	0x85, 0x98, 0x69, 0xa7, 0xa3, 0xa9, 0xb5, 0x3d, 0xa1, 0x47, 0xab, 0x09,
	0xa2, 0x8f, 0x11, 0x35, 0xd2, 0xb2, 0x2e, 0x05, 0x56, 0x87, 0xb4, 0xc4,
	0x89, 0x40, 0xac, 0x2f, 0x15, 0x15, 0x2a, 0x6b, 0xa8, 0x97, 0x95, 0xe5,
	0x20, 0x2f, 0xff, 0xc9, 0x7f, 0xfd, 0x73, 0x58, 0xf7, 0x76, 0xff, 0x0b,
	0x02, 0x52, 0x8a, 0x03, 0x6e, 0xa3, 0xe3, 0x68, 0x3c, 0xa3, 0x14, 0x18,
	0x37, 0x3c, 0x93, 0x12, 0x89, 0xba, 0x9d, 0xf2, 0xef, 0x4b, 0x4b, 0x65,
	0x93, 0xfe, 0xb5, 0x96, 0x5f, 0x3a, 0xf3, 0xc7, 0xcb, 0xa8, 0x90, 0x86,
	0xf5, 0xbb, 0xae, 0x38, 0x0e, 0xf1, 0xb9, 0x75, 0xe2, 0xce, 0x58, 0x2e,
	0xb5, 0x28, 0xa7, 0xe0, 0xef, 0x44, 0x8d, 0x05, 0xce, 0xe8, 0x9d, 0xdf,
	0x1f, 0xf6, 0xbc, 0xa6, 0x2c, 0x1c, 0x7b, 0x2f, 0x39, 0x19, 0x0a, 0x5c,
	0x25, 0x6a, 0xb0, 0x68, 0x60, 0xc9, 0xb3, 0x61, 0x66, 0x19, 0xa3, 0xdc,
	0x77, 0xfb, 0x43, 0x86, 0x7b, 0x96, 0xc2, 0xe4, 0xb9, 0x9c, 0xd6, 0xa4,
	0x0f, 0xfc, 0x68, 0x94, 0x76, 0xaf, 0x80, 0x10, 0x7c, 0x55, 0x37, 0x71,
	0x6c, 0x34, 0xbf, 0x87, 0x26, 0x14, 0x4d, 0x65, 0x55, 0x4e, 0x3d, 0xa0,
	0xe1, 0x94, 0x8e, 0x52, 0x8a, 0xa5, 0x3c, 0x7f, 0x1e, 0xc0, 0xef, 0x19,
	0x3a, 0x33, 0x5f, 0x21, 0x30, 0xcc, 0xc5, 0x9e, 0xe6, 0x81, 0x64, 0x3f,
	0x55, 0x18, 0x37, 0xff, 0x12, 0xb0, 0x82, 0x7d, 0x47, 0xee, 0xf1, 0x97,
	0xff, 0x61, 0xc3, 0xea, 0x3b, 0xe9, 0x0d, 0xa5,
};

/* Its key's description: the subject's CN and the subject key id. */
#define ST_CERT_DESC "retrofi selftest: 79065b63ef006ac1b591f7d34515f1da80bd13a9"

/*
 * Load CERT_LIST into a new keyring: the number of keys loaded, or a
 * negative errno; *FOUND tells whether the certificate's key is among them.
 */
static long st_load_certs(const u8 *cert_list, size_t len, bool *found)
{
	struct key *keyring;
	key_ref_t ref;
	long keys;
	int ret;

	keyring = keyring_alloc("retrofi_selftest", GLOBAL_ROOT_UID,
				GLOBAL_ROOT_GID, current_cred(),
				KEY_POS_ALL | KEY_USR_VIEW | KEY_USR_READ,
				KEY_ALLOC_NOT_IN_QUOTA, NULL, NULL);
	if (IS_ERR(keyring))
		return PTR_ERR(keyring);
	ret = x509_load_certificate_list(cert_list, len, keyring);
	keys = ret ? ret : keyring->keys.nr_leaves_on_tree;
	if (found) {
		ref = keyring_search(make_key_ref(keyring, 1),
				     &key_type_asymmetric, ST_CERT_DESC, false);
		*found = !IS_ERR(ref);
		if (*found)
			key_ref_put(ref);
	}
	key_put(keyring);
	return keys;
}

static const char *test_x509_load_certificate_list_loads_and_stops_at_bad_entry(void)
{
	/* An ASN.1 SEQUENCE claiming 32 KiB, cut short after 5 bytes. */
	static const u8 garbage[] = { 0x30, 0x82, 0x7f, 0xfc, 0x00 };
	/* Header bytes of a bad first entry (the good one is 0x30 0x82). */
	static const u8 bad[][2] = { { 0x31, 0x82 }, { 0x30, 0x81 }, { 0x31, 0x81 } };
	const size_t n = sizeof(st_cert);
	bool found = false;
	long keys;
	u8 *list;
	int i;

	keys = st_load_certs(st_cert, n, &found);
	if (keys != 1)
		return "a valid certificate did not load as one key";
	if (!found)
		return "the loaded key is not the certificate's (CN and key id)";
	if (st_load_certs(garbage, sizeof(garbage), NULL))
		return "a truncated list loaded a key";
	/*
	 * A valid certificate after an entry with a wrong tag, a wrong length
	 * form or both: loading stops at the bad entry, the valid one is not
	 * reached (upstream checks p[0] != 0x30 || p[1] != 0x82).
	 */
	list = kmalloc(2 * n, GFP_KERNEL);
	if (!list)
		return "out of memory";
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(list, st_cert, n);
		memcpy(list + n, st_cert, n);
		list[0] = bad[i][0];
		list[1] = bad[i][1];
		keys = st_load_certs(list, 2 * n, NULL);
		if (keys)
			break;
	}
	kfree(list);
	if (keys)
		return i < 2 ? "loading went on past an entry with one bad header byte" :
			       "loading went on past an entry with both header bytes bad";
	return NULL;
}
#else
static const char *test_x509_load_certificate_list_loads_and_stops_at_bad_entry(void)
{
	return SKIP("the target has no keys or no built-in X.509 parser");
}
#endif
#endif

/*
 * The trace events of the two headers, enabled, fired, and the record the
 * event callback wrote read back through a trace export.
 */
static struct {
	unsigned short type;
	bool seen;
	unsigned int len;
	u8 data[256];
} traced;

static void st_trace_write(struct trace_export *export, const void *entry,
			   unsigned int size)
{
	const struct trace_entry *ent = entry;

	if (ent->type != READ_ONCE(traced.type) || READ_ONCE(traced.seen) ||
	    size > sizeof(traced.data))
		return;
	memcpy(traced.data, entry, size);
	traced.len = size;
	/* Publishes the record to trace_record(), which may run elsewhere. */
	smp_store_release(&traced.seen, true);
}

static struct trace_export st_export = {
	.write = st_trace_write,
	.flags = TRACE_EXPORT_EVENT,
};

/* Enable SYSTEM:EVENT (type TYPE), run FIRE, and catch its record. */
static const char *trace_record(const char *system, const char *event,
				unsigned short type, void (*fire)(void))
{
	const char *err = NULL;

	WRITE_ONCE(traced.type, type);
	WRITE_ONCE(traced.seen, false);
	if (trace_set_clr_event(system, event, 1))
		return "cannot enable the event";
	if (register_ftrace_export(&st_export)) {
		trace_set_clr_event(system, event, 0);
		return "cannot register a trace export";
	}
	fire();
	unregister_ftrace_export(&st_export);
	trace_set_clr_event(system, event, 0);
	synchronize_rcu();
	/* Pairs with st_trace_write()'s release: the record is complete. */
	if (!smp_load_acquire(&traced.seen))
		err = "the enabled event wrote no record";
	return err;
}

/* The string at __data_loc LOC of the record, or NULL if out of it. */
static const char *record_str(u32 loc)
{
	unsigned int off = loc & 0xffff, len = loc >> 16;

	if (!len || off + len > traced.len || traced.data[off + len - 1])
		return NULL;
	return (const char *)traced.data + off;
}

static void fire_str(void)
{
	trace_retrofi_selftest_str("retrofi", 7);
}

static void fire_pair(void)
{
	trace_retrofi_selftest_pair_seen("wlan0", 3, "assoc");
}

static __printf(1, 2) void st_vstr(const char *fmt, ...)
{
	struct va_format vaf = { .fmt = fmt };
	va_list args;

	va_start(args, fmt);
	vaf.va = &args;
	trace_retrofi_selftest_vstr(&vaf);
	va_end(args);
}

static void fire_vstr(void)
{
	st_vstr("%s-%d", "vstr", 42);
}

/*
 * __vstring() and __assign_vstr(): the record holds the formatted string,
 * in a field exactly as long as it and its NUL (the length the get_offsets
 * pass took from vsnprintf()).
 */
static const char *test_trace_event_with_vstring(void)
{
	const struct trace_event_raw_retrofi_selftest_vstr *rec =
		(const void *)traced.data;
	const char *err, *msg;

	if (!IS_ENABLED(CONFIG_EVENT_TRACING))
		return SKIP("the target has no event tracing");
	err = trace_record("retrofi_selftest", "retrofi_selftest_vstr",
			   event_retrofi_selftest_vstr.event.type, fire_vstr);
	if (err)
		return err;
	msg = record_str(rec->__data_loc_msg);
	if (!msg || strcmp(msg, "vstr-42"))
		return "the record's string is not vstr-42";
	if (rec->__data_loc_msg >> 16 != sizeof("vstr-42"))
		return "the record's string field is not as long as the string";
	return NULL;
}

static const char *test_trace_event_with_one_argument_assign_str(void)
{
	const struct trace_event_raw_retrofi_selftest_str *rec =
		(const void *)traced.data;
	const struct trace_event_raw_retrofi_selftest_pair *pair =
		(const void *)traced.data;
	const char *err, *a, *b;

	if (!IS_ENABLED(CONFIG_EVENT_TRACING))
		return SKIP("the target has no event tracing");
	err = trace_record("retrofi_selftest", "retrofi_selftest_str",
			   event_retrofi_selftest_str.event.type, fire_str);
	if (err)
		return err;
	a = record_str(rec->__data_loc_name);
	if (!a || strcmp(a, "retrofi") || rec->v != 7)
		return "the record is not name=retrofi v=7";
	/* The second trace header of this file: an event class, two strings. */
	err = trace_record("retrofi_selftest_class", "retrofi_selftest_pair_seen",
			   event_retrofi_selftest_pair_seen.event.type, fire_pair);
	if (err)
		return err;
	a = record_str(pair->__data_loc_dev);
	b = record_str(pair->__data_loc_what);
	if (!a || !b || strcmp(a, "wlan0") || strcmp(b, "assoc") || pair->n != 3)
		return "the second header's record is not wlan0 3 assoc";
	return NULL;
}

/* The additive shims back to 2.6.21 (their table entries: *_cases.h). */
#include "retrofi_selftest_shapes.h"
/* The shims a 5.x target needs (their table entries: *_cases.h). */
#include "retrofi_selftest_5x.h"
/* The shims the 7.x stack needs on older targets (entries: *_cases.h). */
#include "retrofi_selftest_7x.h"
/* The shims the vendor drivers need on older targets (entries: *_cases.h). */
#include "retrofi_selftest_drivers.h"
#include "retrofi_selftest_kunit.h"
/* genlmsg_multicast_allns() (its table entry is below). */
#include "retrofi_selftest_genl.h"

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
 * A case of a cleanup class (guard(name), __free(name)) that a probed
 * shim defines where the target lacks it (have: its RETROFI_HAVE_*): the
 * class it takes is st_class(name, have), the shim's backport_name in
 * retrofi_selftest_probes_off (retrofi_selftest_cleanup.h).
 */
#define TC(fn, name, have) \
	{ #fn, test_ ## fn, #name, __stringify(st_class(name, have)), 0 }
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
/* Not through TA(): an argument passed on is expanded, and #sym would name the shim. */
#define TX(fn, sym, a, b, c) \
	{ #fn, test_ ## fn, #sym, __stringify(sym), KERNEL_VERSION(a, b, c) }
#endif

static const struct selftest tests[] = {
	TA(splice_tail_appends_in_order, list_splice_tail, 2, 6, 27),
	TA(splice_tail_of_empty_list_changes_nothing, list_splice_tail, 2, 6, 27),
	TA(splice_tail_init_reinitialises_source, list_splice_tail_init, 2, 6, 27),
	TA(cut_position_moves_head_through_entry, list_cut_position, 2, 6, 27),
	TA(cut_position_at_head_gives_empty_list, list_cut_position, 2, 6, 27),
	TA(cut_position_of_singular_list_takes_it_all, list_cut_position, 2, 6, 27),
	TA(cut_position_at_head_of_singular_list_gives_empty_list, list_cut_position,
	   2, 6, 27),
	TA(cut_position_as_ath9k_xmit_calls_it, list_cut_position, 2, 6, 27),
	TA(is_singular, list_is_singular, 2, 6, 27),
	TA(count_nodes, list_count_nodes, 6, 3, 0),
	TX(kmemdup_array_copies_and_refuses_overflow, kmemdup_array, 6, 9, 0),
	T(moved_headers, get_unaligned_le16),
	T(class_create_takes_a_name, class_create),
	T(led_trigger_blink_passes_delays_by_value, led_trigger_blink),
	T(const_full_range_policy_validates, nla_validate),
	T(const_full_range_signed_policy_validates, nla_validate),
	T(genl_split_ops_hooks_see_the_operation, genl_register_family),
	T(genl_multicast_allns_reaches_a_member_of_the_group, genlmsg_multicast_allns),
	T(gso_segments_a_udp_gso_skb, skb_gso_segment),
	T(amd_wbrf_reports_no_support, acpi_amd_wbrf_supported_producer),
	TX(drop_reason_subsystems_as_upstream, drop_reasons_register_subsys, 6, 4, 0),
	TA(kfree_skb_reason_consumed_and_subsystem, kfree_skb_reason, 6, 4, 0),
	T(virtio_find_vqs_passes_each_queue, virtio_find_vqs),
	TX(x509_load_certificate_list_loads_and_stops_at_bad_entry,
	   x509_load_certificate_list, 6, 3, 0),
	T(trace_event_with_one_argument_assign_str, trace_retrofi_selftest_str),
	T(trace_event_with_vstring, trace_retrofi_selftest_vstr),
#include "retrofi_selftest_shapes_cases.h"
#include "retrofi_selftest_5x_cases.h"
#include "retrofi_selftest_7x_cases.h"
#include "retrofi_selftest_drivers_cases.h"
#include "retrofi_selftest_kunit_cases.h"
};

/* retrofi_selftest_probes_off.c: the probes forced off (Kbuild). */
#ifdef RETROFI_PROBES_OFF
#define ST_PROBES_OFF " (probes off)"
#else
#define ST_PROBES_OFF ""
#endif

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
	pr_info("# retrofi compat selftest %s: api level %u.%u.%u on %u.%u.%u%s%s\n",
		KBUILD_MODNAME, V_MAJOR(RETROFI_API_CODE),
		V_MINOR(RETROFI_API_CODE), V_SUB(RETROFI_API_CODE),
		V_MAJOR(LINUX_VERSION_CODE), V_MINOR(LINUX_VERSION_CODE),
		V_SUB(LINUX_VERSION_CODE),
		RETROFI_API_FORCED ? " (forced)" : "", ST_PROBES_OFF);
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
		if (err && !strncmp(err, SKIP_PREFIX, sizeof(SKIP_PREFIX) - 1)) {
			skipped++;
			pr_info("ok %d %s # SKIP %s\n", i + 1, t->name,
				err + sizeof(SKIP_PREFIX) - 1);
			continue;
		}
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
