// retrofi rule 0301-wiphy-radio-cfg-layout
// must-match: yes
// needed-from: 7.2
//   (the 6.12 source's struct wiphy has no radio_cfg; 7.2's and 7.3's
//   have it, in front of wext)
// upstream: "wifi: cfg80211: Add Support to Set RTS Threshold for each
//   Radio" added struct wiphy::radio_cfg (a pointer, after reg_notifier),
//   which moves every later member, wext among them. Not in 6.12, in 7.2
//   (the sources checked); the release (6.17, as far as known here) is
//   not verified.
// targets: kernels whose struct wiphy has no radio_cfg (every real
//   target: 6.12, 6.1 and 5.10), decided by the compile probe
//   wiphy_radio_cfg (compat/probes.list) on the target's own headers,
//   since the layout to match is the target's, whatever its version
// why: the target's built-in wireless extensions read
//   dev->ieee80211_ptr->wiphy->wext from the struct wiphy the backported
//   cfg80211 allocates, at the offset of the target's own struct wiphy
//   (compat/layout.list; compat.ko's build stops when they differ); rule
//   0300 keeps it there against older changes. A header cannot move a
//   member: where the target's struct has no radio_cfg, the member moves
//   to the end of the struct, after radio, as 0300 does with mtx and
//   privid. Only cfg80211 (core.c, nl80211.c) reads it, by name, so where
//   it sits does not matter to the stack. A layout is structural: the API
//   level never moves it.
// RETROFI_HAVE_wiphy_radio_cfg comes from <retrofi/probes.h>,
// force-included through include/retrofi/version.h; a name missing from
// compat/probes.list is a -Wundef warning, which fails the build.

@@
@@
struct wiphy {
	...
-	struct wiphy_radio_cfg *radio_cfg;
+#if RETROFI_HAVE_wiphy_radio_cfg
+	struct wiphy_radio_cfg *radio_cfg;
+#endif
	...
	const struct wiphy_radio *radio;
+#if !RETROFI_HAVE_wiphy_radio_cfg
+	struct wiphy_radio_cfg *radio_cfg;
+#endif
	...
};
