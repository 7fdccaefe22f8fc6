// retrofi rule 0206-netdev-path-ieee80211
// must-match: yes
// needed-from: 7.3
//   (7.2's and older sources' ieee80211_netdev_fill_forward_path() never
//   reads ctx->ieee80211)
// upstream: the change that added struct net_device_path_ctx::ieee80211
//   and DEV_PATH_IEEE80211: the netfilter flowtable's software path
//   (nf_flow_table_path.c) sets ctx.ieee80211, and mac80211's
//   .ndo_fill_forward_path then ends the path at its own netdev with a
//   DEV_PATH_IEEE80211 entry instead of asking the driver for a hardware
//   path. Not in 7.2, in 7.3 (the sources checked); the commit's title
//   is not verified here.
// targets: kernels whose struct net_device_path_ctx has no ieee80211
//   member (every real target: 6.12, 6.1 and 5.10; 5.10 has no such
//   struct at all and rule 0204 leaves the callback out there); decided by
//   the compile probe net_device_path_ieee80211 (compat/probes.list), so
//   a stable kernel that takes the change keeps the upstream block
// why: a header can add neither the struct member nor the enum value.
//   Where the kernel lacks them, nothing can ask for the software path
//   (no caller sets the member), so the block that answers it is left
//   out, and the callback does what it did before: the driver's path or
//   -EOPNOTSUPP/-ENOENT. A structure is structural: the API level never
//   picks the form.
// RETROFI_HAVE_net_device_path_ieee80211 comes from <retrofi/probes.h>,
// force-included through include/retrofi/version.h; a name missing from
// compat/probes.list is a -Wundef warning, which fails the build.

@@
struct net_device_path_ctx *ctx;
statement S;
@@
+#if RETROFI_HAVE_net_device_path_ieee80211
 if (ctx->ieee80211) S
+#endif
