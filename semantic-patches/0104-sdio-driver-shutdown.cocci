// retrofi rule 0104-sdio-driver-shutdown
// must-match: no
//   (only the vendor drivers' rtw88 SDIO chip modules set it, and a
//   source without them has nothing to match)
// upstream: the change that gave struct sdio_driver its own shutdown
//   callback, void (*shutdown)(struct sdio_func *), called by the SDIO
//   bus's shutdown, and moved rtw88's SDIO chip drivers from
//   .drv.shutdown (a struct device callback) to it. Not in any 6.12 ABI
//   the archive serves, in 7.2 and 7.3; the commits' titles and release
//   are not verified here.
// targets: kernels whose struct sdio_driver has no shutdown member (6.12,
//   6.1, 5.10); decided by the compile probe sdio_driver_shutdown
//   (compat/probes.list), so a stable kernel that takes the change keeps
//   the upstream form
// why: a header cannot add a member to struct sdio_driver. Where the
//   member is missing the SDIO bus has no shutdown of its own, and the
//   driver core calls the device driver's, so the callback goes there
//   through a wrapper that turns the struct device back into its
//   struct sdio_func (dev_to_sdio_func(), as the old drivers did). The
//   wrapper sits before the driver's structure, in the same file, since
//   the callback itself is usually another module's export
//   (rtw_sdio_shutdown() of rtw88_sdio).
// RETROFI_HAVE_sdio_driver_shutdown comes from <retrofi/probes.h>,
// force-included through include/retrofi/version.h.

@r@
identifier sd, fn;
@@
struct sdio_driver sd = {
	.shutdown = fn,
};

@w depends on r@
identifier r.sd, r.fn;
fresh identifier wfn = "retrofi_drv_" ## fn;
@@
+#if !RETROFI_HAVE_sdio_driver_shutdown
+static void wfn(struct device *dev)
+{
+	fn(dev_to_sdio_func(dev));
+}
+#endif
+
 struct sdio_driver sd = {
-	.shutdown = fn,
+#if RETROFI_HAVE_sdio_driver_shutdown
+	.shutdown = fn,
+#endif
 };

@d depends on w@
identifier r.sd, w.wfn;
@@
 struct sdio_driver sd = {
 	.drv = {
+#if !RETROFI_HAVE_sdio_driver_shutdown
+		.shutdown = wfn,
+#endif
 	},
 };

@depends on w && !d@
identifier r.sd, w.wfn;
@@
 struct sdio_driver sd = {
+#if !RETROFI_HAVE_sdio_driver_shutdown
+	.drv.shutdown = wfn,
+#endif
 };
