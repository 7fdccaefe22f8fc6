// retrofi rule 0203-netdev-tstats-alloc
// must-match: yes
// upstream: "net: Move {l,t,d}stats allocation to core and convert veth &
//   vrf" (v6.7) added struct net_device::pcpu_stat_type: with
//   NETDEV_PCPU_STAT_TSTATS the core allocates the netdev's per-CPU tstats
//   at registration and frees them with it. mac80211 relies on it since
//   "wifi: mac80211: Move stats allocation to core" (v6.11).
// targets: kernels older than 6.7 (real targets 6.1 and 5.10; Debian's
//   6.1.192 carries pcpu_stat_type from stable, the guard does not rely
//   on it)
// why: before 6.7 struct net_device has no such member (a header cannot
//   add one) and nothing allocates dev->tstats, which mac80211's rx/tx
//   paths write to for every frame. As mac80211 did before 6.11, the
//   driver allocates them itself: the assignment is kept for 6.7 and
//   later only, and every net_device_ops of the file gets .ndo_init =
//   retrofi_netdev_alloc_tstats (<linux/netdevice.h>), which allocates
//   them when the netdev is registered and sets the priv_destructor that
//   frees them after the last reference is gone, which is when and how
//   the core frees its own. Summing them for the stack's readers is rule
//   0201's. A net_device_ops with its own .ndo_init would need the
//   allocation there: such a file gets an #error for older kernels
//   instead of netdevs without tstats.

@alloc@
expression D;
@@
-D->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
+#if RETROFI_LINUX_IS_GEQ(6,7,0)
+D->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
+#endif

@has_init depends on alloc@
identifier ops, f;
position p;
@@
struct net_device_ops ops@p = { ..., .ndo_init = f, ... };

@depends on alloc@
identifier ops;
position p != has_init.p;
@@
struct net_device_ops ops@p = {
	...,
+#if RETROFI_LINUX_IS_LESS(6,7,0)
+	.ndo_init = retrofi_netdev_alloc_tstats,
+#endif
};

@depends on has_init@
identifier has_init.ops, has_init.f;
@@
struct net_device_ops ops = {
-	.ndo_init = f,
+#if RETROFI_LINUX_IS_LESS(6,7,0)
+#error "retrofi 0203: this net_device_ops has its own .ndo_init; allocate the tstats there"
+#endif
+	.ndo_init = f,
};
