/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: the shims that the 7.x stack needs on older
 * targets: what 6.1 to 7.0 introduced. Included by retrofi_selftest.c
 * before its table; the table entries are in retrofi_selftest_7x_cases.h.
 * Each case checks against values written here, not against the shim.
 */
#include <crypto/aes-cbc-macs.h>
#include <kunit/static_stub.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/device/faux.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hex.h>
#include <linux/if_ether.h>
#include <linux/hrtimer.h>
#if !RETROFI_LINUX_LESS(7, 3, 0)
/*
 * "hrtimer: Remove inclusion of hrtimer_bases.h remove from hrtimer.h" (v7.3):
 * struct hrtimer_clock_base (timer.base->clockid) is no longer in hrtimer.h.
 */
#include <linux/hrtimer_bases.h>
#endif
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mount.h>
#include <linux/in.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/once_lite.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/netlink.h>
#include <net/sock.h>

struct st_flex {
	u32 n;
	u64 v[];
};

/* Whether the @n bytes at @p are all zero. */
static bool st_all_zero(const void *p, size_t n)
{
	const u8 *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

/*
 * kmalloc_obj() and family (7.0): the size of the type, of the array, of
 * the structure with its flexible array; zeroed by the kz/kvz forms;
 * NULL when the size overflows.
 */
static const char *test_kmalloc_obj_family_sizes_zeroes_and_overflow(void)
{
	struct st_flex *f;
	u64 *a, *big;
	u32 *one;
	/* Times 8 wraps to 8 bytes: only a saturating size makes it fail. */
	size_t huge = SIZE_MAX / sizeof(u64) + 2;
	const char *err = NULL;

	OPTIMIZER_HIDE_VAR(huge);

	one = kmalloc_obj(*one);
	a = kzalloc_objs(*a, 5, GFP_KERNEL);
	f = kzalloc_flex(*f, v, 3);
	big = kmalloc_objs(u64, huge, GFP_KERNEL | __GFP_NOWARN);
	if (!one || !a || !f)
		err = "out of memory";
	else if (ksize(one) < sizeof(u32) || ksize(a) < 5 * sizeof(u64) ||
		 ksize(f) < sizeof(*f) + 3 * sizeof(u64))
		err = "an allocation is smaller than its type";
	else if (!st_all_zero(a, 5 * sizeof(u64)) ||
		 !st_all_zero(f, sizeof(*f) + 3 * sizeof(u64)))
		err = "a kzalloc_ form did not zero what it allocated";
	else if (big)
		err = "an overflowing count was allocated";
	kfree(big);
	kfree(f);
	kfree(a);
	kfree(one);
	if (err)
		return err;
	a = kvzalloc_objs(u64, 4);
	if (!a)
		return "kvzalloc_objs: out of memory";
	if (!st_all_zero(a, 4 * sizeof(u64)))
		err = "kvzalloc_objs did not zero";
	kvfree(a);
	return err;
}

struct st_timer_owner {
	int before;
	struct timer_list timer;
	int after;
};

static void st_timer_fn(struct timer_list *t)
{
}

/* timer_container_of() (6.16): the owner of the timer. */
static const char *test_timer_container_of_finds_the_owner(void)
{
	struct st_timer_owner o, *p;

	p = timer_container_of(p, &o.timer, timer);
	return p == &o ? NULL : "not the structure that holds the timer";
}

/* timer_delete() (6.2): 1 for a pending timer, then 0; no longer pending. */
static const char *test_timer_delete_deactivates_a_pending_timer(void)
{
	static struct st_timer_owner o;

	timer_setup(&o.timer, st_timer_fn, 0);
	mod_timer(&o.timer, jiffies + 3600 * HZ);
	if (timer_delete(&o.timer) != 1)
		return "a pending timer: not 1";
	if (timer_pending(&o.timer))
		return "still pending";
	if (timer_delete(&o.timer) != 0)
		return "an inactive timer: not 0";
	return NULL;
}

/* timer_delete_sync() (6.2): the same, waiting for the handler. */
static const char *test_timer_delete_sync_deactivates_a_pending_timer(void)
{
	static struct st_timer_owner o;

	timer_setup(&o.timer, st_timer_fn, 0);
	mod_timer(&o.timer, jiffies + 3600 * HZ);
	if (timer_delete_sync(&o.timer) != 1)
		return "a pending timer: not 1";
	if (timer_pending(&o.timer))
		return "still pending";
	if (timer_delete_sync(&o.timer) != 0)
		return "an inactive timer: not 0";
	return NULL;
}

/* guard(spinlock_bh): held with bottom halves off in the scope, not after. */
static const char *test_spinlock_bh_guard_holds_the_lock_in_its_scope(void)
{
	static DEFINE_SPINLOCK(lock);
	bool held = false, bh_off = false;

	/* guard() in a block: scoped_guard() needs gnu11, 5.10 builds gnu89. */
	{
		guard(spinlock_bh)(&lock);
		held = spin_is_locked(&lock);
		bh_off = softirq_count() != 0;
	}
	if (!held)
		return "the lock was not held in the scope";
	if (!bh_off)
		return "bottom halves were not disabled in the scope";
	if (spin_is_locked(&lock) || softirq_count())
		return "the lock or bottom halves stayed taken after the scope";
	return NULL;
}

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/*
 * scoped_guard() with a return inside (6.13's form of the macro): a
 * function whose only return is in the guarded body compiles (the old
 * form is -Werror=return-type: the build fails, not the guest), and the
 * body runs once, holding the lock, which the return releases. Only in
 * C11: the output tree builds the selftest with gnu11 (Kbuild.cflags),
 * and a scoped_guard() cannot be written in 5.10's own gnu89.
 */
static int st_scoped_guard_read(spinlock_t *lock, const int *v, bool *held)
{
	scoped_guard(spinlock_bh, lock) {
		*held = spin_is_locked(lock) && softirq_count();
		return *v;
	}
}

static const char *test_scoped_guard_with_return_runs_its_body_once(void)
{
	static DEFINE_SPINLOCK(lock);
	bool held = false;
	int v = 42, runs = 0;

	if (st_scoped_guard_read(&lock, &v, &held) != 42)
		return "the value returned from the body was not returned";
	if (!held)
		return "the lock was not held with bottom halves off in the body";
	if (spin_is_locked(&lock) || softirq_count())
		return "the lock or bottom halves stayed taken after the return";
	scoped_guard(spinlock_bh, &lock)
		runs++;
	if (runs != 1)
		return "a body without a return did not run exactly once";
	scoped_guard(spinlock_bh, &lock) {
		runs++;
		break;
	}
	if (runs != 2 || spin_is_locked(&lock) || softirq_count())
		return "a body left by break did not run once and release the lock";
	return NULL;
}
#endif

struct st_hrtimer {
	struct hrtimer timer;
	atomic_t fired;
};

static enum hrtimer_restart st_hrtimer_fn(struct hrtimer *t)
{
	struct st_hrtimer *s = container_of(t, struct st_hrtimer, timer);

	atomic_inc(&s->fired);
	return HRTIMER_NORESTART;
}

/* hrtimer_setup() (6.13): the callback and clock it was given; it fires. */
static const char *test_hrtimer_setup_sets_the_callback_and_clock(void)
{
	static struct st_hrtimer s;
	const char *err = NULL;
	int i;

	atomic_set(&s.fired, 0);
	hrtimer_setup(&s.timer, st_hrtimer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	if (s.timer.function != st_hrtimer_fn)
		return "the callback is not the one given";
	if (s.timer.base->clockid != CLOCK_MONOTONIC)
		return "the clock is not the one given";
	hrtimer_start(&s.timer, us_to_ktime(100), HRTIMER_MODE_REL);
	for (i = 0; i < 100 && !atomic_read(&s.fired); i++)
		msleep(10);
	if (atomic_read(&s.fired) != 1)
		err = "the timer did not fire once within a second";
	hrtimer_cancel(&s.timer);
	return err;
}

/* secs_to_jiffies() (6.13): seconds times HZ, a constant expression. */
static const char *test_secs_to_jiffies_is_seconds_times_hz(void)
{
	static const unsigned long two = secs_to_jiffies(2);
	unsigned int s = 7;

	if (two != 2 * HZ || secs_to_jiffies(s) != 7UL * HZ)
		return "not seconds times HZ";
	return NULL;
}

/* us_to_ktime(): microseconds in nanoseconds, past 32 bits too. */
static const char *test_us_to_ktime_is_microseconds_in_nanoseconds(void)
{
	if (us_to_ktime(1234) != 1234000 ||
	    us_to_ktime(5000000000ULL) != 5000000000000ULL)
		return "not microseconds times 1000";
	return NULL;
}

/* An attribute of type @type and value @v in @buf (NLA_HDRLEN + 4 bytes). */
static struct nlattr *st_attr(void *buf, int type, u32 v, int len)
{
	struct nlattr *nla = buf;

	memset(buf, 0, NLA_HDRLEN + 4);
	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	memcpy(nla_data(nla), &v, len);
	return nla;
}

/* nla_get_u{8,16,32}_default() (6.13): the value, or the default for NULL. */
static const char *test_nla_get_u8_default_value_or_default(void)
{
	u32 buf[2];
	struct nlattr *nla = st_attr(buf, 1, 0xa5, 1);

	if (nla_get_u8_default(nla, 7) != 0xa5 || nla_get_u8_default(NULL, 7) != 7)
		return "not the value, or not the default for a missing attribute";
	return NULL;
}

static const char *test_nla_get_u16_default_value_or_default(void)
{
	u32 buf[2];
	struct nlattr *nla = st_attr(buf, 1, 0xbeef, 2);

	if (nla_get_u16_default(nla, 7) != 0xbeef ||
	    nla_get_u16_default(NULL, 0x1234) != 0x1234)
		return "not the value, or not the default for a missing attribute";
	return NULL;
}

static const char *test_nla_get_u32_default_value_or_default(void)
{
	u32 buf[2];
	struct nlattr *nla = st_attr(buf, 1, 0xdeadbeef, 4);

	if (nla_get_u32_default(nla, 7) != 0xdeadbeef ||
	    nla_get_u32_default(NULL, 0x12345678) != 0x12345678)
		return "not the value, or not the default for a missing attribute";
	return NULL;
}

/* nlmsg_for_each_attr_type(): only the attributes of the type, in order. */
static const char *test_nlmsg_for_each_attr_type_visits_one_type(void)
{
	struct sk_buff *skb = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	struct nlmsghdr *nlh;
	struct nlattr *a;
	u32 sum = 0;
	int rem, n = 0;

	if (!skb)
		return "out of memory";
	nlh = nlmsg_put(skb, 0, 0, 0x10, 4, 0);
	if (!nlh || nla_put_u32(skb, 1, 10) || nla_put_u32(skb, 2, 20) ||
	    nla_put_u32(skb, 1, 30)) {
		kfree_skb(skb);
		return "could not build the message";
	}
	nlmsg_end(skb, nlh);
	nlmsg_for_each_attr_type(a, 1, nlh, 4, rem) {
		n++;
		sum = sum * 100 + nla_get_u32(a);
	}
	kfree_skb(skb);
	return n == 2 && sum == 1030 ? NULL : "not the two attributes of type 1, in order";
}

/*
 * NL_SET_ERR_MSG_FMT() (6.2): a message in the extack. The target's own
 * formats it; the shim (no buffer in the structure) gives the format.
 */
static const char *test_nl_set_err_msg_fmt_sets_a_message(void)
{
	struct netlink_ext_ack extack = {};
	int v = 5;

	NL_SET_ERR_MSG_FMT(&extack, "value %d out of range", v);
	if (!extack._msg)
		return "no message";
#if RETROFI_LINUX_LESS(6, 2, 0) && !RETROFI_HAVE_NL_SET_ERR_MSG_FMT
	if (strcmp(extack._msg, "value %d out of range"))
		return "the shim's message is not the format";
#else
	if (strcmp(extack._msg, "value 5 out of range"))
		return "the message is not formatted";
#endif
	return NULL;
}

/* get_random_u8() (6.1): every bit is set by some draw and cleared by another. */
static const char *test_get_random_u8_draws_every_bit(void)
{
	u8 or = 0, and = 0xff;
	int i;

	for (i = 0; i < 512; i++) {
		u8 v = get_random_u8();

		or |= v;
		and &= v;
	}
	return or == 0xff && and == 0 ? NULL : "some bit is stuck";
}

/* get_random_u32_inclusive() (6.2): within [floor, ceil], every value seen. */
static const char *test_get_random_u32_inclusive_stays_in_range(void)
{
	bool seen[3] = {};
	int i;

	for (i = 0; i < 600; i++) {
		u32 v = get_random_u32_inclusive(5, 7);

		if (v < 5 || v > 7)
			return "a value out of [5, 7]";
		seen[v - 5] = true;
	}
	if (!seen[0] || !seen[1] || !seen[2])
		return "some value of [5, 7] never drawn in 600";
	for (i = 0; i < 64; i++)
		if (get_random_u32_inclusive(0xfffffff0, 0xffffffff) < 0xfffffff0)
			return "a value below a high floor";
	return NULL;
}

/* strscpy(dst, src) (6.8): the size of the array; truncates with -E2BIG. */
static const char *test_strscpy_with_two_arguments_uses_the_array_size(void)
{
	char b[4];

	if (strscpy(b, "abcdef") != -E2BIG || strcmp(b, "abc"))
		return "not truncated to the array with -E2BIG";
	if (strscpy(b, "xy") != 2 || strcmp(b, "xy"))
		return "a short string not copied whole";
	if (strscpy(b, "abcdef", 2) != -E2BIG || strcmp(b, "a"))
		return "the three-argument form does not use its size";
	return NULL;
}

/*
 * strscpy_pad(dst, src) (6.9): the size of the array, the rest of it
 * zeroed; truncates with -E2BIG; three arguments pad only up to the size.
 */
static const char *test_strscpy_pad_with_two_arguments_pads_the_array(void)
{
	char b[6];

	memset(b, 'x', sizeof(b));
	if (strscpy_pad(b, "ab") != 2 || memcmp(b, "ab\0\0\0\0", sizeof(b)))
		return "a short string not copied and zero-padded to the array";
	memset(b, 'x', sizeof(b));
	if (strscpy_pad(b, "abcdefgh") != -E2BIG || strcmp(b, "abcde"))
		return "not truncated to the array with -E2BIG";
	memset(b, 'x', sizeof(b));
	if (strscpy_pad(b, "a", 3) != 1 || memcmp(b, "a\0\0xxx", sizeof(b)))
		return "the three-argument form does not pad up to its size only";
	return NULL;
}

struct st_work {
	struct work_struct work;
	int ran;
};

static void st_work_fn(struct work_struct *w)
{
	container_of(w, struct st_work, work)->ran++;
}

/* system_dfl_wq (6.17): an unbound workqueue that runs the work. */
static const char *test_system_dfl_wq_runs_work(void)
{
	struct st_work w = { .ran = 0 };

	INIT_WORK_ONSTACK(&w.work, st_work_fn);
	if (!queue_work(system_dfl_wq, &w.work))
		return "not queued";
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	return w.ran == 1 ? NULL : "the work did not run once";
}

/* DEFINE_RAW_FLEX() (6.10): zeroed, room for the count, on the stack. */
static const char *test_define_raw_flex_is_zeroed_with_room_for_the_count(void)
{
	DEFINE_RAW_FLEX(struct st_flex, f, v, 3);

	if (sizeof(f_u) < sizeof(struct st_flex) + 3 * sizeof(u64))
		return "no room for 3 elements";
	if (!st_all_zero(f, sizeof(struct st_flex) + 3 * sizeof(u64)))
		return "not zeroed";
	f->v[2] = 42;
	return f->v[2] == 42 ? NULL : "the last element is not writable";
}

/*
 * The AES-CMAC library (7.x): RFC 4493's four AES-128 examples (0, 16, 40
 * and 64 bytes of its message), one call and in uneven pieces; a key of
 * a length AES has not is refused.
 */
static const char *test_aes_cmac_matches_the_rfc_4493_examples(void)
{
	static const u8 k[16] = {
		0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
		0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
	};
	static const u8 m[64] = {
		0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96,
		0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a,
		0xae, 0x2d, 0x8a, 0x57, 0x1e, 0x03, 0xac, 0x9c,
		0x9e, 0xb7, 0x6f, 0xac, 0x45, 0xaf, 0x8e, 0x51,
		0x30, 0xc8, 0x1c, 0x46, 0xa3, 0x5c, 0xe4, 0x11,
		0xe5, 0xfb, 0xc1, 0x19, 0x1a, 0x0a, 0x52, 0xef,
		0xf6, 0x9f, 0x24, 0x45, 0xdf, 0x4f, 0x9b, 0x17,
		0xad, 0x2b, 0x41, 0x7b, 0xe6, 0x6c, 0x37, 0x10,
	};
	static const struct {
		size_t len;
		u8 mac[16];
	} ex[] = {
		{ 0, { 0xbb, 0x1d, 0x69, 0x29, 0xe9, 0x59, 0x37, 0x28,
		       0x7f, 0xa3, 0x7d, 0x12, 0x9b, 0x75, 0x67, 0x46 } },
		{ 16, { 0x07, 0x0a, 0x16, 0xb4, 0x6b, 0x4d, 0x41, 0x44,
			0xf7, 0x9b, 0xdd, 0x9d, 0xd0, 0x4a, 0x28, 0x7c } },
		{ 40, { 0xdf, 0xa6, 0x67, 0x47, 0xde, 0x9a, 0xe6, 0x30,
			0x30, 0xca, 0x32, 0x61, 0x14, 0x97, 0xc8, 0x27 } },
		{ 64, { 0x51, 0xf0, 0xbe, 0xbf, 0x7e, 0x3b, 0x9d, 0x92,
			0xfc, 0x49, 0x74, 0x17, 0x79, 0x36, 0x3c, 0xfe } },
	};
	struct aes_cmac_key *key;
	struct aes_cmac_ctx ctx;
	const char *err = NULL;
	u8 out[16];
	size_t i, off, step;

	key = kzalloc(sizeof(*key), GFP_KERNEL);
	if (!key)
		return "out of memory";
	if (aes_cmac_preparekey(key, k, 20) != -EINVAL) {
		err = "a 20-byte key was not refused with -EINVAL";
		goto out;
	}
	if (aes_cmac_preparekey(key, k, sizeof(k))) {
		err = "the RFC 4493 key was refused";
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(ex); i++) {
		aes_cmac(key, m, ex[i].len, out);
		if (memcmp(out, ex[i].mac, 16)) {
			err = "a MAC in one call is not the RFC 4493 example's";
			goto out;
		}
		/* In pieces of 1, 2, 3, ... bytes, with empty updates between. */
		aes_cmac_init(&ctx, key);
		for (off = 0, step = 1; off < ex[i].len; off += step, step++) {
			aes_cmac_update(&ctx, m + off, min(step, ex[i].len - off));
			aes_cmac_update(&ctx, m, 0);
		}
		aes_cmac_final(&ctx, out);
		if (memcmp(out, ex[i].mac, 16)) {
			err = "a MAC in pieces is not the RFC 4493 example's";
			goto out;
		}
	}
out:
	aes_cmac_zeroize_key(key);
	kfree(key);
	return err;
}

/*
 * aes_cmac_zeroize_key() and aes_cmac_zeroize_ctx() (7.3): a prepared key
 * and a context in use are all zeroes afterwards.
 */
static const char *test_aes_cmac_zeroize_clears_the_key_and_the_context(void)
{
	static const u8 k[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6 };
	static const u8 m[24] = { 0x6b, 0xc1, 0xbe, 0xe2 };
	struct aes_cmac_key *key;
	struct aes_cmac_ctx *ctx;
	const char *err = NULL;

	key = kzalloc(sizeof(*key), GFP_KERNEL);
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!key || !ctx) {
		err = "out of memory";
		goto out;
	}
	if (aes_cmac_preparekey(key, k, sizeof(k))) {
		err = "a 16-byte key was refused";
		goto out;
	}
	aes_cmac_init(ctx, key);
	aes_cmac_update(ctx, m, sizeof(m));
	if (!memchr_inv(key, 0, sizeof(*key)) || !memchr_inv(ctx, 0, sizeof(*ctx))) {
		err = "the prepared key or the context in use is all zeroes already";
		goto out;
	}
	aes_cmac_zeroize_ctx(ctx);
	aes_cmac_zeroize_key(key);
	if (memchr_inv(ctx, 0, sizeof(*ctx)))
		err = "aes_cmac_zeroize_ctx() left a byte of the context set";
	else if (memchr_inv(key, 0, sizeof(*key)))
		err = "aes_cmac_zeroize_key() left a byte of the key set";
out:
	kfree(ctx);
	kfree_sensitive(key);
	return err;
}

struct st_faux {
	int probed, removed;
};

static struct st_faux st_faux_seen;

static int st_faux_probe(struct faux_device *fdev)
{
	st_faux_seen.probed++;
	faux_device_set_drvdata(fdev, &st_faux_seen);
	return 0;
}

static int st_faux_probe_fails(struct faux_device *fdev)
{
	st_faux_seen.probed++;
	return -ENODEV;
}

static void st_faux_remove(struct faux_device *fdev)
{
	st_faux_seen.removed++;
}

/*
 * The faux device API (6.14): a device of the name given, probed once
 * when made and removed when destroyed; a failed probe gives NULL.
 */
static const char *test_faux_device_is_made_probed_and_destroyed(void)
{
	static const struct faux_device_ops ops = {
		.probe = st_faux_probe,
		.remove = st_faux_remove,
	};
	static const struct faux_device_ops failing = {
		.probe = st_faux_probe_fails,
	};
	struct faux_device *fdev;
	const char *err = NULL;

	memset(&st_faux_seen, 0, sizeof(st_faux_seen));
	fdev = faux_device_create("retrofi_selftest_faux", NULL, &ops);
	if (!fdev)
		return "not created";
	if (strcmp(dev_name(&fdev->dev), "retrofi_selftest_faux"))
		err = "the device does not have the name given";
	else if (st_faux_seen.probed != 1 ||
		 faux_device_get_drvdata(fdev) != &st_faux_seen)
		err = "not probed once, or the probe's driver data is gone";
	faux_device_destroy(fdev);
	if (!err && st_faux_seen.removed != 1)
		err = "not removed once when destroyed";
	if (err)
		return err;
	fdev = faux_device_create("retrofi_selftest_faux", NULL, &failing);
	if (fdev) {
		faux_device_destroy(fdev);
		return "a device whose probe failed was made";
	}
	return st_faux_seen.probed == 2 ? NULL : "the failing probe did not run";
}

static int st_stubbed(int x)
{
	KUNIT_STATIC_STUB_REDIRECT(st_stubbed, x);
	return x * 3;
}

/* KUNIT_STATIC_STUB_REDIRECT() (6.3): outside a KUnit test, the body runs. */
static const char *test_kunit_static_stub_redirect_runs_the_body(void)
{
	return st_stubbed(5) == 15 ? NULL : "the function's body did not run";
}

/* sk_requests_wifi_status(): SOCK_WIFI_STATUS of a full socket; NULL is no. */
static const char *test_sk_requests_wifi_status_follows_the_socket_flag(void)
{
	struct socket *sock;
	const char *err = NULL;

	if (sk_requests_wifi_status(NULL))
		return "a frame without a socket requests a status";
	if (sock_create_kern(&init_net, AF_INET, SOCK_DGRAM, IPPROTO_UDP, &sock))
		return "no UDP socket";
	if (sk_requests_wifi_status(sock->sk))
		err = "requested before SO_WIFI_STATUS";
	sock_set_flag(sock->sk, SOCK_WIFI_STATUS);
	if (!err && !sk_requests_wifi_status(sock->sk))
		err = "not requested with SOCK_WIFI_STATUS set";
	sock_release(sock);
	return err;
}

/* devm_kmemdup_array(): a device-managed copy; an overflowing size fails. */
static const char *test_devm_kmemdup_array_copies_and_refuses_overflow(void)
{
	static const u32 src[3] = { 1, 2, 0xfeedf00d };
	struct platform_device *pdev;
	const char *err = NULL;
	size_t huge = SIZE_MAX / 4 + 2;	/* times 4 wraps to 4 */
	u32 *copy;

	OPTIMIZER_HIDE_VAR(huge);
	pdev = platform_device_register_simple("retrofi_selftest_devm", -1, NULL, 0);
	if (IS_ERR(pdev))
		return "no platform device";
	copy = devm_kmemdup_array(&pdev->dev, src, 3, sizeof(u32), GFP_KERNEL);
	if (!copy || memcmp(copy, src, sizeof(src)))
		err = "not a copy of the array";
	else if (devm_kmemdup_array(&pdev->dev, src, huge, sizeof(u32),
				    GFP_KERNEL | __GFP_NOWARN))
		err = "an overflowing size was allocated";
	platform_device_unregister(pdev);
	return err;
}

#ifndef RETROFI_SELFTEST_INLINE_SHIMS_ONLY
/* debugfs_change_name() (6.14): the entry has the formatted name after. */
static const char *test_debugfs_change_name_renames_in_place(void)
{
	struct dentry *dir, *found;
	const char *err = NULL;

	if (!IS_ENABLED(CONFIG_DEBUG_FS))
		return SKIP("the target has no debugfs");
	dir = debugfs_create_dir("retrofi_selftest_old", NULL);
	if (IS_ERR_OR_NULL(dir))
		return SKIP("debugfs refuses new entries here");
	if (debugfs_change_name(dir, "retrofi_selftest_%d", 7)) {
		err = "the rename failed";
		goto out;
	}
	found = debugfs_lookup("retrofi_selftest_7", NULL);
	if (found != dir)
		err = "no entry of the new name, or not the same one";
	dput(found);
	found = debugfs_lookup("retrofi_selftest_old", NULL);
	if (!err && found)
		err = "the old name is still there";
	dput(found);
	if (!err && debugfs_change_name(NULL, "x"))
		err = "renaming nothing is not success";
out:
	debugfs_remove(dir);
	return err;
}
#endif

/*
 * <linux/hex.h> (6.4): the hex helpers by this header alone, as 7.x's
 * mac80211 includes it (before 6.4 they are <linux/kernel.h>'s).
 */
static const char *test_hex_helpers_pack_and_parse_bytes(void)
{
	static const u8 bytes[] = { 0x0a, 0xb1, 0xff };
	u8 back[3] = {}, mac[ETH_ALEN];
	char buf[8] = {}, *end;

	end = hex_byte_pack(buf, 0x3c);
	end = hex_byte_pack_upper(end, 0x3c);
	if (end != buf + 4 || memcmp(buf, "3c3C", 4))
		return "hex_byte_pack() and hex_byte_pack_upper() do not give 3c3C";
	memset(buf, 0, sizeof(buf));
	if (bin2hex(buf, bytes, 3) != buf + 6 || strcmp(buf, "0ab1ff"))
		return "bin2hex() does not give 0ab1ff";
	if (hex2bin(back, "0AB1ff", 3) || memcmp(back, bytes, 3))
		return "hex2bin() does not read 0AB1ff back";
	if (hex2bin(back, "0g", 1) != -EINVAL || hex_to_bin('x') != -1)
		return "a character that is no hex digit is not refused";
	if (!mac_pton("02:00:00:00:01:ff", mac) || mac[0] != 2 || mac[5] != 0xff)
		return "mac_pton() does not read 02:00:00:00:01:ff";
	return mac_pton("02:00", mac) ? "mac_pton() accepts a short address" : NULL;
}

/*
 * debugfs_create_file() of a struct debugfs_short_fops (6.13): the file
 * opens with simple_open(), so the handlers see the file's data, and its
 * read, write and llseek run the short operations' handlers. The file is
 * opened through a kernel mount of debugfs (the one superblock the
 * guest's mount point will show too); the handlers return their own
 * values without touching the buffer, so no user memory is needed.
 */
static void *st_short_data;

static ssize_t st_short_read(struct file *file, char __user *buf, size_t n, loff_t *pos)
{
	st_short_data = file->private_data;
	return 11;
}

static ssize_t st_short_write(struct file *file, const char __user *buf, size_t n,
			      loff_t *pos)
{
	st_short_data = file->private_data;
	return 22;
}

static const struct debugfs_short_fops st_short_fops = {
	.read = st_short_read,
	.write = st_short_write,
	.llseek = default_llseek,
};

static const char *test_debugfs_short_fops_file_runs_its_handlers_on_its_data(void)
{
	struct file_system_type *type;
	struct vfsmount *mnt;
	struct path path;
	struct dentry *d;
	struct file *f;
	const char *err = NULL;
	loff_t pos = 0;
	int data = 7;

	if (!IS_ENABLED(CONFIG_DEBUG_FS))
		return SKIP("the target has no debugfs");
	d = debugfs_create_file("retrofi_selftest_short", 0600, NULL, &data, &st_short_fops);
	if (IS_ERR_OR_NULL(d))
		return "no file was created";
	type = get_fs_type("debugfs");
	mnt = type ? kern_mount(type) : ERR_PTR(-ENODEV);
	if (IS_ERR(mnt)) {
		err = "debugfs cannot be mounted in the kernel";
		goto out;
	}
	path.mnt = mnt;
	path.dentry = d;
	f = dentry_open(&path, O_RDWR, current_cred());
	if (IS_ERR(f)) {
		err = "the file does not open";
		goto unmount;
	}
	if (f->f_op->read(f, NULL, 1, &pos) != 11 || st_short_data != &data)
		err = "read did not run the short read on the file's data";
	else if (f->f_op->write(f, NULL, 1, &pos) != 22 || st_short_data != &data)
		err = "write did not run the short write on the file's data";
	else if (vfs_llseek(f, 5, SEEK_SET) != 5 || f->f_pos != 5)
		err = "llseek did not run the short llseek";
	fput(f);
unmount:
	kern_unmount(mnt);
out:
	debugfs_remove(d);
	return err;
}

static void st_count(int *n)
{
	(*n)++;
}

/* DO_ONCE_LITE() (5.14): once per call site; _IF: only once the condition holds. */
static const char *test_do_once_lite_calls_once_per_site(void)
{
	int once = 0, cond = 0, i;

	for (i = 0; i < 3; i++)
		DO_ONCE_LITE(st_count, &once);
	for (i = 0; i < 3; i++)
		if (DO_ONCE_LITE_IF(i >= 1, st_count, &cond) != (i >= 1))
			return "DO_ONCE_LITE_IF() is not the condition";
	if (once != 1)
		return "DO_ONCE_LITE() did not call exactly once";
	return cond == 1 ? NULL : "DO_ONCE_LITE_IF() did not call once, when the condition held";
}

/*
 * lockdep_assert_in_softirq() (5.14): no warning in softirq context (with
 * bottom halves disabled, as in_softirq() counts them). The kernel's
 * TAINT_WARN says whether any WARN fired.
 */
static const char *test_lockdep_assert_in_softirq_is_quiet_in_softirq(void)
{
	if (test_taint(TAINT_WARN))
		return SKIP("the kernel has warned already: a new warning would not show");
	local_bh_disable();
	lockdep_assert_in_softirq();
	local_bh_enable();
	return test_taint(TAINT_WARN) ? "it warned in softirq context" : NULL;
}
