// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat selftest: exercises the compat shims inside a guest and
 * prints KTAP on the console. Built like the backported stack (compat
 * headers first), optionally with API_LEVEL forced low so that the shims,
 * not the target's own definitions, are what runs.
 */
#include <linux/init.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <retrofi/backport.h>

MODULE_DESCRIPTION("retrofi compat layer selftest (KTAP)");
MODULE_LICENSE("GPL");

struct item {
	struct list_head node;
	int v;
};

static struct item items[8];

/* Build @head from values; returns 0. */
static void fill(struct list_head *head, int first, int n)
{
	int i;

	INIT_LIST_HEAD(head);
	for (i = 0; i < n; i++) {
		items[first + i].v = first + i;
		list_add_tail(&items[first + i].node, head);
	}
}

/* Whether @head holds exactly the values in @want, in order. */
static bool holds(struct list_head *head, const int *want, int n)
{
	struct item *it;
	int i = 0;

	list_for_each_entry(it, head, node) {
		if (i >= n || it->v != want[i])
			return false;
		i++;
	}
	return i == n && head->prev->next == head && head->next->prev == head;
}

static const char *test_splice_tail_appends_in_order(void)
{
	static const int want[] = { 0, 1, 2, 3, 4 };
	LIST_HEAD(a);
	LIST_HEAD(b);

	fill(&a, 0, 2);
	fill(&b, 2, 3);
	list_splice_tail(&b, &a);
	return holds(&a, want, 5) ? NULL : "a is not 0 1 2 3 4";
}

static const char *test_splice_tail_of_empty_list_changes_nothing(void)
{
	static const int want[] = { 0, 1 };
	LIST_HEAD(a);
	LIST_HEAD(empty);

	fill(&a, 0, 2);
	list_splice_tail(&empty, &a);
	return holds(&a, want, 2) ? NULL : "a changed";
}

static const char *test_splice_tail_init_reinitialises_source(void)
{
	static const int want[] = { 0, 1, 2 };
	LIST_HEAD(a);
	LIST_HEAD(b);

	fill(&a, 0, 1);
	fill(&b, 1, 2);
	list_splice_tail_init(&b, &a);
	if (!list_empty(&b))
		return "source list not empty";
	return holds(&a, want, 3) ? NULL : "a is not 0 1 2";
}

static const char *test_cut_position_moves_head_through_entry(void)
{
	static const int cut[] = { 0, 1, 2 };
	static const int rest[] = { 3, 4 };
	LIST_HEAD(a);
	LIST_HEAD(b);

	fill(&a, 0, 5);
	list_cut_position(&b, &a, &items[2].node);
	if (!holds(&b, cut, 3))
		return "cut part is not 0 1 2";
	return holds(&a, rest, 2) ? NULL : "rest is not 3 4";
}

static const char *test_cut_position_at_head_gives_empty_list(void)
{
	static const int all[] = { 0, 1 };
	LIST_HEAD(a);
	struct list_head b;

	fill(&a, 0, 2);
	list_cut_position(&b, &a, &a);
	if (!list_empty(&b))
		return "new list not empty";
	return holds(&a, all, 2) ? NULL : "source changed";
}

static const char *test_cut_position_of_singular_list_takes_it_all(void)
{
	static const int one[] = { 0 };
	LIST_HEAD(a);
	LIST_HEAD(b);

	fill(&a, 0, 1);
	list_cut_position(&b, &a, &items[0].node);
	if (!list_empty(&a))
		return "source not empty";
	return holds(&b, one, 1) ? NULL : "new list is not 0";
}

static const char *test_is_singular(void)
{
	LIST_HEAD(a);

	if (list_is_singular(&a))
		return "empty list is singular";
	fill(&a, 0, 1);
	if (!list_is_singular(&a))
		return "one-entry list is not singular";
	fill(&a, 0, 2);
	return list_is_singular(&a) ? "two-entry list is singular" : NULL;
}

static const char *test_count_nodes(void)
{
	LIST_HEAD(a);

	if (list_count_nodes(&a) != 0)
		return "empty list counts non-zero";
	fill(&a, 0, 7);
	return list_count_nodes(&a) == 7 ? NULL : "7-entry list miscounted";
}

static const char *test_kmemdup_array_copies_and_refuses_overflow(void)
{
	static const u16 src[] = { 1, 2, 3 };
	const void *hidden = src;
	u16 *dup = kmemdup_array(src, ARRAY_SIZE(src), sizeof(src[0]),
				 GFP_KERNEL);
	bool same = dup && !memcmp(dup, src, sizeof(src));

	kfree(dup);
	if (!same)
		return "copy differs";
	/* Hide the object size so fortify does not reject the call at build time. */
	OPTIMIZER_HIDE_VAR(hidden);
	dup = kmemdup_array(hidden, SIZE_MAX / 2, 4, GFP_KERNEL | __GFP_NOWARN);
	if (dup) {
		kfree(dup);
		return "overflowing size allocated";
	}
	return NULL;
}

struct selftest {
	const char *name;
	const char *(*fn)(void);
	const char *shim;	/* the name the stack's calls resolve to */
};

#define T(fn, sym) { #fn, test_ ## fn, __stringify(sym) }

static const struct selftest tests[] = {
	T(splice_tail_appends_in_order, list_splice_tail),
	T(splice_tail_of_empty_list_changes_nothing, list_splice_tail),
	T(splice_tail_init_reinitialises_source, list_splice_tail_init),
	T(cut_position_moves_head_through_entry, list_cut_position),
	T(cut_position_at_head_gives_empty_list, list_cut_position),
	T(cut_position_of_singular_list_takes_it_all, list_cut_position),
	T(is_singular, list_is_singular),
	T(count_nodes, list_count_nodes),
	T(kmemdup_array_copies_and_refuses_overflow, kmemdup_array),
};

static int __init retrofi_selftest_init(void)
{
	int i, failed = 0;

	pr_info("KTAP version 1\n");
	pr_info("# retrofi compat selftest: api level %u.%u.%u on %u.%u.%u%s\n",
		(RETROFI_API_CODE >> 16) & 0xff, (RETROFI_API_CODE >> 8) & 0xff,
		RETROFI_API_CODE & 0xff, (LINUX_VERSION_CODE >> 16) & 0xff,
		(LINUX_VERSION_CODE >> 8) & 0xff, LINUX_VERSION_CODE & 0xff,
		RETROFI_API_FORCED ? " (forced)" : "");
	pr_info("1..%zu\n", ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		const char *err = tests[i].fn();

		pr_info("# %s: uses %s\n", tests[i].name, tests[i].shim);
		if (err) {
			failed++;
			pr_info("# %s: %s\n", tests[i].name, err);
			pr_info("not ok %d %s\n", i + 1, tests[i].name);
		} else {
			pr_info("ok %d %s\n", i + 1, tests[i].name);
		}
	}
	pr_info("# retrofi compat selftest: %d passed, %d failed\n",
		(int)ARRAY_SIZE(tests) - failed, failed);
	return 0;
}

static void __exit retrofi_selftest_exit(void)
{
}

module_init(retrofi_selftest_init);
module_exit(retrofi_selftest_exit);
