// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 6.11 introduced that the stack uses.
 */
#include <linux/export.h>
#include <linux/slab.h>
#include <linux/virtio_config.h>

#if RETROFI_LINUX_LESS(6, 11, 0)
/*
 * "virtio: introduce virtio_queue_info struct and find_vqs_info() config
 * op" and "virtio: rename virtio_find_vqs_info() to virtio_find_vqs()":
 * the stack passes one struct virtqueue_info per queue; the transport of
 * an older kernel wants the callbacks, names and ctx flags as three arrays.
 */
int virtio_find_vqs(struct virtio_device *vdev, unsigned int nvqs,
		    struct virtqueue *vqs[],
		    struct virtqueue_info vqs_info[],
		    struct irq_affinity *desc)
{
	vq_callback_t **callbacks;
	const char **names;
	bool *ctx;
	unsigned int i;
	int err = -ENOMEM;

	callbacks = kmalloc_array(nvqs, sizeof(*callbacks), GFP_KERNEL);
	names = kmalloc_array(nvqs, sizeof(*names), GFP_KERNEL);
	ctx = kmalloc_array(nvqs, sizeof(*ctx), GFP_KERNEL);
	if (!callbacks || !names || !ctx)
		goto out;

	for (i = 0; i < nvqs; i++) {
		callbacks[i] = vqs_info[i].callback;
		names[i] = vqs_info[i].name;
		ctx[i] = vqs_info[i].ctx;
	}
	err = vdev->config->find_vqs(vdev, nvqs, vqs, callbacks, names, ctx,
				     desc);
out:
	kfree(ctx);
	kfree(names);
	kfree(callbacks);
	return err;
}
EXPORT_SYMBOL_GPL(virtio_find_vqs);
#endif /* < 6.11 */
