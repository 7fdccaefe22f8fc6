// retrofi rule 0202-genl-resv-start-op
// must-match: yes
// upstream: "genetlink: start to validate reserved header bytes" (v6.1)
//   added struct genl_family::resv_start_op: commands numbered from it on
//   get the strict checks (reserved header bytes must be zero, no
//   GENL_DONT_VALIDATE_* leniency); older commands keep the old ones.
//   nl80211 and mac80211_hwsim set it to one past their last command.
// targets: kernels older than 6.1 (real target 5.10)
// why: before 6.1 struct genl_family has no such member, and a header
//   cannot add one. Without it an older kernel validates every command the
//   way it validates all of them, which is what these families got before
//   6.1; the initialiser is kept for 6.1 and later only.

@@
identifier fam;
expression E;
@@
struct genl_family fam = {
-	.resv_start_op = E,
+#if RETROFI_LINUX_IS_GEQ(6,1,0)
+	.resv_start_op = E,
+#endif
};
