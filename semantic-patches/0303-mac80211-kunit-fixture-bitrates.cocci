// retrofi rule 0303-mac80211-kunit-fixture-bitrates
// must-match: yes
// needed-from: 7.2
//   (net/mac80211/tests is copied from sources 7.2 and newer:
//   drivers/copy-list; 6.12's suites have no util.c)
// upstream: the mac80211 suites' fixture, t_sdata_init() in
//   net/mac80211/tests/util.c (7.x; the change that added it is not
//   verified here), copies each band's bitrates twice: once for every
//   band, then again in the band's own case, and t_sdata_exit() frees the
//   second copy only. Two objects of 144 bytes leak with every fixture, on
//   the source's own kernel as on every target. Still so in 7.3.4.
// targets: every target: a fix of the source's test code, not an API
//   difference. Nothing the suites check reads the first copy (the second
//   overwrites the pointer before any case runs).
// why: the debug rows run the suites under kmemleak and fail on any
//   report (docs/testing.md), and an allowed_splats entry needs the link
//   of an upstream report, which this machine cannot file. The first,
//   overwritten copy goes; the band's own copy, which t_sdata_exit()
//   frees, stays. When upstream fixes the fixture, the rule matches
//   nothing and generation fails (must-match): retire it then.

@fixture@
identifier sband, band, bitrates;
@@
t_sdata_init(...)
{
	<...
	sband->band = band;
-	sband->bitrates = kmemdup(bitrates, sizeof(bitrates), GFP_KERNEL);
-	sband->n_bitrates = ARRAY_SIZE(bitrates);
	...>
}
