// Test input for 0105-bus-register-const, shaped like 7.3's
// lib/kunit/device.c: a static const bus type, registered, given to a
// driver and a device, and unregistered.
#include <linux/device.h>
#include <linux/module.h>

static const struct bus_type test_bus_type = {
	.name = "retrofi_test",
};

static struct device_driver test_driver = {
	.name = "retrofi_test",
};

static int __init test_init(void)
{
	int err;

	err = bus_register(&test_bus_type);
	if (err)
		return err;
	test_driver.bus = &test_bus_type;
	return 0;
}

static void __exit test_exit(void)
{
	bus_unregister(&test_bus_type);
}

module_init(test_init);
module_exit(test_exit);
MODULE_LICENSE("GPL");
