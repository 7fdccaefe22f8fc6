// retrofi rule 0002-crosststamp-systime
// must-match: yes
// needed-from: 7.2
// upstream: "timekeeping: Prepare for cross timestamps on arbitrary clock
//   IDs" added struct system_device_crosststamp::clock_id (the clock the
//   caller asks for), "wifi: iwlwifi: Use
//   system_device_crosststamp::sys_systime" moved iwlwifi's PHC to the new
//   member and "timekeeping: Remove system_device_crosststamp::sys_realtime"
//   removed the old one (one series, merged for 7.2: Debian's 7.2 headers
//   have clock_id and sys_systime, 6.12's have neither)
// targets: kernels older than 7.2 (real targets 6.12, 6.1, 5.10)
// why: a header cannot add or rename a member of the target's own struct
//   (the PTP core of the target fills and reads it).  Before 7.2 every
//   cross timestamp is one of CLOCK_REALTIME, so the driver's check of
//   clock_id is left out there, and the system time goes to sys_realtime,
//   the member the target's PTP core reads.

@@
expression X;
statement S;
@@
-if (X->clock_id != CLOCK_REALTIME) S
+#if RETROFI_LINUX_IS_GEQ(7,2,0)
+if (X->clock_id != CLOCK_REALTIME) S
+#endif

@@
expression X, E;
@@
-X->sys_systime = E;
+#if RETROFI_LINUX_IS_GEQ(7,2,0)
+X->sys_systime = E;
+#else
+X->sys_realtime = E;
+#endif
