// retrofi rule 0001-timer-shutdown
// must-match: yes
// upstream: "timers: Provide timer_shutdown[_sync]()" (v6.2-rc1), used in
//   the wireless stack since "treewide: Convert del_timer*() to
//   timer_shutdown*()" (v6.2-rc1); stable kernels carry it (6.1.158 took
//   it: Debian's 6.1.192 exports both functions)
// targets: kernels without timer_shutdown[_sync]() (real target 5.10; 6.1
//   before 6.1.158) and API shapes below 6.2
// why: timer_shutdown_sync() does not exist on those kernels, and where it
//   is missing del_timer_sync() is the closest call: it waits for the
//   handler like the shutdown variant but does not stop a later re-arm,
//   which is what these teardown paths did before v6.2. The choice is a
//   compile probe (compat/probes.list: timer_shutdown), not the version,
//   so a stable kernel that has the function keeps the upstream call and
//   its re-arm protection; an API level forced below 6.2 picks the old
//   call, as on a kernel without it. A header shim could also map the
//   name; the rule keeps the choice visible in the code, where the weaker
//   semantics are.
// RETROFI_API_HAS comes from include/retrofi/version.h, force-included by
// the output tree's Kbuild with <retrofi/probes.h>; without it the #if is a
// hard error, and an unknown probe name is a -Wundef warning, which fails
// the build.

@@
expression T;
@@
-timer_shutdown_sync(T);
+#if RETROFI_API_HAS(6,2,0, timer_shutdown)
+timer_shutdown_sync(T);
+#else
+del_timer_sync(T);
+#endif

@@
expression T;
@@
-timer_shutdown(T);
+#if RETROFI_API_HAS(6,2,0, timer_shutdown)
+timer_shutdown(T);
+#else
+del_timer(T);
+#endif
