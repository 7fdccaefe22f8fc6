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
#include <linux/interrupt.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/of_reserved_mem.h>
#include <linux/pci.h>
#include <linux/pci_ids.h>
#include <linux/soc/qcom/qmi.h>
#include <linux/un.h>
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
}
#endif

/* PCI_VENDOR_ID_SPACEMIT, PCI_DEVICE_ID_SPACEMIT_K3 (7.3): upstream's values. */
static const char *test_pci_ids_spacemit_are_upstreams(void)
{
	if (PCI_VENDOR_ID_SPACEMIT == 0x201f && PCI_DEVICE_ID_SPACEMIT_K3 == 0x0002)
		return NULL;
	return "the SpacemiT IDs are not 0x201f, 0x0002";
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
 * netif_threaded_enable() (7.2 or older): every NAPI instance of the
 * device runs threaded, with its thread made. Threaded NAPI is 5.12's.
 */
#if !RETROFI_LINUX_LESS(5, 12, 0)
static const char *test_netif_threaded_enable_makes_napi_threaded(void)
{
	struct napi_struct *napi;
	struct net_device *dev;
	const char *err = NULL;

	dev = alloc_netdev(sizeof(*napi), "retrofi_st%d", NET_NAME_ENUM, ether_setup);
	if (!dev)
		return "alloc_netdev() failed";
	napi = netdev_priv(dev);
	netif_napi_add(dev, napi, st_napi_poll);
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
#if RETROFI_LINUX_LESS(6, 1, 0)
	netif_napi_add(dev, napi, st_napi_poll, NAPI_POLL_WEIGHT);
#else
	netif_napi_add(dev, napi, st_napi_poll);
#endif
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
