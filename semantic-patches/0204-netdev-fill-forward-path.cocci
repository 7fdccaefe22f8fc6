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
