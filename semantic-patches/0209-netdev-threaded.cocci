// retrofi rule 0209-netdev-threaded
// must-match: no
//   (only mt76, a vendor driver, touches the member; a source without the
//   vendor drivers has nothing to match)
// upstream: "net: add sysfs attribute to control napi threaded mode"
//   (v5.12) gave struct net_device a threaded member: whether the
//   device's NAPI instances poll in kernel threads. mt76 sets it on its
//   dummy NAPI devices before adding their NAPI, and reads it in debugfs.
// targets: kernels older than 5.12 (real target 5.10)
// why: a header cannot add a member to struct net_device. Before 5.12
//   every NAPI instance polls in softirq context, the kernel's only mode,
//   so an assignment of the member is left out there (the instance polls
//   as all NAPI did then), and a read becomes retrofi_netdev_threaded()
//   of <linux/netdevice.h>: the member from 5.12, false before. Decided by
//   the kernel version (a stable kernel does not grow a structure member).
//   The rules run without the source's headers (--no-includes), so spatch
//   cannot type mt76's dev->napi_dev: the member is matched by its name.
//   In the copied wireless tree only struct net_device has a member
//   threaded (gpiolib's struct gpio_irq_chip has one too, outside it).

@@
expression D, V;
@@
+#if RETROFI_LINUX_IS_GEQ(5,12,0)
 D->threaded = V;
+#endif

@@
expression D, V;
@@
(
 D->threaded = V
|
- D->threaded
+ retrofi_netdev_threaded(D)
)
