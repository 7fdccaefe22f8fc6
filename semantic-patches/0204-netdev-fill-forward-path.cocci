// retrofi rule 0204-netdev-fill-forward-path
// must-match: yes
// upstream: "net: resolve forwarding path from virtual netdevice and HW
//   destination address" (v5.13) added .ndo_fill_forward_path (used by
//   the netfilter flowtable to offload forwarding); mac80211 implements it
//   for its 802.3 netdevs since "mac80211: add support for
//   .ndo_fill_forward_path" (v5.17).
// targets: kernels older than 5.13 (real target 5.10)
// why: before 5.13 struct net_device_ops has no such member and struct
//   net_device_path_ctx does not exist, so neither the initialiser nor the
//   callback (which reads the context) compiles, and a header can add
//   neither. An older kernel has no forwarding-path offload to ask for the
//   path, so the callback is left out there, as it was before 5.13.
//   <linux/netdevice.h> declares the two structs for older kernels, so
//   that mac80211's own driver op, which only passes pointers, compiles.
//   A driver's implementation of that op (.net_fill_forward_path of
//   struct ieee80211_ops: mt7996, and mt7915 with WED) fills the path,
//   which those declarations cannot; mac80211 calls it only from the
//   netdev callback, which is left out below 5.13, so the driver's is
//   left out the same way.

@r@
identifier ops, fn;
@@
struct net_device_ops ops = {
-	.ndo_fill_forward_path = fn,
+#if RETROFI_LINUX_IS_GEQ(5,13,0)
+	.ndo_fill_forward_path = fn,
+#endif
};

@depends on r@
identifier r.fn;
@@
+#if RETROFI_LINUX_IS_GEQ(5,13,0)
 fn(...)
 {
 ...
 }
+#endif

@d@
identifier ops, fn;
@@
struct ieee80211_ops ops = {
-	.net_fill_forward_path = fn,
+#if RETROFI_LINUX_IS_GEQ(5,13,0)
+	.net_fill_forward_path = fn,
+#endif
};

@depends on d@
identifier d.fn;
@@
+#if RETROFI_LINUX_IS_GEQ(5,13,0)
 fn(...)
 {
 ...
 }
+#endif
