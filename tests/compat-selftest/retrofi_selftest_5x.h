/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: the shims that a 5.x target needs (5.10 is the
 * oldest real target): what 5.11 to 6.7 introduced. Included by
 * retrofi_selftest.c before its table; the table entries are in
 * retrofi_selftest_5x_cases.h. Each case checks against values written
 * here, not against the shim.
 */
#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/cleanup.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/hw_random.h>
#include <linux/if_ether.h>
#include <linux/ethtool.h>
#include <linux/interrupt.h>
#include <linux/ipv6.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/of_net.h>
#include <linux/random.h>
#include <linux/relay.h>
#include <linux/rfkill.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/inet_ecn.h>

/* min() and max() with 6.7's check: their own header, compiled alone too. */
#include "retrofi_selftest_minmax.h"
#include "retrofi_selftest_cleanup.h"

/*
 * debugfs_enter_cancellation() (6.7): removing a file, or a directory above
 * it, calls the cancel callback of each handler inside the file, once, with
 * its data; a handler in a file that stays is not cancelled, and one that
 * has left is not either. Before 6.7 the shim's list is what a removal
 * walks (a handler's struct file only names the file's dentry there); 6.7's
 * own needs a file opened through debugfs with a handler in it, which the
 * selftest cannot open (the guest mounts debugfs only after the tests).
 */
#if RETROFI_LINUX_LESS(6, 7, 0) && !RETROFI_HAVE_debugfs_cancellation
static void st_debugfs_cancel(struct dentry *dentry, void *data)
{
	(*(int *)data)++;
}

static const char *test_debugfs_removal_cancels_the_handlers_inside_it(void)
{
	static const struct file_operations fops = { .owner = THIS_MODULE };
	struct dentry *dir, *sub, *a, *b;
	struct file fa = {}, fb = {}, fl = {};
	int na = 0, nb = 0, nl = 0;
	struct debugfs_cancellation ca = {
		.cancel = st_debugfs_cancel, .cancel_data = &na,
	}, cb = {
		.cancel = st_debugfs_cancel, .cancel_data = &nb,
	}, cl = {
		.cancel = st_debugfs_cancel, .cancel_data = &nl,
	};
	const char *err = NULL;

	if (!IS_ENABLED(CONFIG_DEBUG_FS))
		return SKIP("the target has no debugfs");
	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	sub = debugfs_create_dir("sub", dir);
	a = debugfs_create_file("a", 0400, sub, NULL, &fops);
	b = debugfs_create_file("b", 0400, dir, NULL, &fops);
	if (IS_ERR_OR_NULL(a) || IS_ERR_OR_NULL(b)) {
		debugfs_remove(dir);
		return "cannot create the debugfs files";
	}
	fa.f_path.dentry = a;
	fa.f_inode = d_inode(a);
	fb.f_path.dentry = b;
	fb.f_inode = d_inode(b);
	fl.f_path.dentry = a;
	fl.f_inode = d_inode(a);
	debugfs_enter_cancellation(&fa, &ca);
	debugfs_enter_cancellation(&fb, &cb);
	debugfs_enter_cancellation(&fl, &cl);
	debugfs_leave_cancellation(&fl, &cl);
	debugfs_remove(sub);
	if (na != 1 || nb || nl)
		err = "removing a directory did not cancel exactly the handler inside it";
	debugfs_leave_cancellation(&fa, &ca);
	if (!err) {
		debugfs_remove(b);
		if (nb != 1 || na != 1)
			err = "removing a file did not cancel exactly its handler";
	}
	debugfs_leave_cancellation(&fb, &cb);
	debugfs_remove(dir);
	return err;
}

/*
 * The same for a handler that enters its cancellation only after the
 * removal started: the handler holds its file (debugfs_file_get(), as the
 * target's file operations do around each call), the removal starts (the
 * target unlinks the file, then waits for the handler), and only then
 * does the handler enter. The removal must call its cancel callback, once,
 * from the remover's own context (cfg80211's callback needs the wiphy
 * mutex that the remover holds), and then complete. No wait is unbounded:
 * a handler never cancelled gives up after ST_DEBUGFS_LATE_WAIT, drops its
 * file (which lets the removal complete) and fails the case.
 */
#define ST_DEBUGFS_LATE_WAIT (10 * HZ)

struct st_debugfs_late {
	struct dentry *dentry;
	struct file file;
	struct debugfs_cancellation cancellation;
	struct completion cancelled, done;
	struct task_struct *canceller;
	int cancels;
	const char *err;
};

static void st_debugfs_late_cancel(struct dentry *dentry, void *data)
{
	struct st_debugfs_late *l = data;

	l->cancels++;
	l->canceller = current;
	complete(&l->cancelled);
}

/* The handler: it owns the file reference the case took for it. */
static int st_debugfs_late_handler(void *data)
{
	struct st_debugfs_late *l = data;
	unsigned long deadline = jiffies + ST_DEBUGFS_LATE_WAIT;

	while (!d_unlinked(l->dentry) && time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	if (!d_unlinked(l->dentry)) {
		l->err = "the removal did not unlink the file within 10 s";
	} else {
		debugfs_enter_cancellation(&l->file, &l->cancellation);
		if (!wait_for_completion_timeout(&l->cancelled,
						 ST_DEBUGFS_LATE_WAIT))
			l->err = "a handler that entered its cancellation after the removal started was not cancelled within 10 s";
		debugfs_leave_cancellation(&l->file, &l->cancellation);
	}
	debugfs_file_put(l->dentry);
	complete(&l->done);
	return 0;
}

static const char *test_debugfs_removal_cancels_a_handler_that_enters_after_it_started(void)
{
	static const struct file_operations fops = { .owner = THIS_MODULE };
	struct task_struct *handler;
	struct st_debugfs_late *l;
	struct dentry *dir;
	const char *err;

	if (!IS_ENABLED(CONFIG_DEBUG_FS))
		return SKIP("the target has no debugfs");
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return "cannot allocate the handler's state";
	init_completion(&l->cancelled);
	init_completion(&l->done);
	l->cancellation.cancel = st_debugfs_late_cancel;
	l->cancellation.cancel_data = l;
	dir = debugfs_create_dir(KBUILD_MODNAME "_late", NULL);
	l->dentry = debugfs_create_file("late", 0400, dir, NULL, &fops);
	if (IS_ERR_OR_NULL(l->dentry) || debugfs_file_get(l->dentry)) {
		debugfs_remove(dir);
		kfree(l);
		return "cannot create the debugfs file or take a reference to it";
	}
	l->file.f_path.dentry = l->dentry;
	l->file.f_inode = d_inode(l->dentry);
	handler = kthread_run(st_debugfs_late_handler, l, "retrofi_st_dbgfs");
	if (IS_ERR(handler)) {
		debugfs_file_put(l->dentry);
		debugfs_remove(dir);
		kfree(l);
		return "cannot start the handler's thread";
	}
	/* Returns once the handler dropped its file: within 20 s. */
	debugfs_remove(dir);
	if (!wait_for_completion_timeout(&l->done, ST_DEBUGFS_LATE_WAIT))
		return "the handler did not finish after the removal (its state is left allocated)";
	err = l->err;
	if (!err && l->cancels != 1)
		err = "the handler was cancelled more than once";
	if (!err && l->canceller != current)
		err = "the cancel callback did not run in the remover's context";
	kfree(l);
	return err;
}
#else
static const char *test_debugfs_removal_cancels_the_handlers_inside_it(void)
{
	return SKIP("the target's own debugfs cancellation (6.7) needs a handler in a file opened through debugfs");
}

static const char *test_debugfs_removal_cancels_a_handler_that_enters_after_it_started(void)
{
	return SKIP("the target's own debugfs cancellation (6.7) needs a handler in a file opened through debugfs");
}
#endif /* < 6.7 */

/*
 * hwrng_msleep() (6.0): a sleep of an hwrng that is not going away lasts
 * the delay and returns 0 (the kernel's own waits on rng->dying, which the
 * case sets up, uncompleted, where it is the kernel's that runs).
 */
static const char *test_hwrng_msleep_sleeps_the_delay(void)
{
	struct hwrng rng = { .name = "retrofi_selftest" };
	unsigned long start;
	long ret;

#if !RETROFI_API_NEED(6, 0, 0, RETROFI_HAVE_hwrng_msleep)
	init_completion(&rng.dying);
#endif
	start = jiffies;
	ret = hwrng_msleep(&rng, 20);
	if (ret)
		return "hwrng_msleep() of a live hwrng returned nonzero";
	if (time_before(jiffies, start + msecs_to_jiffies(20)))
		return "hwrng_msleep() returned before the delay";
	return NULL;
}

/*
 * relay_open() of const callbacks (5.11): a channel opens and closes with
 * a read-only callback struct that leaves callbacks unset, as ath9k's
 * spectral scan passes (before 5.11 relay fills those in: in a module's
 * read-only data that is a fault, which the splat scan reports).
 */
#if IS_ENABLED(CONFIG_RELAY)
static struct dentry *st_relay_create(const char *filename,
				      struct dentry *parent, umode_t mode,
				      struct rchan_buf *buf, int *is_global)
{
	*is_global = 1;
	return debugfs_create_file(filename, mode, parent, buf,
				   &relay_file_operations);
}

static int st_relay_remove(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks st_relay_cb = {
	.create_buf_file = st_relay_create,
	.remove_buf_file = st_relay_remove,
};

/*
 * A file in debugfs, as ath9k's spectral scan makes: without a base name
 * 5.10's relay fails a channel whose create_buf_file() returns no dentry,
 * and 5.11 and later warn when it returns one.
 */
static const char *test_relay_open_takes_const_callbacks(void)
{
	struct dentry *dir;
	struct rchan *chan;

	if (!IS_ENABLED(CONFIG_DEBUG_FS))
		return SKIP("the target has no debugfs");
	dir = debugfs_create_dir("retrofi_selftest_relay", NULL);
	if (IS_ERR_OR_NULL(dir))
		return "debugfs_create_dir() failed";
	chan = relay_open("st", dir, 4096, 2, &st_relay_cb, NULL);
	if (!chan) {
		debugfs_remove(dir);
		return "relay_open() of const callbacks failed";
	}
	relay_close(chan);
	debugfs_remove(dir);
	return NULL;
}
#else
static const char *test_relay_open_takes_const_callbacks(void)
{
	return SKIP("the target has no relay");
}
#endif

/* MAC_ADDR_STR_LEN (6.15): the length of an address printed with %pM. */
static const char *test_mac_addr_str_len_is_a_printed_address(void)
{
	static const u8 addr[ETH_ALEN] = { 0x02, 0x00, 0x00, 0xab, 0xcd, 0xef };
	char buf[32];

	if (MAC_ADDR_STR_LEN != 17)
		return "MAC_ADDR_STR_LEN is not 17";
	if (snprintf(buf, sizeof(buf), "%pM", addr) != MAC_ADDR_STR_LEN)
		return "a printed address is not MAC_ADDR_STR_LEN long";
	return NULL;
}

/* memset_after() (5.15): every byte after the member, and only those. */
static const char *test_memset_after_sets_every_byte_after_the_member(void)
{
	struct {
		u32 a;
		u8 b;
		/* one byte of padding */
		u16 c;
		u64 d;
	} s;
	const u8 *p = (const u8 *)&s;
	size_t i;

	if (sizeof(s) != 16)
		return "the test structure is not 16 bytes";
	memset(&s, 0x11, sizeof(s));
	memset_after(&s, 0xee, b);
	/* a and b are the first 5 bytes; the 11 after them, padding too. */
	for (i = 0; i < sizeof(s); i++)
		if (p[i] != (i < 5 ? 0x11 : 0xee))
			return "not exactly the bytes after b were set";
	return NULL;
}

/*
 * __counted_by (6.5): an annotation, accepted on a flexible array; the
 * layout stays a plain flexible array's. Compile-time facts, checked at
 * build time.
 */
struct st_counted {
	u16 n;
	u32 v[] __counted_by(n);
};
static_assert(offsetof(struct st_counted, v) == 4);
static_assert(sizeof(struct st_counted) == 4);
static_assert(sizeof(((struct st_counted *)NULL)->v[0]) == 4);

/*
 * <kunit/visibility.h> (6.2): VISIBLE_IF_KUNIT makes a function static
 * unless KUnit is built (no target here builds it, and the shim is that
 * half). Linkage is a compile-time fact: a static redeclaration after the
 * definition compiles only if the definition was static (after a
 * non-static one it is an error), and an extern declaration before it
 * only if it was not.
 */
#if IS_ENABLED(CONFIG_KUNIT)
extern int st_visible_if_kunit(int x);
#endif
VISIBLE_IF_KUNIT int st_visible_if_kunit(int x)
{
	return x + 1;
}
#if !IS_ENABLED(CONFIG_KUNIT)
static int st_visible_if_kunit(int x);
#endif
#ifndef RETROFI_SELFTEST_INLINE_SHIMS_ONLY	/* one module exports it */
EXPORT_SYMBOL_IF_KUNIT(st_visible_if_kunit);
#endif
/* Used, so that a static definition is not "defined but not used". */
static_assert(sizeof(st_visible_if_kunit(0)) == sizeof(int));

/*
 * lockdep_is_held() (5.11 declares it without lockdep, for code that only
 * lockdep evaluates). Without lockdep the declaration is all there is, a
 * compile-time fact: upstream's prototype. With lockdep (the debug rows),
 * the real check: held while the mutex is, not after.
 */
#ifndef CONFIG_LOCKDEP
static_assert(__builtin_types_compatible_p(typeof(lockdep_is_held),
					   int (const void *)));
#endif
static DEFINE_MUTEX(st_lockdep_mutex);

static const char *test_lockdep_is_held_sees_a_held_mutex_and_its_release(void)
{
	int held, after;

	if (!IS_ENABLED(CONFIG_LOCKDEP))
		return SKIP("the target has no lockdep: lockdep_is_held() is only declared there, for code that lockdep alone evaluates");
	mutex_lock(&st_lockdep_mutex);
	held = lockdep_is_held(&st_lockdep_mutex);
	mutex_unlock(&st_lockdep_mutex);
	after = lockdep_is_held(&st_lockdep_mutex);
	if (held < 0 || after < 0)
		return "lockdep is off (debug_locks is 0): an earlier report turned it off";
	if (held != 1)
		return "lockdep does not see the mutex held";
	return after ? "lockdep sees the mutex held after mutex_unlock()" : NULL;
}

/* rfkill_set_hw_state_reason() (5.11) with the rfkill signal, as cfg80211. */
static int st_rfkill_set_block(void *data, bool blocked)
{
	return 0;
}

static const struct rfkill_ops st_rfkill_ops = {
	.set_block = st_rfkill_set_block,
};

/* A WLAN rfkill device of the selftest's own: not registered, unblocked. */
static struct rfkill *st_rfkill_alloc(const char *name)
{
	struct rfkill *rfk = rfkill_alloc(name, NULL, RFKILL_TYPE_WLAN,
					  &st_rfkill_ops, NULL);

	if (rfk)
		rfkill_init_sw_state(rfk, false);
	return rfk;
}

static const char *test_rfkill_hw_state_reason_blocks_and_unblocks(void)
{
	struct rfkill *rfk;
	const char *err = NULL;

	if (!IS_ENABLED(CONFIG_RFKILL))
		return SKIP("the target has no rfkill");
	rfk = st_rfkill_alloc("retrofi_selftest");
	if (!rfk)
		return "rfkill_alloc failed";
	if (!rfkill_set_hw_state_reason(rfk, true, RFKILL_HARD_BLOCK_SIGNAL))
		err = "blocking did not report the device blocked";
	else if (!rfkill_blocked(rfk))
		err = "the device is not blocked";
	else if (rfkill_set_hw_state_reason(rfk, false, RFKILL_HARD_BLOCK_SIGNAL))
		err = "unblocking reported the device still blocked";
	else if (rfkill_blocked(rfk))
		err = "the device is still blocked";
	rfkill_destroy(rfk);
	return err;
}

/*
 * tasklet_disable_in_atomic() (5.13), in atomic context as ath9k calls it:
 * the tasklet does not run until enabled (and nothing may sleep: the
 * guest's splat scanner sees a "sleeping function called" report).
 */
static atomic_t st_tasklet_runs = ATOMIC_INIT(0);
static DEFINE_SPINLOCK(st_tasklet_lock);

static void st_tasklet_fn(struct tasklet_struct *t)
{
	atomic_inc(&st_tasklet_runs);
}

static const char *test_tasklet_disable_in_atomic_holds_it_off(void)
{
	struct tasklet_struct t;
	const char *err = NULL;
	int i;

	atomic_set(&st_tasklet_runs, 0);
	tasklet_setup(&t, st_tasklet_fn);
	spin_lock_bh(&st_tasklet_lock);
	tasklet_disable_in_atomic(&t);
	tasklet_schedule(&t);
	spin_unlock_bh(&st_tasklet_lock);	/* softirqs run here */
	if (atomic_read(&st_tasklet_runs))
		err = "the disabled tasklet ran";
	tasklet_enable(&t);
	for (i = 0; i < 1000 && !atomic_read(&st_tasklet_runs); i++)
		usleep_range(1000, 2000);
	if (!err && atomic_read(&st_tasklet_runs) != 1)
		err = "the enabled tasklet did not run once";
	tasklet_kill(&t);
	return err;
}

/* of_get_mac_address(np, mac) (5.13): no node, -ENODEV, mac untouched. */
static const char *test_of_get_mac_address_without_a_node(void)
{
	u8 mac[ETH_ALEN] = { 2, 0, 0, 0, 0, 1 };

	if (of_get_mac_address(NULL, mac) != -ENODEV)
		return "no node did not give -ENODEV";
	return mac[0] == 2 && mac[5] == 1 ? NULL : "the address was written on failure";
}

/* skb_get_dsfield() (5.16): the DS field of IPv4 and IPv6, else -1. */
static const char *test_skb_get_dsfield_reads_ipv4_and_ipv6(void)
{
	struct sk_buff *skb = alloc_skb(128, GFP_KERNEL);
	struct ipv6hdr *ip6h;
	struct iphdr *iph;
	const char *err = NULL;

	if (!skb)
		return "out of memory";
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = 0xb9;		/* DSCP 46 (EF), ECN ECT(1) */
	skb->protocol = htons(ETH_P_IP);
	if (skb_get_dsfield(skb) != 0xb9)
		err = "the IPv4 TOS was not read";
	skb_trim(skb, 0);
	skb_reset_network_header(skb);
	ip6h = skb_put_zero(skb, sizeof(*ip6h));
	ip6h->version = 6;
	ip6h->priority = 0xb;
	ip6h->flow_lbl[0] = 0x90;	/* traffic class 0xb9 */
	skb->protocol = htons(ETH_P_IPV6);
	if (!err && skb_get_dsfield(skb) != 0xb9)
		err = "the IPv6 traffic class was not read";
	skb->protocol = htons(ETH_P_ARP);
	if (!err && skb_get_dsfield(skb) != -1)
		err = "not -1 for a packet that is not IP";
	kfree_skb(skb);
	return err;
}

/* virtio_reset_device() (5.16): through the transport's reset, once. */
static unsigned int st_virtio_resets;

static void st_virtio_reset(struct virtio_device *vdev)
{
	st_virtio_resets++;
}

static const struct virtio_config_ops st_reset_virtio_ops = {
	.reset = st_virtio_reset,
};

static const char *test_virtio_reset_device_resets_through_the_transport(void)
{
	struct virtio_device *vdev = kzalloc(sizeof(*vdev), GFP_KERNEL);

	if (!vdev)
		return "out of memory";
	vdev->config = &st_reset_virtio_ops;
	st_virtio_resets = 0;
	virtio_reset_device(vdev);
	kfree(vdev);
	return st_virtio_resets == 1 ? NULL : "the transport's reset was not called once";
}

/* get_random_u16() (6.1): 64 draws set and clear each of the 16 bits. */
static const char *test_get_random_u16_draws_every_bit(void)
{
	u16 any = 0, all = 0xffff;
	int i;

	for (i = 0; i < 64; i++) {
		u16 v = get_random_u16();

		any |= v;
		all &= v;
	}
	return any == 0xffff && !all ? NULL : "64 draws left a bit always set or always clear";
}

/* Per-CPU tx counters: dev_sw_netstats_tx_add() (5.11), summed by hand. */
static void st_netdev_setup(struct net_device *dev)
{
	ether_setup(dev);
}

static const char *test_dev_sw_netstats_tx_add_counts_packets_and_bytes(void)
{
	struct net_device *dev;
	u64 packets = 0, bytes = 0;
	int cpu;

	dev = alloc_netdev(0, "rst%d", NET_NAME_ENUM, st_netdev_setup);
	if (!dev)
		return "out of memory";
	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	if (!dev->tstats) {
		free_netdev(dev);
		return "out of memory";
	}
	dev_sw_netstats_tx_add(dev, 3, 300);
	dev_sw_netstats_tx_add(dev, 1, 40);
	for_each_possible_cpu(cpu) {
		const struct pcpu_sw_netstats *s = per_cpu_ptr(dev->tstats, cpu);

#if RETROFI_LINUX_LESS(6, 0, 0)
		packets += s->tx_packets;
		bytes += s->tx_bytes;
#else
		packets += u64_stats_read(&s->tx_packets);
		bytes += u64_stats_read(&s->tx_bytes);
#endif
	}
	free_percpu(dev->tstats);
	dev->tstats = NULL;
	free_netdev(dev);
	return packets == 4 && bytes == 340 ? NULL : "not 4 packets, 340 bytes";
}

#ifndef RETROFI_SELFTEST_INLINE_SHIMS_ONLY
/*
 * A registered netdev's per-CPU tstats reach dev_get_stats(), as mac80211's
 * do: allocated by retrofi_netdev_alloc_tstats() before 6.7 (rule 0203),
 * summed by dev_get_tstats64() (5.11; rule 0201) before 6.9, by the core
 * itself after.
 */
static const struct net_device_ops st_tstats_netdev_ops = {
#if RETROFI_LINUX_LESS(6, 7, 0)
	.ndo_init = retrofi_netdev_alloc_tstats,
#endif
#if RETROFI_LINUX_LESS(6, 9, 0)
	.ndo_get_stats64 = dev_get_tstats64,
#endif
};

static void st_tstats_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &st_tstats_netdev_ops;
}

static const char *test_netdev_tstats_reach_the_stats_of_a_registered_netdev(void)
{
	struct rtnl_link_stats64 s = {};
	struct net_device *dev;
	const char *err = NULL;

	dev = alloc_netdev(0, "rst%d", NET_NAME_ENUM, st_tstats_setup);
	if (!dev)
		return "out of memory";
#if !RETROFI_LINUX_LESS(6, 7, 0)
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
#endif
	if (register_netdev(dev)) {
		free_netdev(dev);
		return "register_netdev failed";
	}
	if (!dev->tstats) {
		err = "no per-CPU tstats after registration";
	} else {
		dev_sw_netstats_tx_add(dev, 3, 300);
		dev_sw_netstats_rx_add(dev, 100);
		dev->stats.rx_errors = 2;
		dev_get_stats(dev, &s);
		if (s.tx_packets != 3 || s.tx_bytes != 300 || s.rx_packets != 1 ||
		    s.rx_bytes != 100 || s.rx_errors != 2)
			err = "the stats are not tx 3/300, rx 1/100, 2 rx errors";
	}
	unregister_netdev(dev);
	free_netdev(dev);
	return err;
}
#endif

/*
 * Types declared for the stack's prototypes: struct net_device_path_ctx
 * and struct net_device_path (5.13), struct kernel_ethtool_ringparam
 * (5.17). A compile-time fact: a struct first named in a parameter list
 * is a new type of that prototype's scope, so two prototypes naming it
 * would not be compatible unless it is declared at file scope, as the
 * stack's callbacks need it to be.
 */
typedef int st_fill_forward_path_fn(struct net_device_path_ctx *ctx,
				    struct net_device_path *path);
static_assert(__builtin_types_compatible_p(st_fill_forward_path_fn *,
	int (*)(struct net_device_path_ctx *, struct net_device_path *)));
typedef int st_ringparam_fn(struct net_device *dev,
			    struct kernel_ethtool_ringparam *kernel_rp);
static_assert(__builtin_types_compatible_p(st_ringparam_fn *,
	int (*)(struct net_device *, struct kernel_ethtool_ringparam *)));

/*
 * __free() of <linux/cleanup.h>: a pointer declared __free(name) is passed
 * to name's DEFINE_FREE() body when it leaves its scope, and no_free_ptr()
 * hands it out instead. The free function counts its calls.
 */
static int st_cleanup_freed;
DEFINE_FREE(st_counted_kfree, void *, if (_T) { st_cleanup_freed++; kfree(_T); })

static void *st_cleanup_keep(void)
{
	void *p __free(st_counted_kfree) = kmalloc(16, GFP_KERNEL);

	return_ptr(p);
}

static const char *test_free_attribute_frees_at_scope_exit(void)
{
	void *kept;

	st_cleanup_freed = 0;
	{
		void *p __free(st_counted_kfree) = kmalloc(16, GFP_KERNEL);

		if (!p)
			return "kmalloc() failed";
		if (st_cleanup_freed)
			return "the pointer was freed before its scope ended";
	}
	if (st_cleanup_freed != 1)
		return "the pointer was not freed once at the end of its scope";
	kept = st_cleanup_keep();
	if (!kept)
		return "kmalloc() failed";
	if (st_cleanup_freed != 1) {
		kfree(kept);
		return "return_ptr() did not keep the pointer from being freed";
	}
	kfree(kept);
	return NULL;
}

/* guard(mutex): the mutex is held in the guard's scope and released after. */
static const char *test_mutex_guard_releases_at_scope_exit(void)
{
	static DEFINE_MUTEX(lock);
	bool held = false;

	/* guard() in a block: scoped_guard() needs gnu11, 5.10 builds gnu89. */
	{
		guard(st_class(mutex, RETROFI_HAVE_mutex_guard))(&lock);
		held = mutex_is_locked(&lock);
	}
	if (!held)
		return "the mutex was not held in the scope";
	if (mutex_is_locked(&lock))
		return "the mutex stayed held after the scope";
	return NULL;
}

/*
 * guard(rcu): a read-side critical section in the guard's scope, none
 * after. Only preemptible RCU counts its sections (rcu_preempt_depth());
 * without it (Debian's 5.10, which has no preemption count either) a
 * read-side section leaves no trace outside lockdep, which no booted row
 * but the debug ones has, and the case is skipped.
 */
static const char *test_rcu_guard_holds_a_read_side_section_in_its_scope(void)
{
	int depth = -1;

	if (!IS_ENABLED(CONFIG_PREEMPT_RCU))
		return SKIP("the target has no preemptible RCU: a read-side section leaves no trace outside lockdep");
	{
		guard(st_class(rcu, RETROFI_HAVE_rcu_guard))();
		depth = rcu_preempt_depth();
	}
	if (depth != 1)
		return "the scope was not one read-side critical section";
	if (rcu_preempt_depth())
		return "the read-side critical section outlived the scope";
	return NULL;
}
