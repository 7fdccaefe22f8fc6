// retrofi rule 0205-ethtool-ringparam
// must-match: yes
// upstream: "ethtool: extend ringparam setting/getting API with
//   rx_buf_len" (v5.17) gave struct ethtool_ops' get_ringparam() and
//   set_ringparam() two more parameters, a
//   struct kernel_ethtool_ringparam * and a struct netlink_ext_ack *;
//   mac80211's callbacks take them.
// targets: kernels older than 5.17 (real target 5.10)
// why: before 5.17 the members take (dev, ring) only, so assigning the
//   four-parameter callbacks is an incompatible-pointer-type
//   initialisation; a header can change neither the member's type nor the
//   driver's function. A two-parameter wrapper is added next to each
//   callback, passing NULL for both new arguments, and the initialiser
//   picks one by kernel version. The rule matches only a callback that
//   never reads the two new parameters (the "when !=" below), so NULL is
//   never dereferenced; a callback that starts reading them is left alone
//   and the build on < 5.17 fails loudly. <linux/ethtool.h> declares the
//   struct for older kernels so the prototypes compile.

@g@
identifier ops, fn;
@@
struct ethtool_ops ops = {
	.get_ringparam = fn,
};

@gw depends on g@
identifier g.fn, dev, rp, krp, extack;
fresh identifier wfn = "retrofi_" ## fn;
@@
static void fn(struct net_device *dev, struct ethtool_ringparam *rp,
	       struct kernel_ethtool_ringparam *krp,
	       struct netlink_ext_ack *extack)
{
... when != krp
    when != extack
}
+#if RETROFI_LINUX_IS_LESS(5,17,0)
+static void wfn(struct net_device *dev, struct ethtool_ringparam *rp)
+{
+	fn(dev, rp, NULL, NULL);
+}
+#endif

@depends on gw@
identifier g.ops, g.fn, gw.wfn;
@@
struct ethtool_ops ops = {
-	.get_ringparam = fn,
+#if RETROFI_LINUX_IS_GEQ(5,17,0)
+	.get_ringparam = fn,
+#else
+	.get_ringparam = wfn,
+#endif
};

@s@
identifier ops, fn;
@@
struct ethtool_ops ops = {
	.set_ringparam = fn,
};

@sw depends on s@
identifier s.fn, dev, rp, krp, extack;
fresh identifier wfn = "retrofi_" ## fn;
@@
static int fn(struct net_device *dev, struct ethtool_ringparam *rp,
	      struct kernel_ethtool_ringparam *krp,
	      struct netlink_ext_ack *extack)
{
... when != krp
    when != extack
}
+#if RETROFI_LINUX_IS_LESS(5,17,0)
+static int wfn(struct net_device *dev, struct ethtool_ringparam *rp)
+{
+	return fn(dev, rp, NULL, NULL);
+}
+#endif

@depends on sw@
identifier s.ops, s.fn, sw.wfn;
@@
struct ethtool_ops ops = {
-	.set_ringparam = fn,
+#if RETROFI_LINUX_IS_GEQ(5,17,0)
+	.set_ringparam = fn,
+#else
+	.set_ringparam = wfn,
+#endif
};
