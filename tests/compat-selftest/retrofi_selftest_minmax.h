/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: min() and max() as the 6.12 stack calls them
 * (6.7's check; <linux/minmax.h> shims it where the target's own still
 * demands one type). Included by retrofi_selftest_5x.h (the table entry is
 * in retrofi_selftest_5x_cases.h); tests/scripts/test_abi_probes.py also
 * compiles it alone against the oldest and the newest 5.10 ABI, of which
 * the oldest needs the shim. The values are written here, not computed by
 * another min().
 */
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/types.h>

static volatile unsigned long st_minmax_big = ULONG_MAX - 1;
static volatile u8 st_minmax_len = 200;

/*
 * An unsigned long against a positive int constant (mac80211's scan.c:
 * max(msecs_to_jiffies(...), IEEE80211_PASSIVE_CHANNEL_TIME)) and a u8
 * against one (cfg80211's sme.c: min(ssid->datalen,
 * IEEE80211_MAX_SSID_LEN)): each compiles without a warning, compares as
 * the unsigned value (ULONG_MAX - 1 is not -2, 200 is not -56) and keeps
 * the unsigned long's type. Compile-time facts first: the types, and the
 * values the compiler folds from known arguments (a wrong one fails the
 * build); then the same calls on values it cannot know.
 */
static const char *test_min_max_compare_an_unsigned_with_a_positive_int_constant(void)
{
	unsigned long big = ULONG_MAX - 1, small = 3;
	u8 len = 200;

	static_assert(__builtin_types_compatible_p(typeof(min(big, 5)), unsigned long));
	static_assert(__builtin_types_compatible_p(typeof(max(big, 5)), unsigned long));
	BUILD_BUG_ON(min(big, 5) != 5);
	BUILD_BUG_ON(max(big, 5) != ULONG_MAX - 1);
	BUILD_BUG_ON(min(small, 5) != 3);
	BUILD_BUG_ON(min(len, 32) != 32);
	BUILD_BUG_ON(max(len, 32) != 200);

	big = st_minmax_big;
	len = st_minmax_len;
	if (min(big, 5) != 5 || max(big, 5) != ULONG_MAX - 1)
		return "min|max(ULONG_MAX - 1, 5) is not 5|ULONG_MAX - 1";
	if (min(len, 32) != 32 || max(len, 32) != 200)
		return "min|max((u8)200, 32) is not 32|200";
	return NULL;
}

static volatile int st_minmax_negative = -1;

/*
 * umin() and umax() (6.7): both values zero-extended to unsigned long
 * long, so that an int of -1 is the largest value, not the smallest, and
 * an int against a size_t compiles without a signedness error (rtw89's
 * umin(idx >> 4, ARRAY_SIZE(...) - 1)). The shim where the target has
 * none, and in place of the target's with probes forced off.
 */
static const char *test_umin_umax_compare_as_unsigned(void)
{
	int neg = st_minmax_negative;
	size_t five = 5;

	if (umin(neg, five) != 5)
		return "umin(-1, 5) is not 5: -1 was not taken as unsigned";
	if (umax(neg, five) != (unsigned long long)(unsigned int)-1)
		return "umax(-1, 5) is not the zero-extended -1";
	if (umin(st_minmax_len, 32) != 32 || umax(st_minmax_len, 32) != 200)
		return "umin|umax((u8)200, 32) is not 32|200";
	return NULL;
}
