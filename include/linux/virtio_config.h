/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/virtio_config.h>
 */
#ifndef _RETROFI_LINUX_VIRTIO_CONFIG_H
#define _RETROFI_LINUX_VIRTIO_CONFIG_H

#include_next <linux/virtio_config.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * struct virtqueue_info, virtio_find_vqs(vdev, nvqs, vqs, vqs_info, desc)
 * -- "virtio: introduce virtio_queue_info struct and find_vqs_info() config
 * op" and the conversions after it, up to "virtio: rename
 * virtio_find_vqs_info() to virtio_find_vqs()" (all v6.11), replaced the
 * parallel callbacks[], names[] and ctx[] arrays of virtio_find_vqs() with
 * one array of struct virtqueue_info. Structural (a changed signature). The
 * compat version (compat/backport-6.11.c) splits the array into the old
 * ones and calls the transport's find_vqs() as virtio_find_vqs_ctx() does.
 */
#if RETROFI_LINUX_LESS(6, 11, 0)
struct virtqueue_info {
	const char *name;
	vq_callback_t *callback;
	bool ctx;
};

#define virtio_find_vqs LINUX_BACKPORT(virtio_find_vqs)
int virtio_find_vqs(struct virtio_device *vdev, unsigned int nvqs,
		    struct virtqueue *vqs[],
		    struct virtqueue_info vqs_info[],
		    struct irq_affinity *desc);
RETROFI_CENSUS(virtio_find_vqs, "6.11", "structural",
	       "virtio: rename virtio_find_vqs_info() to virtio_find_vqs() (v6.11)");
#endif /* < 6.11 */

/*
 * virtio_reset_device() -- "virtio: wrap config->reset calls" (v5.16):
 * reset the device through its transport (upstream also synchronises the
 * virtqueue callbacks first with CONFIG_VIRTIO_HARDEN_NOTIFICATION, a 5.19
 * option an older kernel does not have). Declared in <linux/virtio.h>
 * upstream; here, where struct virtio_config_ops is complete. Additive,
 * probed.
 */
#if RETROFI_API_NEED(5, 16, 0, RETROFI_HAVE_virtio_reset_device)
static inline void LINUX_BACKPORT(virtio_reset_device)(struct virtio_device *dev)
{
	dev->config->reset(dev);
}
#define virtio_reset_device LINUX_BACKPORT(virtio_reset_device)
RETROFI_CENSUS(virtio_reset_device, "5.16", "probed",
	       "virtio: wrap config->reset calls (v5.16)");
#endif /* < 5.16 */

#endif /* _RETROFI_LINUX_VIRTIO_CONFIG_H */
