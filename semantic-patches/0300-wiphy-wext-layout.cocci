// retrofi rule 0300-wiphy-wext-layout
// must-match: yes
// upstream: "cfg80211: avoid holding the RTNL when calling the driver"
//   (v5.12) put struct mutex mtx first in struct wiphy, and "nl80211: Add
//   LC placeholder band definition to nl80211_band" (v5.16) added a sixth
//   entry to its bands[NUM_NL80211_BANDS]; both move every later member,
//   wext among them.
// targets: kernels older than 5.16 (real target 5.10)
// why: the target's built-in wireless extensions (net/wireless/wext-core.c
//   and wext-proc.c, CONFIG_WEXT_CORE=y) read dev->ieee80211_ptr->wiphy->wext
//   from the struct wiphy the backported cfg80211 allocates, at the offset
//   of the target's own struct wiphy (compat/layout.list; compat.ko's
//   build stops when they differ). A header cannot move a member. Where
//   the target's struct has neither, the two are undone for the members in
//   front of wext: mtx moves to the end of the struct, after radio
//   (before 5.12), and so does privid, a pointer-sized member just before
//   bands (before 5.16, to make up for the sixth band's pointer).
//   Nothing outside cfg80211 and mac80211 reads either member, so where
//   they sit does not matter to the stack; every member the target reads
//   lands where it reads it.

@@
@@
struct wiphy {
	...
-	struct mutex mtx;
+#if RETROFI_LINUX_IS_GEQ(5,12,0)
+	struct mutex mtx;
+#endif
	...
-	const void *privid;
+#if RETROFI_LINUX_IS_GEQ(5,16,0)
+	const void *privid;
+#endif
	...
	const struct wiphy_radio *radio;
+#if RETROFI_LINUX_IS_LESS(5,16,0)
+	const void *privid;
+#endif
+#if RETROFI_LINUX_IS_LESS(5,12,0)
+	struct mutex mtx;
+#endif
	...
};
