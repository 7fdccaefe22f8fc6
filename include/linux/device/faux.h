/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/device/faux.h>
 *
 * "driver core: add a faux bus for use when a simple device/bus is
 * needed" (v6.14) added this header; cfg80211's reg.c uses it for its
 * "regulatory" device (the device that firmware requests for the
 * regulatory database are made for), a platform device before.
 */
#ifndef _RETROFI_LINUX_DEVICE_FAUX_H
#define _RETROFI_LINUX_DEVICE_FAUX_H

#include <retrofi/backport.h>

#if !RETROFI_LINUX_LESS(6, 14, 0)
#include_next <linux/device/faux.h>
#endif

/*
 * struct faux_device, struct faux_device_ops, faux_device_create(),
 * faux_device_destroy(), faux_device_get_drvdata(),
 * faux_device_set_drvdata() -- the faux bus of 6.14: a device with no
 * hardware behind it, made and probed in one call. Before 6.14 such a
 * device was a platform device, and the shim makes one: struct
 * faux_device is struct platform_device, whose first member is the same
 * struct device dev that callers use; it is registered with no id (so it
 * has the name given, as a faux device does), its probe() is called once
 * registered (a failure unregisters it and gives NULL, as upstream), its
 * remove() before it is unregistered. Structural (a new header).
 */
#if RETROFI_LINUX_LESS(6, 14, 0)
#include <linux/err.h>
#include <linux/platform_device.h>

#define faux_device platform_device

struct faux_device_ops {
	int (*probe)(struct faux_device *faux_dev);
	void (*remove)(struct faux_device *faux_dev);
};

static inline struct faux_device *
faux_device_create(const char *name, struct device *parent,
		   const struct faux_device_ops *faux_ops)
{
	struct platform_device *pdev;

	pdev = platform_device_register_data(parent, name, PLATFORM_DEVID_NONE,
					     NULL, 0);
	if (IS_ERR(pdev))
		return NULL;
	if (faux_ops && faux_ops->probe && faux_ops->probe(pdev)) {
		platform_device_unregister(pdev);
		return NULL;
	}
	/* Where faux_device_destroy() finds remove(); the driver data is the caller's. */
	pdev->dev.platform_data = (void *)faux_ops;
	return pdev;
}

static inline void faux_device_destroy(struct faux_device *faux_dev)
{
	const struct faux_device_ops *faux_ops;

	if (!faux_dev)
		return;
	faux_ops = faux_dev->dev.platform_data;
	if (faux_ops && faux_ops->remove)
		faux_ops->remove(faux_dev);
	/* The platform core kfree()s platform_data on release. */
	faux_dev->dev.platform_data = NULL;
	platform_device_unregister(faux_dev);
}

static inline void *faux_device_get_drvdata(const struct faux_device *faux_dev)
{
	return dev_get_drvdata(&faux_dev->dev);
}

static inline void faux_device_set_drvdata(struct faux_device *faux_dev,
					   void *data)
{
	dev_set_drvdata(&faux_dev->dev, data);
}
RETROFI_CENSUS(faux_device_create, "6.14", "structural",
	       "driver core: add a faux bus for use when a simple device/bus is needed (v6.14)");
#endif /* < 6.14 */

#endif /* _RETROFI_LINUX_DEVICE_FAUX_H */
