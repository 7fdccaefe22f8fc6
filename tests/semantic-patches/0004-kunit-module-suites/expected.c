/* kunit_module_init() and kunit_module_exit() of lib/kunit/test.c (7.3),
 * reduced to their uses of the four members of struct module. */
#include <linux/module.h>
#include <linux/slab.h>

struct kunit_suite;

struct kunit_suite_set {
	struct kunit_suite * const *start;
	struct kunit_suite * const *end;
};

struct kunit_suite **kunit_module_suites(struct module *mod);
int kunit_module_num_suites(struct module *mod);
struct kunit_suite **kunit_module_init_suites(struct module *mod);
int kunit_module_num_init_suites(struct module *mod);
void kunit_module_set_suites(struct module *mod, struct kunit_suite **suites);
void kunit_module_set_num_suites(struct module *mod, int num);
void kunit_module_set_init_suites(struct module *mod, struct kunit_suite **suites);
void kunit_module_set_num_init_suites(struct module *mod, int num);

struct kunit_suite_set kunit_merge(struct kunit_suite_set a, struct kunit_suite_set b);
void kunit_exit(struct kunit_suite **suites, int num);
void kunit_module_init(struct module *mod, struct kunit_suite_set filtered_set);
void kunit_module_exit(struct module *mod);

void kunit_module_init(struct module *mod, struct kunit_suite_set filtered_set)
{
	struct kunit_suite_set suite_set;
	struct kunit_suite_set normal_suite_set = {
		kunit_module_suites(mod),
	kunit_module_suites(mod) + kunit_module_num_suites(mod),
	};
	struct kunit_suite_set init_suite_set = {
		kunit_module_init_suites(mod),
	kunit_module_init_suites(mod) + kunit_module_num_init_suites(mod),
	};

	if (kunit_module_num_init_suites(mod) > 0)
		suite_set = kunit_merge(init_suite_set, normal_suite_set);
	else
		suite_set = normal_suite_set;

	kunit_module_set_suites(mod,
				(struct kunit_suite **)filtered_set.start);
	kunit_module_set_num_suites(mod,
				    filtered_set.end - filtered_set.start);

	if (kunit_module_num_init_suites(mod) > 0)
		kfree(suite_set.start);
}

void kunit_module_exit(struct module *mod)
{
	struct kunit_suite_set suite_set = {
		kunit_module_suites(mod),
	kunit_module_suites(mod) + kunit_module_num_suites(mod),
	};

	if (!suite_set.start)
		return;
	kunit_exit(kunit_module_suites(mod), kunit_module_num_suites(mod));
}
