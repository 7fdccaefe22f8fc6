/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/netdevice.h>
 */
#ifndef _RETROFI_LINUX_NETDEVICE_H
#define _RETROFI_LINUX_NETDEVICE_H

#include_next <linux/netdevice.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * dev_sw_netstats_tx_add() -- "net: core: add dev_sw_netstats_tx_add"
 * (v5.11): count packets and bytes sent in the netdev's per-CPU tstats,
 * the companion of dev_sw_netstats_rx_add() (5.10). The body is 5.11's:
 * the counters of struct pcpu_sw_netstats were plain u64 until "net: adopt
 * u64_stats_t in struct pcpu_sw_netstats" (v6.0), which is why this is
 * structural (it cannot be compiled on a newer kernel to shape one).
 * Probed: stable kernels may carry it.
 */
#if RETROFI_LINUX_LESS(5, 11, 0) && !RETROFI_HAVE_dev_sw_netstats_tx_add
static inline void LINUX_BACKPORT(dev_sw_netstats_tx_add)(struct net_device *dev,
							  unsigned int packets,
							  unsigned int len)
{
	struct pcpu_sw_netstats *tstats = this_cpu_ptr(dev->tstats);

	u64_stats_update_begin(&tstats->syncp);
	tstats->tx_bytes += len;
	tstats->tx_packets += packets;
	u64_stats_update_end(&tstats->syncp);
}
#define dev_sw_netstats_tx_add LINUX_BACKPORT(dev_sw_netstats_tx_add)
RETROFI_CENSUS(dev_sw_netstats_tx_add, "5.11", "structural",
	       "net: core: add dev_sw_netstats_tx_add (v5.11)");
#endif /* < 5.11 */

/*
 * dev_get_tstats64() -- "net: core: add dev_get_tstats64 as a
 * ndo_get_stats64 implementation" (v5.11): the netdev's stats plus the sum
 * of its per-CPU tstats. Exported from net/core/dev.c upstream, so the
 * shim is compat/backport-5.11.c's. Additive, probed (by its declaration:
 * a kernel that declares it exports it).
 */
#if RETROFI_API_NEED(5, 11, 0, RETROFI_HAVE_dev_get_tstats64)
#define dev_get_tstats64 LINUX_BACKPORT(dev_get_tstats64)
void dev_get_tstats64(struct net_device *dev, struct rtnl_link_stats64 *s);
RETROFI_CENSUS(dev_get_tstats64, "5.11", "probed",
	       "net: core: add dev_get_tstats64 as a ndo_get_stats64 implementation (v5.11)");
#endif /* < 5.11 */

/*
 * struct net_device_path_ctx, struct net_device_path -- "net: resolve
 * forwarding path from virtual netdevice and HW destination address"
 * (v5.13) added them with .ndo_fill_forward_path. mac80211's
 * struct ieee80211_ops and driver-ops.h pass pointers to them for its own
 * .net_fill_forward_path; semantic patch 0204 leaves mac80211's netdev
 * callback out where the netdev op does not exist. Declared, never
 * defined, so that those prototypes name the same (incomplete) types an
 * older kernel never dereferences. Structural.
 */
#if RETROFI_LINUX_LESS(5, 13, 0)
struct net_device_path_ctx;
struct net_device_path;
RETROFI_CENSUS(net_device_path_ctx, "5.13", "structural",
	       "net: resolve forwarding path from virtual netdevice and HW destination address (v5.13)");
#endif /* < 5.13 */

/*
 * What the core does for a netdev with NETDEV_PCPU_STAT_TSTATS since "net:
 * Move {l,t,d}stats allocation to core and convert veth & vrf" (v6.7):
 * allocate its per-CPU tstats when it is registered and free them with
 * it. Before 6.7 the driver did both (mac80211 until "wifi: mac80211:
 * Move stats allocation to core", v6.11). Semantic patch 0203 calls
 * these, from .ndo_init, where the core has no pcpu_stat_type: the tstats
 * are freed by the netdev's priv_destructor, which runs after the last
 * reference is gone (and on a failed registration), as the core's do. Not
 * upstream functions (upstream's are static in net/core/dev.c): retrofi's
 * names. Structural (struct net_device's members).
 */
#if RETROFI_LINUX_LESS(6, 7, 0)
static inline void retrofi_netdev_free_tstats(struct net_device *dev)
{
	free_percpu(dev->tstats);
	dev->tstats = NULL;
}

static inline int retrofi_netdev_alloc_tstats(struct net_device *dev)
{
	if (WARN_ON(dev->priv_destructor))
		return -EINVAL;
	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	if (!dev->tstats)
		return -ENOMEM;
	dev->priv_destructor = retrofi_netdev_free_tstats;
	return 0;
}
RETROFI_CENSUS(pcpu_stat_type, "6.7", "structural",
	       "net: Move {l,t,d}stats allocation to core and convert veth & vrf (v6.7)");
#endif /* < 6.7 */

/*
 * netif_threaded_enable() -- the NAPI helper that turns threaded NAPI on
 * for every NAPI instance of a device (title and version not verified:
 * no 6.12 ABI the archive serves has it, up to 6.12.118, every 7.2 one
 * has it, from 7.2.6: the record is that bound and the guard its high
 * end, safe since probed). ath12k's PCI glue calls it on its dummy NAPI
 * device. Before, drivers called dev_set_threaded(dev, true) ("net:
 * extract napi poll functionality to __napi_poll()" series, v5.12), which
 * is what it does here; upstream's warns once when that fails. Below
 * 5.12 the kernel has no threaded NAPI: every NAPI instance polls in
 * softirq context, the kernel's only mode, and the call changes nothing
 * (ath12k's NAPI then runs as all NAPI did before 5.12). Structural
 * (dev_set_threaded() takes a bool until the threaded modes of 6.17 or
 * so). Probed.
 */
#if RETROFI_LINUX_LESS(7, 2, 6) && !RETROFI_HAVE_netif_threaded_enable
static inline void netif_threaded_enable(struct net_device *dev)
{
#if !RETROFI_LINUX_LESS(5, 12, 0)
	WARN_ON_ONCE(dev_set_threaded(dev, true));
#endif
}
RETROFI_CENSUS(netif_threaded_enable, "6.12.118..7.2.6", "structural",
	       "net: the netif_threaded_enable() NAPI helper (title and version not verified)");
#endif /* < 7.2.6 */

/*
 * napi_is_scheduled() -- "net: introduce napi_is_scheduled helper" (v6.7):
 * whether the NAPI instance is scheduled (NAPI_STATE_SCHED), for drivers
 * that must not read the state bits themselves (rtw89's PCI glue). The
 * body is upstream's. Additive and probed (stable kernels may carry it).
 */
#if RETROFI_API_NEED(6, 7, 0, RETROFI_HAVE_napi_is_scheduled)
static inline bool LINUX_BACKPORT(napi_is_scheduled)(struct napi_struct *n)
{
	return test_bit(NAPI_STATE_SCHED, &n->state);
}
#define napi_is_scheduled LINUX_BACKPORT(napi_is_scheduled)
RETROFI_CENSUS(napi_is_scheduled, "6.7", "probed",
	       "net: introduce napi_is_scheduled helper (v6.7)");
#endif /* < 6.7 */

/*
 * alloc_netdev_dummy() -- "net: create a dummy net_device allocator"
 * (v6.10): a net_device of its own allocation that only carries NAPI
 * instances (rtw88's and rtw89's PCI glue, mt76), where drivers embedded
 * one and set it up with init_dummy_netdev(). The device is what
 * init_dummy_netdev() makes of it (present, started, in init_net), made
 * by alloc_netdev() so that free_netdev() frees it; its registration
 * state stays NETREG_UNINITIALIZED, not NETREG_DUMMY as upstream's, since
 * an older free_netdev() frees only an unregistered or an uninitialised
 * device (it learnt NETREG_DUMMY with this change). Additive and probed.
 */
#if RETROFI_API_NEED(6, 10, 0, RETROFI_HAVE_alloc_netdev_dummy)
static inline void retrofi_setup_dummy_netdev(struct net_device *dev)
{
	set_bit(__LINK_STATE_PRESENT, &dev->state);
	set_bit(__LINK_STATE_START, &dev->state);
	dev_net_set(dev, &init_net);
}

static inline struct net_device *LINUX_BACKPORT(alloc_netdev_dummy)(int sizeof_priv)
{
	return alloc_netdev(sizeof_priv, "dummy#", NET_NAME_UNKNOWN,
			    retrofi_setup_dummy_netdev);
}
#define alloc_netdev_dummy LINUX_BACKPORT(alloc_netdev_dummy)
RETROFI_CENSUS(alloc_netdev_dummy, "6.10", "probed",
	       "net: create a dummy net_device allocator (v6.10)");
#endif /* < 6.10 */

/*
 * napi_schedule() returning bool -- "netdev: make napi_schedule return
 * bool on NAPI successful schedule" (v6.7): whether this call scheduled
 * the instance (iwlwifi's PCIe interrupt handler acks the interrupt when
 * it did not). Upstream's body; before, the same function returned
 * nothing. Structural (a changed return type), probed.
 */
#if RETROFI_API_NEED(6, 7, 0, RETROFI_HAVE_napi_schedule_bool)
static inline bool LINUX_BACKPORT(napi_schedule)(struct napi_struct *n)
{
	if (napi_schedule_prep(n)) {
		__napi_schedule(n);
		return true;
	}

	return false;
}
#define napi_schedule LINUX_BACKPORT(napi_schedule)
RETROFI_CENSUS(napi_schedule_bool, "6.7", "probed",
	       "netdev: make napi_schedule return bool on NAPI successful schedule (v6.7)");
#endif /* < 6.7 */

/*
 * netif_napi_add() without a weight -- "net: drop the weight argument
 * from netif_napi_add" (v6.1): a NAPI instance of the default weight,
 * NAPI_POLL_WEIGHT, which is what upstream's three-argument form passes
 * (ath10k's PCI and USB glue, rtw88's and rtw89's PCI glue). Structural
 * (a changed signature); the macro keeps the name, so the old
 * four-argument function is called.
 */
#if RETROFI_LINUX_LESS(6, 1, 0)
#define netif_napi_add(dev, napi, poll) netif_napi_add(dev, napi, poll, NAPI_POLL_WEIGHT)
RETROFI_CENSUS(netif_napi_add_noweight, "6.1", "structural",
	       "net: drop the weight argument from netif_napi_add (v6.1)");
#endif /* < 6.1 */

/*
 * netif_napi_add_tx() -- "net: add netif_napi_add_tx_weight()" and its
 * weightless netif_napi_add_tx() (v5.19; titles not verified): a NAPI
 * instance for transmit completions only, of the default weight (mt76's
 * tx NAPI). Before, netif_tx_napi_add() (v5.1) set up the same with the
 * weight given (netif_napi_add_tx_weight() from 5.19, where an API level
 * forced lower compiles this). Additive, probed.
 */
#if RETROFI_API_NEED(5, 19, 0, RETROFI_HAVE_netif_napi_add_tx)
static inline void
LINUX_BACKPORT(netif_napi_add_tx)(struct net_device *dev,
				  struct napi_struct *napi,
				  int (*poll)(struct napi_struct *, int))
{
#if RETROFI_LINUX_LESS(5, 19, 0)
	netif_tx_napi_add(dev, napi, poll, NAPI_POLL_WEIGHT);
#else
	netif_napi_add_tx_weight(dev, napi, poll, NAPI_POLL_WEIGHT);
#endif /* < 5.19 */
}
#define netif_napi_add_tx LINUX_BACKPORT(netif_napi_add_tx)
RETROFI_CENSUS(netif_napi_add_tx, "5.19", "probed",
	       "net: add netif_napi_add_tx_weight() (v5.19; title not verified)");
#endif /* < 5.19 */

/*
 * Threaded NAPI -- "net: add sysfs attribute to control napi threaded
 * mode" (v5.12): struct net_device::threaded says whether the device's
 * NAPI instances poll in kernel threads, and dev_set_threaded() turns it
 * on or off (mt76 sets it on its dummy NAPI devices and offers it in
 * debugfs). Before 5.12 the kernel has no threaded NAPI: every instance
 * polls in softirq context, its only mode. There the flag reads as off
 * (retrofi_netdev_threaded(), which rule 0209-netdev-threaded puts where
 * a driver reads the member, and under which it leaves the driver's
 * assignments out), and dev_set_threaded() turns nothing off and refuses
 * to turn it on (-EOPNOTSUPP). Structural (a member of struct
 * net_device).
 */
#if RETROFI_LINUX_LESS(5, 12, 0)
#define retrofi_netdev_threaded(dev) ((void)(dev), false)

static inline int dev_set_threaded(struct net_device *dev, bool threaded)
{
	return threaded ? -EOPNOTSUPP : 0;
}
RETROFI_CENSUS(netdev_threaded, "5.12", "structural",
	       "net: add sysfs attribute to control napi threaded mode (v5.12)");
#else
#define retrofi_netdev_threaded(dev) ((dev)->threaded)
#endif /* < 5.12 */

#endif /* _RETROFI_LINUX_NETDEVICE_H */
