// retrofi rule 0001-timer-shutdown
// must-match: yes
// upstream: "timers: Provide timer_shutdown[_sync]()" (v6.2-rc1), used in
//   the wireless stack since "treewide: Convert del_timer*() to
//   timer_shutdown*()" (v6.2-rc1)
// targets: kernels older than 6.2 (real targets 6.1 and 5.10; shapes below)
// why: timer_shutdown_sync() does not exist before 6.2. On those kernels
//   del_timer_sync() is the closest call: it waits for the handler like the
//   shutdown variant but does not stop a later re-arm, which is what these
//   teardown paths did before v6.2. The rewrite is guarded by a version
//   check so the identity target (6.12) keeps the upstream call. A header
//   shim could also map the name; the rule keeps the choice visible in the
//   code, where the weaker semantics are. Some 6.1.y stable kernels may
//   carry a backport of timer_shutdown_sync(); the guard then picks
//   del_timer_sync() there too, which is correct on every kernel < 6.2.
// RETROFI_LINUX_IS_GEQ comes from include/retrofi/version.h, force-included
// by the output tree's Makefile; without it the #if is a hard error, never a
// silent 0.

@@
expression T;
@@
-timer_shutdown_sync(T);
+#if RETROFI_LINUX_IS_GEQ(6,2,0)
+timer_shutdown_sync(T);
+#else
+del_timer_sync(T);
+#endif

@@
expression T;
@@
-timer_shutdown(T);
+#if RETROFI_LINUX_IS_GEQ(6,2,0)
+timer_shutdown(T);
+#else
+del_timer(T);
+#endif
