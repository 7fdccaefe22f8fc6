/* The uses of current->kunit_test in lib/kunit/test.c,
 * lib/kunit/try-catch.c and <kunit/test-bug.h> (7.3). */
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

struct kunit;

struct kunit_try_catch {
	struct kunit *test;
	int try_result;
};

struct kunit *kunit_current_test(void);
void kunit_set_current_test(struct kunit *test);
void kunit_forget_task(struct task_struct *task);
void kunit_set_failure(struct kunit *test);
void __kunit_fail_current_test_impl(void);
void kunit_try_run_case(struct kunit *test);
void kunit_cleanup(struct kunit *test);
void kunit_try_catch_run(struct kunit_try_catch *try_catch, void *context);
void kunit_other(struct task_struct *t);

static inline struct kunit *kunit_get_current_test(void)
{
	return current->kunit_test;
}

void __kunit_fail_current_test_impl(void)
{
	if (!current->kunit_test)
		return;

	kunit_set_failure(current->kunit_test);
}

void kunit_try_run_case(struct kunit *test)
{
	current->kunit_test = test;
}

void kunit_cleanup(struct kunit *test)
{
	current->kunit_test = NULL;
}

void kunit_try_catch_run(struct kunit_try_catch *try_catch, void *context)
{
	struct task_struct *task_struct;

	task_struct = kthread_create(NULL, try_catch, "kunit_try_catch_thread");
	if (IS_ERR(task_struct))
		return;
	get_task_struct(task_struct);
	wake_up_process(task_struct);
	put_task_struct(task_struct);
}

/* Another function's put_task_struct() is left alone. */
void kunit_other(struct task_struct *t)
{
	put_task_struct(t);
}
