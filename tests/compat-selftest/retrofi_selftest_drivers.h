/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: the shims that the vendor drivers (mt76,
 * rtw89, ath11k, ath12k) need on older targets. Included by
 * retrofi_selftest.c before its table; the table entries are in
 * retrofi_selftest_drivers_cases.h. Each case checks against values
 * written here, not against the shim.
 */
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/irqnr.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/mhi.h>
#include <linux/mm.h>
#include <linux/mmc/sdio_ids.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/of_reserved_mem.h>
#include <linux/pci.h>
#include <linux/pci_ids.h>
#include <linux/pm.h>
#include <linux/property.h>
#include <linux/rcupdate.h>
#include <linux/rfkill.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/thermal.h>
#include <linux/soc/qcom/qmi.h>
#include <linux/un.h>
#include <linux/usb.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/page_pool/helpers.h>
#include <net/sock.h>

/*
 * pp_page_to_nmdesc() (7.2 or older): a page from a page pool names that
 * pool through its descriptor, as mt76 reads it. struct page has the
 * pool's fields from 5.14.
 */
#if !RETROFI_LINUX_LESS(5, 14, 0)
static const char *test_pp_page_to_nmdesc_names_the_pages_pool(void)
{
#if !IS_ENABLED(CONFIG_PAGE_POOL)
	/* A kernel that no driver of its own selects it for (the debug rows'). */
	return SKIP("the target has no page pool (CONFIG_PAGE_POOL)");
#else
	struct page_pool_params params = {
		.pool_size = 4,
		.nid = NUMA_NO_NODE,
	};
	struct page_pool *pool = page_pool_create(&params);
	const char *err = NULL;
	struct page *page;

	if (IS_ERR(pool))
		return PTR_ERR(pool) == -EOPNOTSUPP ?
			SKIP("the target has no page pool (CONFIG_PAGE_POOL)") :
			"page_pool_create() failed";
	page = page_pool_dev_alloc_pages(pool);
	if (!page)
		err = "the pool gave no page";
	else if (pp_page_to_nmdesc(page)->pp != pool)
		err = "the page's descriptor does not name its pool";
	if (page)
		page_pool_put_full_page(pool, page, false);
	page_pool_destroy(pool);
	return err;
#endif
}
#endif

/* PCI_VENDOR_ID_SPACEMIT, PCI_DEVICE_ID_SPACEMIT_K3 (7.3): upstream's values. */
static const char *test_pci_ids_spacemit_are_upstreams(void)
{
	if (PCI_VENDOR_ID_SPACEMIT == 0x201f && PCI_DEVICE_ID_SPACEMIT_K3 == 0x0002)
		return NULL;
	return "the SpacemiT IDs are not 0x201f, 0x0002";
}

/* PCI_VENDOR_ID_ITTIM (6.7): upstream's value. */
static const char *test_pci_vendor_id_ittim_is_upstreams(void)
{
	return PCI_VENDOR_ID_ITTIM == 0x0b48 ? NULL : "PCI_VENDOR_ID_ITTIM is not 0x0b48";
}

/* QMI_SERVICE_ID_WLFW (7.2 or older): upstream's value. */
static const char *test_qmi_service_id_wlfw_is_upstreams(void)
{
	return QMI_SERVICE_ID_WLFW == 0x45 ? NULL : "QMI_SERVICE_ID_WLFW is not 0x45";
}

/*
 * of_reserved_mem_region_to_resource() and _byname() (7.2 or older):
 * without a node, or without a name, -EINVAL where the kernel has
 * reserved memory regions, -ENOSYS where it has none.
 */
static const char *test_of_reserved_mem_region_to_resource_refuses_no_node(void)
{
	int want = IS_ENABLED(CONFIG_OF_RESERVED_MEM) ? -EINVAL : -ENOSYS;
	struct resource res;

	if (of_reserved_mem_region_to_resource(NULL, 0, &res) != want)
		return "of_reserved_mem_region_to_resource(NULL) is not the expected error";
	if (of_reserved_mem_region_to_resource_byname(NULL, NULL, &res) != want)
		return "of_reserved_mem_region_to_resource_byname(NULL, NULL) is not the expected error";
	return NULL;
}

/*
 * kernel_connect() of a struct sockaddr_unsized (7.2 or older): a socket
 * connected through the cast that ath11k and ath12k write has the address
 * as its peer. Unix datagram sockets with an abstract address need no
 * interface up. The bind and the peer's name go through the socket's own
 * operations, with a void * where 7.3's take a struct sockaddr_unsized *.
 */
static const char *test_kernel_connect_of_sockaddr_unsized_connects(void)
{
	static const char name[] = "retrofi-selftest-connect";
	struct sockaddr_un sun = { .sun_family = AF_UNIX }, peer = {};
	int len = offsetof(struct sockaddr_un, sun_path) + 1 + sizeof(name) - 1;
	struct socket *server, *client;
	const char *err = NULL;

	memcpy(sun.sun_path + 1, name, sizeof(name) - 1);
	if (sock_create_kern(&init_net, AF_UNIX, SOCK_DGRAM, 0, &server))
		return "no kernel unix socket";
	if (sock_create_kern(&init_net, AF_UNIX, SOCK_DGRAM, 0, &client)) {
		sock_release(server);
		return "no second kernel unix socket";
	}
	if (server->ops->bind(server, (void *)&sun, len))
		err = "the server socket did not bind";
	else if (kernel_connect(client, (struct sockaddr_unsized *)&sun, len, 0))
		err = "kernel_connect() failed";
	else if (client->ops->getname(client, (void *)&peer, 1) != len ||
		 memcmp(&peer, &sun, len))
		err = "the socket's peer is not the address given";
	sock_release(client);
	sock_release(server);
	return err;
}

/* The poll of the NAPI instances the cases below add: never scheduled. */
static int st_napi_poll(struct napi_struct *napi, int budget)
{
	return 0;
}

/*
 * An Ethernet device, not registered, whose private area is one NAPI
 * instance added with poll: the device, or NULL.
 */
static struct net_device *st_napi_dev(int (*poll)(struct napi_struct *, int),
				      struct napi_struct **napi)
{
	struct net_device *dev;

	dev = alloc_netdev(sizeof(**napi), "retrofi_st%d", NET_NAME_ENUM, ether_setup);
	if (!dev)
		return NULL;
	*napi = netdev_priv(dev);
	netif_napi_add(dev, *napi, poll);
	return dev;
}

/*
 * netif_threaded_enable() (7.2 or older): every NAPI instance of the
 * device runs threaded, with its thread made. Threaded NAPI is 5.12's.
 */
#if !RETROFI_LINUX_LESS(5, 12, 0)
static const char *test_netif_threaded_enable_makes_napi_threaded(void)
{
	struct napi_struct *napi;
	struct net_device *dev;
	const char *err = NULL;

	dev = st_napi_dev(st_napi_poll, &napi);
	if (!dev)
		return "alloc_netdev() failed";
	netif_threaded_enable(dev);
	if (!test_bit(NAPI_STATE_THREADED, &napi->state))
		err = "the NAPI instance is not threaded";
	else if (!napi->thread)
		err = "the NAPI instance has no thread";
	netif_napi_del(napi);
	free_netdev(dev);
	return err;
}
#endif

/*
 * field_prep(), field_get() (7.2 or older): a mask known only at run time,
 * of 32 and of 64 bits, shifts by its lowest set bit; a constant one too.
 */
static const char *test_field_get_and_prep_take_a_runtime_mask(void)
{
	u64 mask64 = 0xff0000000000ULL;
	u32 mask = 0x00f0;

	OPTIMIZER_HIDE_VAR(mask);
	OPTIMIZER_HIDE_VAR(mask64);
	if (field_get(mask, 0x1234U) != 0x3)
		return "field_get(0xf0, 0x1234) is not 3";
	if (field_prep(mask, 0x5U) != 0x50)
		return "field_prep(0xf0, 5) is not 0x50";
	if (field_get(mask64, 0xab0000001234ULL) != 0xab)
		return "field_get() of a 64-bit mask is not the field";
	if (field_prep(mask64, 0xcdULL) != 0xcd0000000000ULL)
		return "field_prep() of a 64-bit mask is not in place";
	if (field_get(0x0f00U, 0x1234U) != 0x2 || field_prep(0x0f00U, 0x7U) != 0x700)
		return "field_get()/field_prep() of a constant mask is not FIELD_GET()/FIELD_PREP()";
	return NULL;
}

/*
 * FIELD_GET_SIGNED() (7.2 or older): the field sign-extended from its top
 * bit, in the signed type of the mask.
 */
static const char *test_field_get_signed_sign_extends_the_field(void)
{
	if (FIELD_GET_SIGNED(0x00f0U, 0x00f0U) != -1)
		return "a field of all ones is not -1";
	if (FIELD_GET_SIGNED(0x00f0U, 0x1270U) != 7)
		return "a field with its top bit clear is not its value";
	if (FIELD_GET_SIGNED(GENMASK(11, 4), 0x800U) != -128)
		return "an 8-bit field of 0x80 is not -128";
	if (FIELD_GET_SIGNED(GENMASK_ULL(47, 40), 0xff0000000000ULL) != -1)
		return "a field of a 64-bit mask is not sign-extended";
	if (sizeof(FIELD_GET_SIGNED(0x00f0U, 0U)) != sizeof(int) ||
	    sizeof(FIELD_GET_SIGNED(GENMASK_ULL(47, 40), 0ULL)) != sizeof(long long))
		return "the result is not of the mask's width";
	return NULL;
}

/* PCI_IRQ_INTX (6.8): upstream's value, PCI_IRQ_LEGACY's before. */
static const char *test_pci_irq_intx_is_upstreams(void)
{
	return PCI_IRQ_INTX == 1 ? NULL : "PCI_IRQ_INTX is not 1 << 0";
}

/* napi_is_scheduled() (6.7): the NAPI_STATE_SCHED bit. */
static const char *test_napi_is_scheduled_reads_the_sched_bit(void)
{
	struct napi_struct napi = {};

	if (napi_is_scheduled(&napi))
		return "a NAPI instance with no state bit is scheduled";
	set_bit(NAPI_STATE_SCHED, &napi.state);
	return napi_is_scheduled(&napi) ? NULL :
		"a NAPI instance with NAPI_STATE_SCHED is not scheduled";
}

/*
 * alloc_netdev_dummy() (6.10): a device with its private area, present
 * and started, in init_net, that takes a NAPI instance and is freed by
 * free_netdev() (an older one frees only an uninitialised device).
 */
static const char *test_alloc_netdev_dummy_carries_napi_and_frees(void)
{
	struct napi_struct *napi;
	struct net_device *dev;
	const char *err = NULL;

	dev = alloc_netdev_dummy(sizeof(*napi));
	if (!dev)
		return "alloc_netdev_dummy() failed";
	napi = netdev_priv(dev);
	if (!test_bit(__LINK_STATE_PRESENT, &dev->state) ||
	    !test_bit(__LINK_STATE_START, &dev->state))
		err = "the device is not present and started";
	else if (!net_eq(dev_net(dev), &init_net))
		err = "the device is not in init_net";
	netif_napi_add(dev, napi, st_napi_poll);
	if (!err && list_empty(&dev->napi_list))
		err = "the NAPI instance is not on the device";
	netif_napi_del(napi);
	free_netdev(dev);
	return err;
}

/*
 * irq_can_set_affinity() (exported from 7.3): an interrupt number no
 * descriptor has cannot take an affinity; on an SMP kernel some interrupt
 * of the legacy range can (the guest's IO-APIC interrupts are balanced,
 * and their chip sets affinities).
 */
static const char *test_irq_can_set_affinity_answers_for_real_interrupts(void)
{
	unsigned int irq;

	if (irq_can_set_affinity(UINT_MAX))
		return "an interrupt number with no descriptor can take an affinity";
	if (!IS_ENABLED(CONFIG_SMP))
		return SKIP("a kernel without CONFIG_SMP sets no affinity");
	for (irq = 1; irq < 16; irq++)
		if (irq_can_set_affinity(irq))
			return NULL;
	return SKIP("no legacy interrupt of this machine takes an affinity");
}

/*
 * netif_napi_add() of three arguments (6.1): the instance is on the
 * device's list, of the default weight.
 */
static const char *test_netif_napi_add_takes_the_default_weight(void)
{
	struct napi_struct *napi;
	struct net_device *dev;
	const char *err = NULL;

	dev = st_napi_dev(st_napi_poll, &napi);
	if (!dev)
		return "alloc_netdev() failed";
	if (list_empty(&dev->napi_list))
		err = "the NAPI instance is not on the device";
	else if (napi->weight != 64)
		err = "the NAPI instance's weight is not NAPI_POLL_WEIGHT (64)";
	netif_napi_del(napi);
	free_netdev(dev);
	return err;
}

/* A poll that completes at once: the instance leaves the scheduled state. */
static int st_napi_poll_complete(struct napi_struct *napi, int budget)
{
	napi_complete_done(napi, 0);
	return 0;
}

/*
 * napi_schedule() returning bool (6.7): true for the call that schedules
 * an enabled instance, false while it is still scheduled (bottom halves
 * off, so its poll cannot run in between). The poll completes it when
 * they come back on, so that napi_disable() returns.
 */
static const char *test_napi_schedule_says_whether_it_scheduled(void)
{
	struct napi_struct *napi;
	struct net_device *dev;
	const char *err = NULL;
	bool first, second;

	dev = st_napi_dev(st_napi_poll_complete, &napi);
	if (!dev)
		return "alloc_netdev() failed";
	napi_enable(napi);
	local_bh_disable();
	first = napi_schedule(napi);
	second = napi_schedule(napi);
	local_bh_enable();
	if (!first)
		err = "napi_schedule() of an idle instance says it did not schedule";
	else if (second)
		err = "napi_schedule() of a scheduled instance says it scheduled";
	napi_disable(napi);
	netif_napi_del(napi);
	free_netdev(dev);
	return err;
}

/* abs_diff() (6.6): the distance, in either order, without overflow. */
static const char *test_abs_diff_is_the_distance(void)
{
	unsigned int a = 3, b = UINT_MAX;
	int c = -5, d = 7;

	OPTIMIZER_HIDE_VAR(a);
	OPTIMIZER_HIDE_VAR(c);
	if (abs_diff(a, b) != UINT_MAX - 3 || abs_diff(b, a) != UINT_MAX - 3)
		return "abs_diff() of 3 and UINT_MAX is not UINT_MAX - 3";
	if (abs_diff(c, d) != 12 || abs_diff(d, c) != 12)
		return "abs_diff(-5, 7) is not 12";
	return NULL;
}

/* roundup_u64() (6.11): up to the next multiple of a 32-bit divisor. */
static const char *test_roundup_u64_rounds_up_to_the_multiple(void)
{
	u64 x = 10000000001ULL;

	OPTIMIZER_HIDE_VAR(x);
	if (roundup_u64(x, 1000) != 10000001000ULL)
		return "roundup_u64(10000000001, 1000) is not 10000001000";
	if (roundup_u64(10000001000ULL, 1000) != 10000001000ULL)
		return "a multiple is not kept";
	if (roundup_u64(0, 7) != 0)
		return "roundup_u64(0, 7) is not 0";
	return NULL;
}

/* struct_size_t() (6.5): the type's size with its array, saturating. */
struct st_sized {
	u32 n;
	u16 items[];
};

static const char *test_struct_size_t_sizes_the_type_and_saturates(void)
{
	size_t huge = SIZE_MAX / 2;

	OPTIMIZER_HIDE_VAR(huge);
	if (struct_size_t(struct st_sized, items, 3) != sizeof(struct st_sized) + 6)
		return "struct_size_t() of three u16 items is not the header and 6 bytes";
	if (struct_size_t(struct st_sized, items, huge) != SIZE_MAX)
		return "struct_size_t() of an overflowing count does not saturate";
	return NULL;
}

/*
 * __struct_size() (6.7), as iwlmvm sizes a DEFINE_RAW_FLEX() command: the
 * whole on-stack object (header and elements, padded).
 */
static const char *test_struct_size_is_the_size_of_a_raw_flex_object(void)
{
	DEFINE_RAW_FLEX(struct st_sized, f, items, 5);
	size_t one = 1;

	if (__struct_size(f) != sizeof(f_u))
		return "__struct_size() of a raw flex object is not its size on the stack";
	if (__struct_size(f) < sizeof(struct st_sized) + 5 * sizeof(u16))
		return "__struct_size() of a raw flex object of 5 u16 items is short of them";
	return __struct_size(&one) == sizeof(one) ? NULL :
		"__struct_size() of a size_t on the stack is not sizeof(size_t)";
}

/*
 * Every local variable starts zeroed, as on the source's own kernel
 * (CONFIG_INIT_STACK_ALL_ZERO from 6.1; Kbuild.cflags adds
 * -ftrivial-auto-var-init=zero where the target's build has neither it
 * nor the pattern). The first call leaves a pattern where the second's
 * array will be, read through a pointer the compiler cannot follow.
 */
static noinline void st_stack_fill(void)
{
	u8 buf[64];

	memset(buf, 0xa5, sizeof(buf));
	barrier_data(buf);
}

static noinline const char *st_stack_read(void)
{
	u8 buf[64];
	u8 *p = buf;
	size_t i;

	OPTIMIZER_HIDE_VAR(p);
	for (i = 0; i < sizeof(buf); i++)
		if (READ_ONCE(p[i]))
			return "a local array does not start zeroed";
	return NULL;
}

static const char *test_stack_variables_start_zeroed(void)
{
	st_stack_fill();
	return st_stack_read();
}

/*
 * rfkill_soft_blocked() (5.17) follows the soft state set on a device
 * that is not hard blocked (the shim's exact range: iwlwifi-ath1xk.md),
 * on a device of st_rfkill_alloc() (retrofi_selftest_5x.h).
 */
static const char *test_rfkill_soft_blocked_follows_the_soft_state(void)
{
	struct rfkill *rfk;
	const char *err = NULL;

	if (!IS_ENABLED(CONFIG_RFKILL))
		return SKIP("the target has no rfkill");
	rfk = st_rfkill_alloc("retrofi_selftest_soft");
	if (!rfk)
		return "rfkill_alloc failed";
	if (rfkill_soft_blocked(rfk))
		err = "a device never blocked is soft blocked";
	else if (!rfkill_set_sw_state(rfk, true) || !rfkill_soft_blocked(rfk))
		err = "a soft block is not seen";
	else if (rfkill_set_sw_state(rfk, false) || rfkill_soft_blocked(rfk))
		err = "the soft block is seen after it was lifted";
	rfkill_destroy(rfk);
	return err;
}

/* SDIO_VENDOR_ID_REALTEK and rtw88's SDIO chips (6.4 to 6.9): upstream's values. */
static const char *test_sdio_ids_realtek_are_upstreams(void)
{
	if (SDIO_VENDOR_ID_REALTEK != 0x024c)
		return "SDIO_VENDOR_ID_REALTEK is not 0x024c";
	if (SDIO_DEVICE_ID_REALTEK_RTW8822BS != 0xb822 ||
	    SDIO_DEVICE_ID_REALTEK_RTW8822CS != 0xc822 ||
	    SDIO_DEVICE_ID_REALTEK_RTW8821CS != 0xc821 ||
	    SDIO_DEVICE_ID_REALTEK_RTW8723DS_1ANT != 0xd724 ||
	    SDIO_DEVICE_ID_REALTEK_RTW8723DS_2ANT != 0xd723 ||
	    SDIO_DEVICE_ID_REALTEK_RTW8723CS != 0xb703)
		return "an rtw88 SDIO chip's device ID is not upstream's";
	return NULL;
}

/* WQ_PERCPU (6.17): a bound workqueue made with it runs its work. */
struct st_wq_work {
	struct work_struct work;
	bool ran;
};

static void st_wq_work_fn(struct work_struct *work)
{
	container_of(work, struct st_wq_work, work)->ran = true;
}

static const char *test_wq_percpu_makes_a_bound_workqueue(void)
{
	struct st_wq_work w = { .ran = false };
	struct workqueue_struct *wq;

#if RETROFI_API_FORCED && !RETROFI_LINUX_LESS(6, 17, 0)
	/*
	 * A forced API level on a kernel that wants the flag: the shim's 0
	 * is the value of the level, which this kernel's alloc_workqueue()
	 * warns about (no code is built at such a level but this module).
	 */
	return WQ_PERCPU == 0 ? NULL : "WQ_PERCPU is not 0 at a forced API level";
#endif
	wq = alloc_workqueue("retrofi_st_percpu", WQ_PERCPU, 0);
	if (!wq)
		return "alloc_workqueue(WQ_PERCPU) failed";
	INIT_WORK_ONSTACK(&w.work, st_wq_work_fn);
	queue_work(wq, &w.work);
	flush_work(&w.work);
	destroy_workqueue(wq);
	destroy_work_on_stack(&w.work);
	if (WQ_PERCPU & WQ_UNBOUND)
		return "WQ_PERCPU includes WQ_UNBOUND";
	return w.ran ? NULL : "the work did not run";
}

/*
 * WQ_BH (6.9) with rule 0005-workqueue-bh-context: a function that a
 * WQ_BH workqueue runs, wrapped as the rule wraps it, runs its body in
 * softirq context (the kernel's BH workqueue) or with bottom halves
 * disabled (an ordinary one, where the flag is 0): in_softirq() either way.
 */
struct st_bh_work {
	struct work_struct work;
	bool ran, in_softirq;
	int cpu;
};

static void st_bh_work_fn_in_bh(struct work_struct *work)
{
	struct st_bh_work *w = container_of(work, struct st_bh_work, work);

	w->in_softirq = in_softirq();
	w->cpu = raw_smp_processor_id();
	w->ran = true;
}

static void st_bh_work_fn(struct work_struct *work)
{
	retrofi_bh_work_begin();
	st_bh_work_fn_in_bh(work);
	retrofi_bh_work_end();
}

static const char *test_wq_bh_work_runs_with_bottom_halves_off(void)
{
	struct st_bh_work w = { .ran = false, .in_softirq = false };
	/* As the drivers ask: from 6.17 a workqueue is per-CPU or unbound. */
	unsigned int flags = WQ_BH | WQ_PERCPU;
	struct workqueue_struct *wq;

#if RETROFI_API_FORCED && !RETROFI_LINUX_LESS(6, 17, 0)
	/*
	 * A forced API level on a kernel that wants one of the two: both
	 * shims are 0 there, which its alloc_workqueue() warns about; the
	 * ordinary workqueue the shim makes is as good unbound.
	 */
	flags = WQ_BH | WQ_UNBOUND;
#endif
	wq = alloc_workqueue("retrofi_st_bh", flags, 0);
	if (!wq)
		return "alloc_workqueue(WQ_BH) failed";
	INIT_WORK_ONSTACK(&w.work, st_bh_work_fn);
	queue_work(wq, &w.work);
	flush_work(&w.work);
	destroy_workqueue(wq);
	destroy_work_on_stack(&w.work);
	if (!w.ran)
		return "the work did not run";
	return w.in_softirq ? NULL : "the work's body ran with bottom halves enabled";
}

/*
 * system_bh_wq (6.9) with rule 0005-workqueue-bh-context: work queued on
 * the system's BH workqueue runs on the CPU that queued it, its body
 * (wrapped as the rule wraps it) with bottom halves off.
 */
static const char *test_system_bh_wq_runs_work_on_its_cpu_with_bottom_halves_off(void)
{
	struct st_bh_work w = { .ran = false, .in_softirq = false, .cpu = -1 };
	int cpu;

	INIT_WORK_ONSTACK(&w.work, st_bh_work_fn);
	cpu = get_cpu();
	if (!queue_work(system_bh_wq, &w.work)) {
		put_cpu();
		destroy_work_on_stack(&w.work);
		return "queue_work(system_bh_wq) refused an idle work";
	}
	put_cpu();
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	if (!w.ran)
		return "the work did not run";
	if (w.cpu != cpu)
		return "the work ran on another CPU than the one that queued it";
	return w.in_softirq ? NULL : "the work's body ran with bottom halves enabled";
}

/*
 * lockdep_assert_in_rcu_read_lock() (6.11): silent inside rcu_read_lock()
 * (with CONFIG_PROVE_RCU, as on the debug rows, it checks; a splat fails
 * the row).
 */
static const char *test_lockdep_assert_in_rcu_read_lock_is_silent_under_rcu_read_lock(void)
{
	rcu_read_lock();
	lockdep_assert_in_rcu_read_lock();
	rcu_read_unlock();
	return NULL;
}

/*
 * mhi_power_down_keep_dev() (6.10): no MHI controller exists in a guest,
 * so the case checks the type ath11k and ath12k call it with, without
 * calling it (the shim is the target's mhi_power_down()).
 */
static const char *test_mhi_power_down_keep_dev_has_upstreams_type(void)
{
	void (*want)(struct mhi_controller *mhi_cntrl, bool graceful) = NULL;

	if (!__same_type(&mhi_power_down_keep_dev, want))
		return "mhi_power_down_keep_dev() does not have upstream's type";
	return NULL;
}

/*
 * memset_startat() (5.16): from the named member to the object's end,
 * padding included; what comes before is left alone.
 */
struct st_startat {
	u32 head;
	u8 from;
	u64 tail;
};

static const char *test_memset_startat_sets_from_the_member_to_the_end(void)
{
	struct st_startat o;
	size_t at = offsetof(struct st_startat, from), i;
	u8 *b = (u8 *)&o;

	memset(&o, 0xa5, sizeof(o));
	memset_startat(&o, 0, from);
	for (i = 0; i < sizeof(o); i++)
		if (b[i] != (i < at ? 0xa5 : 0))
			return i < at ? "a byte before the member changed" :
					"a byte from the member on was not set";
	return NULL;
}

/*
 * skb_pull_data() (5.17): the old data pointer and the buffer pulled, or
 * NULL and nothing pulled when it is shorter than asked.
 */
static const char *test_skb_pull_data_pulls_or_refuses_a_short_buffer(void)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);
	const char *err = NULL;
	void *data;

	if (!skb)
		return "alloc_skb() failed";
	skb_put_zero(skb, 10);
	data = skb->data;
	if (skb_pull_data(skb, 11) || skb->len != 10)
		err = "a pull longer than the buffer was not refused whole";
	else if (skb_pull_data(skb, 4) != data || skb->len != 6 || skb->data != data + 4)
		err = "a pull did not return the old data and move past it";
	kfree_skb(skb);
	return err;
}

/* from_work() (6.1): the work item's container. */
struct st_from_work {
	int before;
	struct work_struct work;
};

static const char *test_from_work_is_the_container(void)
{
	struct st_from_work o, *p = NULL;

	p = from_work(p, &o.work, work);
	return p == &o ? NULL : "from_work() is not the work item's container";
}

/*
 * mhi_download_rddm_image() (6.1 name), mhi_pm_resume_force() (5.17): no
 * MHI controller exists in a guest, so the cases check the types ath11k
 * and ath12k call them with, without calling them.
 */
static const char *test_mhi_rddm_and_forced_resume_have_upstreams_types(void)
{
	int (*rddm)(struct mhi_controller *mhi_cntrl, bool in_panic) = NULL;
	int (*resume)(struct mhi_controller *mhi_cntrl) = NULL;

	if (!__same_type(&mhi_download_rddm_image, rddm))
		return "mhi_download_rddm_image() does not have upstream's type";
	if (!__same_type(&mhi_pm_resume_force, resume))
		return "mhi_pm_resume_force() does not have upstream's type";
	return NULL;
}

/*
 * retrofi_mhi_set_irq_flags() (rule 0107-mhi-controller-irq-flags): where
 * struct mhi_controller has irq_flags they are set; where it does not,
 * the old core's own flags change nothing and any other flags refuse the
 * controller (no interrupts, which the MHI core rejects).
 */
static const char *test_mhi_irq_flags_are_set_or_refuse_the_controller(void)
{
	struct mhi_controller c = { .nr_irqs = 3 };

	retrofi_mhi_set_irq_flags(&c, IRQF_SHARED | IRQF_NO_SUSPEND);
	if (c.nr_irqs != 3)
		return "the MHI core's own flags refused the controller";
	retrofi_mhi_set_irq_flags(&c, IRQF_SHARED | IRQF_NOBALANCING);
#if RETROFI_HAVE_mhi_controller_irq_flags
	if (c.irq_flags != (IRQF_SHARED | IRQF_NOBALANCING) || c.nr_irqs != 3)
		return "the flags were not set";
#else
	if (c.nr_irqs != 0)
		return "flags the MHI core cannot take did not refuse the controller";
#endif
	return NULL;
}

/*
 * DEFINE_SIMPLE_SYSFS_GROUP_VISIBLE() (6.10): a named group that its
 * group_visible() hides shows userspace no file (the kernel of 6.10 makes
 * no directory, the shim an empty one); one it shows has its files.
 */
static bool st_grp_shown;

static bool st_grp_group_visible(struct kobject *kobj)
{
	return st_grp_shown;
}

DEFINE_SIMPLE_SYSFS_GROUP_VISIBLE(st_grp);

static ssize_t st_file_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "1\n");
}

static struct kobj_attribute st_grp_file = __ATTR(st_file, 0444, st_file_show, NULL);
static struct attribute *st_grp_attrs[] = { &st_grp_file.attr, NULL };
static const struct attribute_group st_grp_group = {
	.name = "st_grp",
	.attrs = st_grp_attrs,
	.is_visible = SYSFS_GROUP_VISIBLE(st_grp),
};

/* Whether kobj's group st_grp has its file st_file in sysfs. */
static bool st_grp_file_exists(struct kobject *kobj)
{
	struct kernfs_node *dir, *file = NULL;

	dir = kernfs_find_and_get(kobj->sd, "st_grp");
	if (dir)
		file = kernfs_find_and_get(dir, "st_file");
	kernfs_put(file);
	kernfs_put(dir);
	return file;
}

static const char *test_sysfs_group_visible_hides_the_groups_files(void)
{
	const char *err = NULL;
	bool shown;
	int i;

	for (i = 0; i < 2 && !err; i++) {
		struct kobject *kobj = kobject_create_and_add("retrofi_st_grp", NULL);

		if (!kobj)
			return "kobject_create_and_add() failed";
		st_grp_shown = i;
		if (sysfs_create_group(kobj, &st_grp_group))
			err = "sysfs_create_group() failed";
		shown = st_grp_file_exists(kobj);
		if (!err && shown != st_grp_shown)
			err = shown ? "a hidden group's file is in sysfs" :
				      "a shown group's file is not in sysfs";
		kobject_put(kobj);
	}
	return err;
}

/* system_percpu_wq (6.17): the per-CPU system workqueue runs work. */
static const char *test_system_percpu_wq_runs_work(void)
{
	struct st_wq_work w = { .ran = false };

	INIT_WORK_ONSTACK(&w.work, st_wq_work_fn);
	if (!queue_work(system_percpu_wq, &w.work))
		return "queue_work(system_percpu_wq) refused an idle work";
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	return w.ran ? NULL : "the work did not run";
}

/*
 * kvmemdup() (6.3): a copy that kvfree() frees; a large one too. Exported
 * by compat.ko: not in the module of the inline shims only.
 */
#ifndef RETROFI_SELFTEST_INLINE_SHIMS_ONLY
static const char *test_kvmemdup_copies_small_and_large(void)
{
	static const char small[] = "retrofi";
	size_t big = 3 * PAGE_SIZE + 5;
	const char *err = NULL;
	char *src, *p;

	p = kvmemdup(small, sizeof(small), GFP_KERNEL);
	if (!p)
		return "kvmemdup() of 8 bytes failed";
	if (p == small || memcmp(p, small, sizeof(small)))
		err = "kvmemdup() of 8 bytes is not a copy";
	kvfree(p);
	if (err)
		return err;
	src = kvmalloc(big, GFP_KERNEL);
	if (!src)
		return "no source buffer";
	memset(src, 0x5a, big);
	p = kvmemdup(src, big, GFP_KERNEL);
	if (!p)
		err = "kvmemdup() of three pages failed";
	else if (memcmp(p, src, big))
		err = "kvmemdup() of three pages is not a copy";
	kvfree(p);
	kvfree(src);
	return err;
}
#endif

/* pci_clear_and_set_config_dword() (6.8): is a symbol of the right type. */
static const char *test_pci_clear_and_set_config_dword_is_the_helper(void)
{
	void (*f)(const struct pci_dev *, int, u32, u32) = pci_clear_and_set_config_dword;

	return f ? NULL : "pci_clear_and_set_config_dword is NULL";
}

/*
 * str_yes_no(), str_on_off(), str_enable_disable(), str_enabled_disabled()
 * (5.16): upstream's words.
 */
static const char *test_str_helpers_are_upstreams_words(void)
{
	if (strcmp(str_yes_no(true), "yes") || strcmp(str_yes_no(false), "no") ||
	    strcmp(str_on_off(true), "on") || strcmp(str_on_off(false), "off") ||
	    strcmp(str_enable_disable(true), "enable") ||
	    strcmp(str_enable_disable(false), "disable") ||
	    strcmp(str_enabled_disabled(true), "enabled") ||
	    strcmp(str_enabled_disabled(false), "disabled"))
		return "a str_*() helper's word is not upstream's";
	return NULL;
}

/* str_read_write() (6.1 or older): upstream's words. */
static const char *test_str_read_write_is_upstreams_word(void)
{
	if (strcmp(str_read_write(true), "read") || strcmp(str_read_write(false), "write"))
		return "str_read_write() is not \"read\"/\"write\"";
	return NULL;
}

/* str_disable_enable() (6.12 or older): upstream's words, the other way round. */
static const char *test_str_disable_enable_is_upstreams_word(void)
{
	if (strcmp(str_disable_enable(true), "disable") ||
	    strcmp(str_disable_enable(false), "enable"))
		return "str_disable_enable() is not \"disable\"/\"enable\"";
	return NULL;
}

/*
 * lockdep_assert_not_held() (5.14): silent for a lock that is not held
 * (a held one would warn, which the console scan would count).
 */
static const char *test_lockdep_assert_not_held_is_silent_unheld(void)
{
	static DEFINE_MUTEX(m);

	lockdep_assert_not_held(&m);
	mutex_lock(&m);
	mutex_unlock(&m);
	lockdep_assert_not_held(&m);
	return NULL;
}

/*
 * device_get_mac_address() of two arguments (5.16): a device without a
 * firmware node has no address, -ENOENT, and the buffer is left alone.
 */
static const char *test_device_get_mac_address_without_a_node_is_enoent(void)
{
	struct device dev = {};
	u8 mac[ETH_ALEN] = { 1, 2, 3, 4, 5, 6 };

	if (device_get_mac_address(&dev, mac) != -ENOENT)
		return "a device without a node does not give -ENOENT";
	if (mac[0] != 1 || mac[5] != 6)
		return "the buffer was written";
	return NULL;
}

/*
 * pcim_request_all_regions() (6.13): in a driver's probe after
 * pcim_enable_device(), every BAR of the device is the driver's (a second
 * request fails), and none is once the driver is gone. The device is the
 * guest's pci-testdev (1b36:0005, retrofi_boot.qemu_argv()), which no
 * driver of the kernel binds. Exported by compat.ko where shimmed: not in
 * the module of the inline shims only.
 */
#ifndef RETROFI_SELFTEST_INLINE_SHIMS_ONLY
struct st_pci_probe {
	int enable, request, second, map, map_second, map_bad;
	bool probed;
};

static struct st_pci_probe st_pci;

static int st_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	st_pci.probed = true;
	st_pci.enable = pcim_enable_device(pdev);
	if (st_pci.enable)
		return st_pci.enable;
	st_pci.request = pcim_request_all_regions(pdev, "retrofi_st");
	if (st_pci.request)
		return st_pci.request;
	st_pci.second = pci_request_region(pdev, 0, "retrofi_st_again");
	if (!st_pci.second)
		pci_release_region(pdev, 0);
	return 0;
}

/*
 * pcim_iomap_region() (6.12), in a second probe of the same device: BAR 0
 * mapped and held while bound, a BAR out of range refused with -EINVAL.
 */
static int st_pci_probe_map(struct pci_dev *pdev, const struct pci_device_id *id)
{
	void __iomem *addr;

	st_pci.probed = true;
	st_pci.enable = pcim_enable_device(pdev);
	if (st_pci.enable)
		return st_pci.enable;
	addr = pcim_iomap_region(pdev, 0, "retrofi_st");
	st_pci.map = IS_ERR(addr) ? PTR_ERR(addr) : 0;
	st_pci.map_bad = PTR_ERR_OR_ZERO(pcim_iomap_region(pdev, PCI_STD_NUM_BARS, "retrofi_st"));
	if (st_pci.map)
		return st_pci.map;
	st_pci.map_second = pci_request_region(pdev, 0, "retrofi_st_again");
	if (!st_pci.map_second)
		pci_release_region(pdev, 0);
	return 0;
}

static void st_pci_remove(struct pci_dev *pdev)
{
}

static const struct pci_device_id st_pci_ids[] = {
	{ PCI_DEVICE(0x1b36, 0x0005) },
	{ }
};

static struct pci_driver st_pci_driver = {
	.name = "retrofi_st_pci",
	.id_table = st_pci_ids,
	.probe = st_pci_probe,
	.remove = st_pci_remove,
};

static const char *test_pcim_request_all_regions_holds_the_bars_while_bound(void)
{
	struct pci_dev *pdev;
	const char *err = NULL;
	int again;

	pdev = pci_get_device(0x1b36, 0x0005, NULL);
	if (!pdev)
		return "the guest has no pci-testdev (1b36:0005)";
	memset(&st_pci, 0, sizeof(st_pci));
	if (pci_register_driver(&st_pci_driver)) {
		pci_dev_put(pdev);
		return "pci_register_driver() failed";
	}
	if (!st_pci.probed)
		err = "the driver did not probe the pci-testdev";
	else if (st_pci.enable)
		err = "pcim_enable_device() failed";
	else if (st_pci.request)
		err = "pcim_request_all_regions() failed";
	else if (st_pci.second != -EBUSY)
		err = "BAR 0 could be requested again while the driver held it";
	pci_unregister_driver(&st_pci_driver);
	if (!err) {
		again = pci_request_regions(pdev, "retrofi_st_after");
		if (again)
			err = "the BARs are still requested after the driver left";
		else
			pci_release_regions(pdev);
	}
	pci_dev_put(pdev);
	return err;
}

static struct pci_driver st_pci_map_driver = {
	.name = "retrofi_st_pci_map",
	.id_table = st_pci_ids,
	.probe = st_pci_probe_map,
	.remove = st_pci_remove,
};

static const char *test_pcim_iomap_region_maps_and_holds_the_bar_while_bound(void)
{
	struct pci_dev *pdev;
	const char *err = NULL;

	pdev = pci_get_device(0x1b36, 0x0005, NULL);
	if (!pdev)
		return "the guest has no pci-testdev (1b36:0005)";
	memset(&st_pci, 0, sizeof(st_pci));
	if (pci_register_driver(&st_pci_map_driver)) {
		pci_dev_put(pdev);
		return "pci_register_driver() failed";
	}
	if (!st_pci.probed)
		err = "the driver did not probe the pci-testdev";
	else if (st_pci.enable)
		err = "pcim_enable_device() failed";
	else if (st_pci.map)
		err = "pcim_iomap_region() of BAR 0 failed";
	else if (st_pci.map_bad != -EINVAL)
		err = "pcim_iomap_region() of a BAR out of range is not -EINVAL";
	else if (st_pci.map_second != -EBUSY)
		err = "BAR 0 could be requested again while mapped";
	pci_unregister_driver(&st_pci_map_driver);
	if (!err) {
		if (pci_request_region(pdev, 0, "retrofi_st_after"))
			err = "BAR 0 is still requested after the driver left";
		else
			pci_release_region(pdev, 0);
	}
	pci_dev_put(pdev);
	return err;
}
#endif

/*
 * The trip-table thermal zone API (6.11; thermal_zone_device_priv() 6.4):
 * a zone registered with a trip table on the stack (as iwlwifi's mld
 * does) keeps its own copy, hands its devdata back, reads its temperature
 * through the driver, lists the trips in order, and a write to a
 * writable trip's sysfs file reaches the driver with that trip and is
 * stored; the read-only trip's file refuses the write.
 */
#if IS_ENABLED(CONFIG_THERMAL) && IS_ENABLED(CONFIG_THERMAL_WRITABLE_TRIPS)
struct st_tz {
	const struct thermal_trip *set_trip;
	int set_temp, seen_temp, calls, visited, temps[3];
};

static struct st_tz st_tz;

static int st_tz_get_temp(struct thermal_zone_device *tz, int *temp)
{
	*temp = 42000;
	return 0;
}

static int st_tz_set_trip_temp(struct thermal_zone_device *tz,
			       const struct thermal_trip *trip, int temp)
{
	struct st_tz *s = thermal_zone_device_priv(tz);

	s->set_trip = trip;
	s->seen_temp = trip->temperature;
	s->set_temp = temp;
	s->calls++;
	return 0;
}

static int st_tz_trip_cb(struct thermal_trip *trip, void *data)
{
	struct st_tz *s = data;

	if (s->visited < 3)
		s->temps[s->visited] = trip->temperature;
	s->visited++;
	return 0;
}

static struct thermal_zone_device_ops st_tz_ops = {
	.get_temp = st_tz_get_temp,
	.set_trip_temp = st_tz_set_trip_temp,
};

static int st_tz_write(const char *path, const char *text)
{
	struct file *f = filp_open(path, O_WRONLY, 0);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, text, strlen(text), &pos);
	filp_close(f, NULL);
	return n < 0 ? n : 0;
}

/* The zone's number: its id, read through the accessor where the struct is private. */
static int st_tz_id(struct thermal_zone_device *tz)
{
#if RETROFI_LINUX_LESS(6, 4, 0)
	return tz->id;
#else
	return thermal_zone_device_id(tz);
#endif
}

static const char *st_tz_check(struct thermal_zone_device *tz)
{
	char path[64];
	int temp, w;

	if (thermal_zone_device_priv(tz) != &st_tz)
		return "thermal_zone_device_priv() is not the devdata";
	if (thermal_zone_get_temp(tz, &temp) || temp != 42000)
		return "the zone's temperature is not the driver's";
	if (for_each_thermal_trip(tz, st_tz_trip_cb, &st_tz) || st_tz.visited != 3 ||
	    st_tz.temps[0] != 90000 || st_tz.temps[1] != 80000 || st_tz.temps[2] != 70000)
		return "for_each_thermal_trip() did not list the three trips in order";
	snprintf(path, sizeof(path), "/sys/class/thermal/thermal_zone%d/trip_point_1_temp",
		 st_tz_id(tz));
	w = st_tz_write(path, "75000");
	if (w)
		return "the writable trip's sysfs file refused 75000";
	if (st_tz.calls != 1 || st_tz.set_temp != 75000 || st_tz.seen_temp != 80000)
		return "the driver's set_trip_temp() did not get trip 1 before the store";
	st_tz.visited = 0;
	for_each_thermal_trip(tz, st_tz_trip_cb, &st_tz);
	if (st_tz.temps[1] != 75000)
		return "the new temperature of trip 1 was not stored";
	snprintf(path, sizeof(path), "/sys/class/thermal/thermal_zone%d/trip_point_0_temp",
		 st_tz_id(tz));
	if (!st_tz_write(path, "85000") || st_tz.calls != 1)
		return "the read-only trip's sysfs file took a write";
	return NULL;
}

static const char *test_thermal_zone_of_a_trip_table_keeps_and_writes_it(void)
{
	struct thermal_zone_device *tz;
	const char *err;

	memset(&st_tz, 0, sizeof(st_tz));
	{
		struct thermal_trip trips[3] = {
			{ .temperature = 90000, .type = THERMAL_TRIP_CRITICAL },
			{ .temperature = 80000, .type = THERMAL_TRIP_PASSIVE,
			  .flags = THERMAL_TRIP_FLAG_RW_TEMP },
			{ .temperature = 70000, .type = THERMAL_TRIP_PASSIVE },
		};

		tz = thermal_zone_device_register_with_trips("retrofi_st", trips, 3, &st_tz,
							     &st_tz_ops, NULL, 0, 0);
		/* The table leaves scope here: the zone must have its own. */
		memset(trips, 0, sizeof(trips));
	}
	if (IS_ERR(tz))
		return "thermal_zone_device_register_with_trips() failed";
	err = st_tz_check(tz);
	thermal_zone_device_unregister(tz);
	return err;
}
#endif

#if IS_ENABLED(CONFIG_PAGE_POOL)
static struct page_pool *st_frag_pool(void)
{
	struct page_pool_params params = {
		.pool_size = 16,
		.nid = NUMA_NO_NODE,
	};

	return page_pool_create(&params);
}
#endif

/*
 * A page pool's fragments, as mt76 takes them (page_pool_dev_alloc_frag()
 * of a pool created without a flag, 6.6's form), each naming its pool
 * (pp_page_to_nmdesc()) and each given back whole
 * (page_pool_put_full_page()). From 5.14 to 6.5 the allocation refuses a
 * pool without PP_FLAG_PAGE_FRAG; before 5.14 each fragment is a page.
 */
static const char *test_page_pool_hands_out_fragments_and_takes_them_back(void)
{
#if !IS_ENABLED(CONFIG_PAGE_POOL)
	return SKIP("the target has no page pool (CONFIG_PAGE_POOL)");
#else
	struct page_pool *pool = st_frag_pool();
	struct page *page[3] = {};
	unsigned int off[3];
	const char *err = NULL;
	int i;

	if (IS_ERR(pool))
		return "page_pool_create() failed";
	for (i = 0; i < ARRAY_SIZE(page) && !err; i++) {
		page[i] = page_pool_dev_alloc_frag(pool, &off[i], 1024);
		if (!page[i])
			err = "the pool gave no fragment";
		else if (off[i] + 1024 > PAGE_SIZE)
			err = "a fragment runs past its page";
		else if (pp_page_to_nmdesc(page[i])->pp != pool)
			err = "a fragment's page does not name its pool";
	}
	if (!err && page[0] == page[1] && off[0] == off[1])
		err = "two fragments of one page overlap";
	for (i = 0; i < ARRAY_SIZE(page); i++)
		if (page[i])
			page_pool_put_full_page(pp_page_to_nmdesc(page[i])->pp,
						page[i], false);
	page_pool_destroy(pool);
	return err;
#endif
}

/*
 * An rx buffer handed to the stack, as mt76 hands it: napi_build_skb()
 * around one fragment, skb_mark_for_recycle(), another fragment added
 * with skb_add_rx_frag(); then the skb is freed. Upstream's stack gives
 * both back to the pool (5.14); before, the pool lets go of them when
 * they go to the stack, so none stays in flight.
 */
static const char *test_a_pool_buffer_handed_to_the_stack_comes_back_or_leaves_the_pool(void)
{
#if !IS_ENABLED(CONFIG_PAGE_POOL)
	return SKIP("the target has no page pool (CONFIG_PAGE_POOL)");
#else
	struct page_pool *pool = st_frag_pool();
	unsigned int size = SKB_DATA_ALIGN(256) +
			    SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct page *head, *frag;
	unsigned int hoff, foff;
	const char *err = NULL;
	struct sk_buff *skb;
#if RETROFI_LINUX_LESS(5, 14, 0)
	s32 held;
#endif

	if (IS_ERR(pool))
		return "page_pool_create() failed";
	head = page_pool_dev_alloc_frag(pool, &hoff, size);
	frag = page_pool_dev_alloc_frag(pool, &foff, 512);
	if (!head || !frag) {
		err = "the pool gave no fragment";
		goto put;
	}
#if RETROFI_LINUX_LESS(5, 14, 0)
	/* the pool's pages in flight: the two, and any it holds besides */
	held = pool->pages_state_hold_cnt -
	       atomic_read(&pool->pages_state_release_cnt);
#endif
	skb = napi_build_skb(page_address(head) + hoff, size);
	if (!skb) {
		err = "napi_build_skb() failed";
		goto put;
	}
	if (skb->head != page_address(head) + hoff || !skb->head_frag)
		err = "the skb is not built around the buffer";
	skb_mark_for_recycle(skb);
	skb_add_rx_frag(skb, 0, frag, foff, 100, 512);
	head = frag = NULL;
	if (!err && (skb_shinfo(skb)->nr_frags != 1 || skb->len != 100))
		err = "the fragment is not the skb's";
#if RETROFI_LINUX_LESS(5, 14, 0)
	if (!err && pool->pages_state_hold_cnt -
		    atomic_read(&pool->pages_state_release_cnt) != held - 2)
		err = "a page in the stack is still the pool's";
#else
	if (!err && !skb->pp_recycle)
		err = "the skb is not marked for recycling";
#endif
	kfree_skb(skb);
put:
	if (head)
		page_pool_put_full_page(pool, head, false);
	if (frag)
		page_pool_put_full_page(pool, frag, false);
	page_pool_destroy(pool);
	return err;
#endif
}

/* netif_napi_add_tx() (5.19): a NAPI instance on the device, never busy-polled. */
static const char *test_netif_napi_add_tx_adds_a_napi_without_busy_poll(void)
{
	struct napi_struct *napi;
	struct net_device *dev;
	const char *err = NULL;

	dev = alloc_netdev_dummy(sizeof(*napi));
	if (!dev)
		return "alloc_netdev_dummy() failed";
	napi = netdev_priv(dev);
	netif_napi_add_tx(dev, napi, st_napi_poll);
	if (napi->dev != dev || list_empty(&dev->napi_list))
		err = "the NAPI instance is not on the device";
	else if (!test_bit(NAPI_STATE_NO_BUSY_POLL, &napi->state))
		err = "the NAPI instance may be busy-polled";
	else if (napi->weight != NAPI_POLL_WEIGHT)
		err = "the NAPI instance is not of the default weight";
	netif_napi_del(napi);
	free_netdev(dev);
	return err;
}

#if RETROFI_LINUX_LESS(5, 12, 0)
/*
 * dev_set_threaded() below 5.12, which has no threaded NAPI: the flag
 * reads off, turning it off is no change, turning it on is refused.
 */
static const char *test_threaded_napi_reads_off_and_cannot_be_turned_on(void)
{
	struct net_device *dev = alloc_netdev_dummy(0);
	const char *err = NULL;

	if (!dev)
		return "alloc_netdev_dummy() failed";
	if (retrofi_netdev_threaded(dev))
		err = "the device reads as threaded";
	else if (dev_set_threaded(dev, false))
		err = "turning threaded NAPI off failed";
	else if (dev_set_threaded(dev, true) != -EOPNOTSUPP)
		err = "turning threaded NAPI on was not refused";
	free_netdev(dev);
	return err;
}
#endif

/*
 * DEFINE_SIMPLE_DEV_PM_OPS() (5.17's form): the driver gives the storage
 * class, and the operations carry the system-sleep callbacks.
 */
static int st_pm_suspend(struct device *dev)
{
	return 0;
}

static int st_pm_resume(struct device *dev)
{
	return 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(st_simple_pm_ops, st_pm_suspend, st_pm_resume);

static const char *test_define_simple_dev_pm_ops_takes_the_drivers_storage_class(void)
{
	const struct dev_pm_ops *ops = &st_simple_pm_ops;

	if (!IS_ENABLED(CONFIG_PM_SLEEP))
		return SKIP("the target has no system sleep (CONFIG_PM_SLEEP)");
	if (ops->suspend != st_pm_suspend || ops->resume != st_pm_resume ||
	    ops->freeze != st_pm_suspend || ops->restore != st_pm_resume)
		return "the operations are not the system-sleep callbacks";
	if (ops->runtime_suspend || ops->runtime_resume)
		return "the operations have runtime callbacks";
	return NULL;
}

/*
 * page_pool_ethtool_stats_get_count() and _get_strings() (6.0): the
 * strings take count entries of ETH_GSTRING_LEN, none without pool
 * statistics.
 */
static const char *test_page_pool_ethtool_stats_strings_match_their_count(void)
{
	static u8 buf[64 * ETH_GSTRING_LEN];
	int n = page_pool_ethtool_stats_get_count();
	u8 *end;

	if (n < 0 || n > 64)
		return "the count is out of range";
	if (!IS_ENABLED(CONFIG_PAGE_POOL_STATS) && n)
		return "a kernel without pool statistics counts some";
	end = page_pool_ethtool_stats_get_strings(buf);
	if (end != buf + n * ETH_GSTRING_LEN)
		return "the strings do not take count entries";
	return NULL;
}

/*
 * irq_set_affinity_and_hint() (5.17): an interrupt that does not exist is
 * refused; on the guest's first interrupt whose chip sets affinities the
 * hint is set, the interrupt's affinity holds the CPU asked for, and NULL
 * clears the hint again (as ath11k and ath12k do before free_irq()).
 * Below 5.11, where irq_to_desc() is exported, the hint is read from the
 * descriptor; the guest has one CPU, so the affinity is CPU 0 either way.
 * The number of interrupts is nr_irqs, which "genirq: Unexport nr_irqs"
 * (v6.13; title not verified) replaced by irq_get_nr_irqs().
 */
static const char *test_irq_set_affinity_and_hint_sets_and_clears_the_hint(void)
{
#if RETROFI_LINUX_LESS(6, 13, 0)
	unsigned int nr = nr_irqs;
#else
	unsigned int nr = irq_get_nr_irqs();
#endif
	struct irq_data *d = NULL;
	unsigned int irq;

	if (irq_set_affinity_and_hint(~0u, cpumask_of(0)) != -EINVAL)
		return "an interrupt that does not exist was not refused";
	for (irq = 1; irq < nr; irq++) {
		d = irq_get_irq_data(irq);
		if (d && d->chip && d->chip->irq_set_affinity && !irqd_is_per_cpu(d))
			break;
	}
	if (irq >= nr)
		return SKIP("the guest has no interrupt whose affinity can be set");
	if (irq_set_affinity_and_hint(irq, cpumask_of(0)))
		return "setting the hint and the affinity failed";
#if RETROFI_LINUX_LESS(5, 11, 0) && defined(CONFIG_SMP)
	if (irq_to_desc(irq)->affinity_hint != cpumask_of(0)) {
		irq_set_affinity_and_hint(irq, NULL);
		return "the hint was not set";
	}
#endif
	if (!cpumask_test_cpu(0, irq_data_get_affinity_mask(d))) {
		irq_set_affinity_and_hint(irq, NULL);
		return "the interrupt's affinity does not hold CPU 0";
	}
	if (irq_set_affinity_and_hint(irq, NULL))
		return "clearing the hint failed";
#if RETROFI_LINUX_LESS(5, 11, 0) && defined(CONFIG_SMP)
	if (irq_to_desc(irq)->affinity_hint)
		return "the hint was not cleared";
#endif
	return NULL;
}

/*
 * usb_maxpacket(udev, pipe) (5.19): the direction is the pipe's. A device
 * with a 512-byte bulk IN endpoint 1 and a 64-byte bulk OUT endpoint 1
 * (as a USB 2.0 Wi-Fi dongle has): each pipe reads its own endpoint, and a
 * pipe to an endpoint the device lacks reads 0. No USB core call: the
 * helpers are inline.
 */
static const char *test_usb_maxpacket_reads_the_direction_from_the_pipe(void)
{
	static struct usb_host_endpoint in = {
		.desc = { .bEndpointAddress = USB_DIR_IN | 1,
			  .bmAttributes = USB_ENDPOINT_XFER_BULK,
			  .wMaxPacketSize = cpu_to_le16(512) },
	};
	static struct usb_host_endpoint out = {
		.desc = { .bEndpointAddress = USB_DIR_OUT | 1,
			  .bmAttributes = USB_ENDPOINT_XFER_BULK,
			  .wMaxPacketSize = cpu_to_le16(64) },
	};
	static struct usb_device udev;

	udev.devnum = 2;
	udev.ep_in[1] = &in;
	udev.ep_out[1] = &out;
	if (usb_maxpacket(&udev, usb_rcvbulkpipe(&udev, 1)) != 512)
		return "the IN pipe does not read the IN endpoint's 512";
	if (usb_maxpacket(&udev, usb_sndbulkpipe(&udev, 1)) != 64)
		return "the OUT pipe does not read the OUT endpoint's 64";
	if (usb_maxpacket(&udev, usb_sndbulkpipe(&udev, 2)))
		return "a pipe to a missing endpoint does not read 0";
	return NULL;
}
