/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: the shims that the source's KUnit (lib/kunit,
 * built as the tree's kunit.ko) and its suites need on older targets.
 * Included by retrofi_selftest.c before its table; the table entries are
 * in retrofi_selftest_kunit_cases.h. Each case checks against values
 * written here, not against the shim.
 */
#include <linux/args.h>
#include <linux/completion.h>
#include <linux/container_of.h>
#include <linux/device.h>
#include <linux/kthread.h>
#include <linux/panic.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/sched/task.h>
#include <linux/seq_buf.h>
#include <linux/stdarg.h>

/* <linux/args.h> (6.12 or older): COUNT_ARGS() and CONCATENATE(). */
static const char *test_count_args_counts_and_concatenate_pastes(void)
{
	int st_args_12 = 12;

	if (COUNT_ARGS() != 0 || COUNT_ARGS(a) != 1 || COUNT_ARGS(a, b, c) != 3)
		return "COUNT_ARGS() miscounts";
	if (CONCATENATE(st_args_, 12) != 12)
		return "CONCATENATE() does not paste its arguments";
	return NULL;
}

/* <linux/stdarg.h> (5.15): va_list and its macros. */
static int st_sum_ints(int n, ...)
{
	va_list ap;
	int sum = 0;

	va_start(ap, n);
	while (n--)
		sum += va_arg(ap, int);
	va_end(ap);
	return sum;
}

static const char *test_stdarg_walks_the_arguments(void)
{
	return st_sum_ints(3, 1, 20, 300) == 321 ? NULL : "va_arg() misread the arguments";
}

/*
 * container_of_const() (6.2): the container of a const member pointer is
 * const, of a plain one plain, and both are the container.
 */
struct st_container {
	int before;
	int member;
};

static const char *test_container_of_const_keeps_the_constness(void)
{
	struct st_container c = { 1, 2 };
	const int *cp = &c.member;
	int *p = &c.member;

	if (!_Generic(container_of_const(cp, struct st_container, member),
		      const struct st_container *: 1, default: 0))
		return "the container of a const member is not const";
	if (!_Generic(container_of_const(p, struct st_container, member),
		      struct st_container *: 1, default: 0))
		return "the container of a plain member is const";
	if (container_of_const(cp, struct st_container, member) != &c ||
	    container_of_const(p, struct st_container, member) != &c)
		return "container_of_const() gave another address";
	return NULL;
}

/* TAINT_TEST (5.17): upstream's flag number. */
static const char *test_taint_test_is_upstreams(void)
{
	return TAINT_TEST == 18 ? NULL : "TAINT_TEST is not 18";
}

/* seq_buf_puts() (exported from 6.12): appends a string, or overflows. */
static const char *test_seq_buf_puts_appends_and_overflows(void)
{
	char buf[8];
	struct seq_buf s;

	seq_buf_init(&s, buf, sizeof(buf));
	if (seq_buf_puts(&s, "abc") || seq_buf_puts(&s, "de"))
		return "seq_buf_puts() failed with room left";
	if (seq_buf_used(&s) != 5 || memcmp(buf, "abcde", 6))
		return "seq_buf_puts() wrote another string";
	if (seq_buf_puts(&s, "fgh") != -1 || !seq_buf_has_overflowed(&s))
		return "seq_buf_puts() did not overflow";
	return NULL;
}

/*
 * kthread_exit() (exported from 6.12): a kernel thread that ends with it
 * hands its result to kthread_stop().
 */
static int st_kthread_exits(void *data)
{
	complete(data);
	kthread_exit(42);
}

static const char *test_kthread_exit_ends_the_thread_with_its_result(void)
{
	DECLARE_COMPLETION_ONSTACK(started);
	struct task_struct *t;
	int ret;

	t = kthread_run(st_kthread_exits, &started, "retrofi_st_exit");
	if (IS_ERR(t))
		return "kthread_run() failed";
	get_task_struct(t);
	wait_for_completion(&started);
	ret = kthread_stop(t);
	put_task_struct(t);
	return ret == 42 ? NULL : "kthread_stop() did not return the thread's kthread_exit() result";
}

/*
 * device_is_bound() (exported from 6.12): asked under the device lock, as
 * KUnit's platform helpers do, a platform device is bound while its
 * driver is registered and not after.
 */
static int st_bound_probe(struct platform_device *pdev)
{
	return 0;
}

static struct platform_driver st_bound_driver = {
	.probe = st_bound_probe,
	.driver = { .name = "retrofi_st_bound" },
};

static bool st_locked_is_bound(struct device *dev)
{
	bool bound;

	device_lock(dev);
	bound = device_is_bound(dev);
	device_unlock(dev);
	return bound;
}

static const char *test_device_is_bound_follows_the_driver(void)
{
	struct platform_device *pdev;
	const char *err = NULL;

	if (platform_driver_register(&st_bound_driver))
		return "platform_driver_register() failed";
	pdev = platform_device_register_simple("retrofi_st_bound", -1, NULL, 0);
	if (IS_ERR(pdev)) {
		platform_driver_unregister(&st_bound_driver);
		return "platform_device_register_simple() failed";
	}
	if (!st_locked_is_bound(&pdev->dev))
		err = "a probed device is not bound";
	platform_driver_unregister(&st_bound_driver);
	if (!err && st_locked_is_bound(&pdev->dev))
		err = "a device is still bound after its driver went";
	platform_device_unregister(pdev);
	return err;
}

/*
 * software_node_register_node_group() of a const array (7.3): the group's
 * nodes are registered, and gone after the unregistration.
 */
static const struct software_node st_swnode = { .name = "retrofi_st_swnode" };
static const struct software_node *const st_swnode_group[] = { &st_swnode, NULL };

static const char *test_software_node_group_of_const_pointers_registers(void)
{
	const char *err = NULL;

	if (software_node_register_node_group(st_swnode_group))
		return "software_node_register_node_group() failed";
	if (!software_node_fwnode(&st_swnode))
		err = "the group's node is not registered";
	software_node_unregister_node_group(st_swnode_group);
	if (!err && software_node_fwnode(&st_swnode))
		err = "the group's node is still registered";
	return err;
}
