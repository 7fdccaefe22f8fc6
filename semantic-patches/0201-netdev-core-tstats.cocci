// retrofi rule 0201-netdev-core-tstats
// must-match: yes
// upstream: "net: get stats64 if device if driver is configured"
//   (3e2f544dd8a3, v6.9) made dev_get_stats() sum the per-CPU tstats of a
//   netdev whose pcpu_stat_type is NETDEV_PCPU_STAT_TSTATS, so drivers
//   dropped their .ndo_get_stats64 = dev_get_tstats64; for mac80211:
//   "wifi: mac80211: Remove generic .ndo_get_stats64" (c018411d3555,
//   v6.11), after "wifi: mac80211: Move stats allocation to core"
//   (7b7890f38616, v6.11).
// targets: kernels older than 6.9 (real targets 6.1 and 5.10). Debian's
//   6.1.192 has pcpu_stat_type (the core allocates the tstats) but its
//   dev_get_stats() does not sum them: without this rule every interface
//   counter of a mac80211 netdev reads 0 there (seen in the guest: rx/tx
//   +0 after 80 pings). A target at or past 6.9 keeps the upstream ops.
// why: the ops are const initializers; a header cannot add a member to
//   them. The rule adds .ndo_get_stats64 = dev_get_tstats64 (what mac80211
//   had before the removal) to every net_device_ops of a file whose
//   netdevs use core tstats, for targets older than 6.9.

@uses_core_tstats@
expression D;
@@
D->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;

@has_get_stats64@
identifier ops, f;
position p;
@@
struct net_device_ops ops@p = { ..., .ndo_get_stats64 = f, ... };

@depends on uses_core_tstats@
identifier ops;
position p != has_get_stats64.p;
@@
struct net_device_ops ops@p = {
	...,
+#if RETROFI_LINUX_IS_LESS(6,9,0)
+	.ndo_get_stats64 = dev_get_tstats64,
+#endif
};
