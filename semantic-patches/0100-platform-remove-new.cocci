// retrofi rule 0100-platform-remove-new
// must-match: yes
// not-needed-from: 7.2
//   (7.2's and 7.3's ath9k and ath5k set .remove, which returns void since
//   struct platform_driver::remove was switched back from remove_new
//   (v6.11-v6.13, the exact release not verified here); no .remove_new
//   is left for this rule to match. An older target needs
//   the void .remove undone instead: a rule of its own.)
// upstream: "platform: Provide a remove callback that returns no value"
//   (v6.3-rc1) added struct platform_driver::remove_new; ath9k and ath5k
//   were converted by "wifi: ath9k: Convert to platform remove callback
//   returning void" and "wifi: ath5k: Convert to platform remove callback
//   returning void" (v6.6 or thereabouts; the exact release is not
//   verified here).
// targets: kernels older than 6.3 (real targets 6.1 and 5.10)
// why: before 6.3 struct platform_driver has no .remove_new member, and its
//   .remove returns int. A header cannot add a struct member or change the
//   type of a driver's function, so the driver code itself must change: a
//   wrapper returning 0 is added next to the void callback, and the
//   initialiser picks .remove_new or .remove by kernel version.

@r@
identifier drv, fn;
@@
struct platform_driver drv = {
	.remove_new = fn,
};

@w depends on r@
identifier r.fn, pdev;
fresh identifier wfn = "retrofi_" ## fn;
@@
static void fn(struct platform_device *pdev)
{
...
}
+#if RETROFI_LINUX_IS_LESS(6,3,0)
+static int wfn(struct platform_device *pdev)
+{
+	fn(pdev);
+	return 0;
+}
+#endif

@depends on w@
identifier r.drv, r.fn, w.wfn;
@@
struct platform_driver drv = {
-	.remove_new = fn,
+#if RETROFI_LINUX_IS_GEQ(6,3,0)
+	.remove_new = fn,
+#else
+	.remove = wfn,
+#endif
};
