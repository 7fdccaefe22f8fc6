// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat: what kernel 6.11 introduced that the stack uses.
 */
#include <linux/export.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/thermal.h>
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

#if RETROFI_LINUX_LESS(6, 11, 0)
/*
 * The trip-table thermal zone API of 6.11 over the kernel's trip-count one
 * (<linux/thermal.h>): one context per zone, holding the kernel
 * operations the zone was registered with, the driver's, and a copy of
 * its trip table.
 */
struct retrofi_tz {
	retrofi_kernel_tz_ops kops;
	const struct retrofi_thermal_zone_device_ops *ops;
	struct thermal_zone_device *tz;
	struct list_head node;
	int num_trips;
	struct retrofi_thermal_trip trips[];
};

static LIST_HEAD(retrofi_tzs);
static DEFINE_MUTEX(retrofi_tzs_lock);

/* The context of a zone compat.ko registered, or NULL. */
static struct retrofi_tz *retrofi_tz_of(struct thermal_zone_device *tz)
{
	struct retrofi_tz *ctx, *found = NULL;

	mutex_lock(&retrofi_tzs_lock);
	list_for_each_entry(ctx, &retrofi_tzs, node) {
		if (ctx->tz == tz) {
			found = ctx;
			break;
		}
	}
	mutex_unlock(&retrofi_tzs_lock);
	return found;
}

/*
 * The kernel calls the operations below only for a zone registered with
 * them, whose ops point into its context: no lookup, and none of them takes
 * the zone's lock (the core holds it around some of them).
 */
static struct retrofi_tz *retrofi_tz_ctx(struct thermal_zone_device *tz)
{
	return container_of(tz->ops, struct retrofi_tz, kops);
}

static int retrofi_tz_get_temp(struct thermal_zone_device *tz, int *temp)
{
	return retrofi_tz_ctx(tz)->ops->get_temp(tz, temp);
}

static int retrofi_tz_set_trips(struct thermal_zone_device *tz, int low, int high)
{
	return retrofi_tz_ctx(tz)->ops->set_trips(tz, low, high);
}

static int retrofi_tz_change_mode(struct thermal_zone_device *tz,
				  enum thermal_device_mode mode)
{
	return retrofi_tz_ctx(tz)->ops->change_mode(tz, mode);
}

static int retrofi_tz_get_crit_temp(struct thermal_zone_device *tz, int *temp)
{
	return retrofi_tz_ctx(tz)->ops->get_crit_temp(tz, temp);
}

static int retrofi_tz_set_emul_temp(struct thermal_zone_device *tz, int temp)
{
	return retrofi_tz_ctx(tz)->ops->set_emul_temp(tz, temp);
}

static int retrofi_tz_get_trip_type(struct thermal_zone_device *tz, int trip,
				    enum thermal_trip_type *type)
{
	struct retrofi_tz *ctx = retrofi_tz_ctx(tz);

	if (trip < 0 || trip >= ctx->num_trips)
		return -EINVAL;
	*type = ctx->trips[trip].type;
	return 0;
}

static int retrofi_tz_get_trip_temp(struct thermal_zone_device *tz, int trip, int *temp)
{
	struct retrofi_tz *ctx = retrofi_tz_ctx(tz);

	if (trip < 0 || trip >= ctx->num_trips)
		return -EINVAL;
	*temp = READ_ONCE(ctx->trips[trip].temperature);
	return 0;
}

static int retrofi_tz_get_trip_hyst(struct thermal_zone_device *tz, int trip, int *hyst)
{
	struct retrofi_tz *ctx = retrofi_tz_ctx(tz);

	if (trip < 0 || trip >= ctx->num_trips)
		return -EINVAL;
	*hyst = ctx->trips[trip].hysteresis;
	return 0;
}

/*
 * 7.3's trip_point_temp_store(): under the zone's lock (neither 5.10's nor
 * 6.1's store holds it), an equal temperature changes nothing, one that
 * would overflow below the hysteresis is refused, and the temperature is
 * stored once the driver's callback accepted it.
 */
static int retrofi_tz_set_trip_temp(struct thermal_zone_device *tz, int trip, int temp)
{
	struct retrofi_tz *ctx = retrofi_tz_ctx(tz);
	struct retrofi_thermal_trip *t;
	int ret = 0;

	if (trip < 0 || trip >= ctx->num_trips)
		return -EINVAL;
	t = &ctx->trips[trip];
	mutex_lock(&tz->lock);
	if (temp == t->temperature)
		goto out;
	if (temp != THERMAL_TEMP_INVALID && temp <= t->hysteresis + THERMAL_TEMP_INVALID) {
		ret = -EINVAL;
		goto out;
	}
	ret = ctx->ops->set_trip_temp(tz, t, temp);
	if (!ret)
		WRITE_ONCE(t->temperature, temp);
out:
	mutex_unlock(&tz->lock);
	return ret;
}

struct thermal_zone_device *
retrofi_thermal_zone_device_register_with_trips(const char *type,
						const struct retrofi_thermal_trip *trips,
						int num_trips, void *devdata,
						const struct retrofi_thermal_zone_device_ops *ops,
						const struct thermal_zone_params *tzp,
						unsigned int passive_delay,
						unsigned int polling_delay)
{
	struct thermal_zone_device *tz;
	struct retrofi_tz *ctx;
	int mask = 0, i;

	if (num_trips < 0 || num_trips > 31 || (num_trips && !trips) || !ops || !ops->get_temp)
		return ERR_PTR(-EINVAL);
	ctx = kzalloc(struct_size(ctx, trips, num_trips), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ctx->ops = ops;
	ctx->num_trips = num_trips;
	if (num_trips)
		memcpy(ctx->trips, trips, num_trips * sizeof(*trips));
	for (i = 0; i < num_trips; i++)
		if (trips[i].flags & THERMAL_TRIP_FLAG_RW_TEMP)
			mask |= BIT(i);
	ctx->kops.get_temp = retrofi_tz_get_temp;
	ctx->kops.get_trip_type = retrofi_tz_get_trip_type;
	ctx->kops.get_trip_temp = retrofi_tz_get_trip_temp;
	ctx->kops.get_trip_hyst = retrofi_tz_get_trip_hyst;
	if (ops->set_trips)
		ctx->kops.set_trips = retrofi_tz_set_trips;
	if (ops->change_mode)
		ctx->kops.change_mode = retrofi_tz_change_mode;
	if (ops->set_trip_temp)
		ctx->kops.set_trip_temp = retrofi_tz_set_trip_temp;
	if (ops->get_crit_temp)
		ctx->kops.get_crit_temp = retrofi_tz_get_crit_temp;
	if (ops->set_emul_temp)
		ctx->kops.set_emul_temp = retrofi_tz_set_emul_temp;
	/*
	 * Listed before the zone exists: the core may call the operations
	 * from its registration on, and they find the context by its ops.
	 */
	mutex_lock(&retrofi_tzs_lock);
	list_add(&ctx->node, &retrofi_tzs);
	mutex_unlock(&retrofi_tzs_lock);
	tz = thermal_zone_device_register(type, num_trips, mask, devdata, &ctx->kops,
					  (struct thermal_zone_params *)tzp,
					  passive_delay, polling_delay);
	mutex_lock(&retrofi_tzs_lock);
	if (IS_ERR(tz))
		list_del(&ctx->node);
	else
		ctx->tz = tz;
	mutex_unlock(&retrofi_tzs_lock);
	if (IS_ERR(tz))
		kfree(ctx);
	return tz;
}
EXPORT_SYMBOL_GPL(retrofi_thermal_zone_device_register_with_trips);

void retrofi_thermal_zone_device_unregister(struct thermal_zone_device *tz)
{
	struct retrofi_tz *ctx = tz ? retrofi_tz_of(tz) : NULL;

	retrofi_kernel_tz_unregister(tz);
	if (ctx) {
		mutex_lock(&retrofi_tzs_lock);
		list_del(&ctx->node);
		mutex_unlock(&retrofi_tzs_lock);
		kfree(ctx);
	}
}
EXPORT_SYMBOL_GPL(retrofi_thermal_zone_device_unregister);

int retrofi_for_each_thermal_trip(struct thermal_zone_device *tz,
				  int (*cb)(struct retrofi_thermal_trip *, void *),
				  void *data)
{
	struct retrofi_tz *ctx = retrofi_tz_of(tz);
	int i, ret;

	if (!ctx)
		return -EINVAL;
	for (i = 0; i < ctx->num_trips; i++) {
		ret = cb(&ctx->trips[i], data);
		if (ret)
			return ret;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(retrofi_for_each_thermal_trip);
#endif /* < 6.11 */
