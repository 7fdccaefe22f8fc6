// retrofi rule 0102-class-namespace-const
// must-match: yes
// upstream: "driver core: class: make namespace and get_ownership take
//   const *" (v6.2-rc1): struct class::namespace takes a
//   const struct device *; cfg80211's wiphy_namespace() follows it.
// targets: kernels older than 6.2 (real target 6.1 and 5.10)
// sources: the 6.12 source's wiphy_namespace() has this form; in a 7.2 or
//   newer source, whose callback returns a const struct ns_common *, rule
//   0101 writes it back beside the upstream one for targets without that
//   type, and this rule then matches the form 0101 wrote.
// why: before 6.2 the member's type is
//   const void *(*)(struct device *), so assigning the const-taking
//   callback is an incompatible-pointer-type initialisation. A header can
//   neither change the member's type nor the driver's function, so a
//   wrapper with the old signature is added next to the callback and the
//   initialiser picks one by kernel version. The wrapper only adds const:
//   the callback never writes through the pointer.

@r@
identifier cls, fn;
@@
struct class cls = {
	.namespace = fn,
};

@w depends on r@
identifier r.fn, d;
fresh identifier wfn = "retrofi_" ## fn;
@@
static const void *fn(const struct device *d)
{
...
}
+#if RETROFI_LINUX_IS_LESS(6,2,0)
+static const void *wfn(struct device *d)
+{
+	return fn(d);
+}
+#endif

@depends on w@
identifier r.cls, r.fn, w.wfn;
@@
struct class cls = {
-	.namespace = fn,
+#if RETROFI_LINUX_IS_GEQ(6,2,0)
+	.namespace = fn,
+#else
+	.namespace = wfn,
+#endif
};
