// Test input for 0103-class-register-const, shaped like 7.3's
// mac80211_hwsim: a static const class, registered, given to
// device_create() and unregistered.
#include <linux/device.h>
#include <linux/err.h>
#include <linux/module.h>

#if RETROFI_HAVE_class_register_const
static const struct class test_class = {
	.name	= "retrofi_test"
};
#else
static struct class test_class = {
	.name="retrofi_test",
};
#endif

static struct device *test_dev;

static int __init test_init(void)
{
	int err;

	err = class_register(&test_class);
	if (err)
		return err;
	test_dev = device_create(&test_class, NULL, 0, NULL, "test%d", 0);
	if (IS_ERR(test_dev)) {
		class_unregister(&test_class);
		return PTR_ERR(test_dev);
	}
	return 0;
}

static void __exit test_exit(void)
{
	device_unregister(test_dev);
	class_unregister(&test_class);
}

module_init(test_init);
module_exit(test_exit);
MODULE_LICENSE("GPL");
