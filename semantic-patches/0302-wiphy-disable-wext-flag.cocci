// retrofi rule 0302-wiphy-disable-wext-flag
// must-match: yes
// needed-from: 7.3
//   (the 6.12 and 7.2 sources still define WIPHY_FLAG_DISABLE_WEXT)
// upstream: 7.3 removed WIPHY_FLAG_DISABLE_WEXT (BIT(9) of enum
//   wiphy_flags; "/* reuse bit 9 */" marks the gap) and the test of it in
//   net/wireless/wext-core.c; it came with "wifi: cfg80211: add a flag to
//   disable wireless extensions" (v6.9, not verified here). Not in 7.3,
//   in 7.2 and 6.12 (the sources checked); the removing commit's title is
//   not verified here.
// targets: every target whose built-in wext-core tests the flag (6.12;
//   compat/layout.list: value WIPHY_FLAG_DISABLE_WEXT). The enumerator is
//   put back unconditionally: nothing in the stack sets it, and a target
//   whose headers lack it tests no such bit.
// why: the target's built-in wireless extensions (CONFIG_WEXT_CORE=y)
//   test wiphy->flags & WIPHY_FLAG_DISABLE_WEXT, with the target's value,
//   on the struct wiphy the backported cfg80211 allocates. compat.ko's
//   layout check asserts that the stack's constant has that value
//   (compat/main.c), which needs the name; and the bit must stay unused
//   by every other flag of the stack, or setting that flag would turn the
//   target's wireless extensions off. So the name comes back at bit 9,
//   and the rule matches only while no flag of the source's enum takes
//   bit 9 (rule bit9): when upstream reuses it, the rule matches nothing
//   and generation fails (must-match), instead of the target reading the
//   new flag as "wext disabled". A header cannot add an enumerator.

@bit9@
identifier F;
expression E : script:python() { E.replace(" ", "") in ("BIT(9)", "(1<<9)", "1<<9", "0x200", "512", "BIT(WIPHY_FLAG_DISABLE_WEXT)") };
@@
enum wiphy_flags { ..., F = E, ... };

@depends on !bit9@
expression E;
@@
enum wiphy_flags {
	...,
	WIPHY_FLAG_IBSS_RSN = E,
+	WIPHY_FLAG_DISABLE_WEXT = 0x200, /* BIT(9) */
	...
};
