// retrofi rule 0200-netdev-netns-immutable
// must-match: yes
// upstream: "net: convert NETIF_F_NETNS_LOCAL to dev->netns_local"
//   (v6.12-rc1) turned the NETIF_F_NETNS_LOCAL feature bit into a bool
//   member of struct net_device, which "net: rename netns_local to
//   netns_immutable" (v6.15; stable 6.12.114 took it, as the changelog of
//   the cached linux-source-6.12 package lists) renamed.
// targets: kernels whose struct net_device has no netns_immutable: 6.12.y
//   before the stable rename (Debian's 6.12.107+deb12 has netns_local),
//   and everything older than 6.12 (real targets 6.1 and 5.10); decided
//   by the compile probes netdev_netns_immutable and netdev_netns_local
//   (compat/probes.list), not a version
// why: before 6.12 struct net_device has no such member: "this device may
//   not change network namespace" is NETIF_F_NETNS_LOCAL in dev->features,
//   which is what cfg80211 set before the conversion; 6.12.y before the
//   rename has the member under its first name. A header cannot add or
//   rename a struct member, so each assignment is rewritten, keeping the
//   upstream line where the target has the member.
// RETROFI_HAVE_netdev_netns_immutable and RETROFI_HAVE_netdev_netns_local
// come from <retrofi/probes.h>, force-included through
// include/retrofi/version.h.
// scoped_guard() is declared an iterator so that spatch parses the
// functions that use it (cfg80211_netdev_notifier_call()); without that it
// skips them and the assignment there is left unconverted.

@@
iterator name scoped_guard;
expression D;
symbol true;
@@
-D->netns_immutable = true;
+#if RETROFI_HAVE_netdev_netns_immutable
+D->netns_immutable = true;
+#elif RETROFI_HAVE_netdev_netns_local
+D->netns_local = true;
+#else
+D->features |= NETIF_F_NETNS_LOCAL;
+#endif

@@
iterator name scoped_guard;
expression D;
symbol false;
@@
-D->netns_immutable = false;
+#if RETROFI_HAVE_netdev_netns_immutable
+D->netns_immutable = false;
+#elif RETROFI_HAVE_netdev_netns_local
+D->netns_local = false;
+#else
+D->features &= ~NETIF_F_NETNS_LOCAL;
+#endif
