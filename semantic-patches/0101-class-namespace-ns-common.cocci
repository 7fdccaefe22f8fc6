// retrofi rule 0101-class-namespace-ns-common
// must-match: yes
// needed-from: 7.2
//   (the 6.12 source's wiphy_namespace() returns const void *: there is
//   nothing to turn back; 7.2's and 7.3's return a const struct
//   ns_common *)
// upstream: the namespace rework that made struct class::namespace return
//   a const struct ns_common * (to_ns_common() of the device's namespace)
//   instead of the namespace object as const void *; cfg80211's
//   wiphy_namespace() returns to_ns_common(wiphy_net(wiphy)) since. Not in
//   6.12, in 7.2 (the oldest source checked that has it); the commit's
//   title and release are not verified here.
// targets: kernels whose struct class::namespace still returns
//   const void * (every real target: 6.12, 6.1, 5.10); decided by the
//   compile probe class_namespace_ns_common (compat/probes.list), not a
//   version, since the release that changed it is not verified
// why: there the member's type is const void *(*)(const struct device *)
//   (or, before 6.2, with a non-const device: rule 0102), returning the
//   struct net itself, which is what the target's kobject namespace code
//   compares; and to_ns_common() does not exist. A header can change
//   neither the member's type nor the driver's function, so the callback
//   is kept for targets that have the new type and, beside it, the old
//   form is written back for the others: same name and body, returning
//   the namespace object instead of its ns_common. Rule 0102 then adds
//   the non-const wrapper that targets older than 6.2 need to that form.
//   A signature is structural: the API level never picks the form.
// RETROFI_HAVE_class_namespace_ns_common comes from <retrofi/probes.h>,
// force-included through include/retrofi/version.h; a name missing from
// compat/probes.list is a -Wundef warning, which fails the build.

@r@
identifier cls, fn;
@@
struct class cls = {
	.namespace = fn,
};

@w depends on r@
identifier r.fn, d;
statement list SL;
@@
+#if RETROFI_HAVE_class_namespace_ns_common
 static const struct ns_common *fn(const struct device *d)
 {
 SL
 }
+#else
+static const void *fn(const struct device *d)
+{
+SL
+}
+#endif

@depends on w@
identifier r.fn, d;
expression E;
@@
 static const void *fn(const struct device *d)
 {
 <...
-return to_ns_common(E);
+return E;
 ...>
 }
