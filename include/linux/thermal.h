/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/thermal.h>
 */
#ifndef _RETROFI_LINUX_THERMAL_H
#define _RETROFI_LINUX_THERMAL_H

#include_next <linux/thermal.h>
#include <retrofi/backport.h>

/*
 * thermal_zone_device_priv() -- "thermal/core: Add a thermal zone 'devdata'
 * accessor" (v6.4): the devdata a zone was registered with (iwlwifi's and
 * mt7915's zone callbacks). struct thermal_zone_device is public before
 * 6.6, so the shim reads its devdata. Structural (the core's struct).
 */
#if RETROFI_LINUX_LESS(6, 4, 0)
static inline void *thermal_zone_device_priv(struct thermal_zone_device *tzd)
{
	return tzd->devdata;
}
RETROFI_CENSUS(thermal_zone_device_priv, "6.4", "structural",
	       "thermal/core: Add a thermal zone 'devdata' accessor (v6.4)");
#endif /* < 6.4 */

/*
 * The thermal zone API of trip tables, as 6.11 has it -- "thermal: trip:
 * Pass trip pointer to .set_trip_temp() thermal zone callback" (v6.11),
 * with "thermal: core: Add flags to struct thermal_trip" and "thermal:
 * core: Eliminate writable trip points masks" (v6.9), "thermal: core:
 * Rework and rename __for_each_thermal_trip()" (v6.6) and the copy of the
 * caller's table that the core keeps since 6.8: struct thermal_trip with
 * flags (THERMAL_TRIP_FLAG_RW_TEMP), thermal_zone_device_ops whose
 * .set_trip_temp takes the trip, the 8-argument
 * thermal_zone_device_register_with_trips(), for_each_thermal_trip()
 * (iwlwifi's mvm and mld thermal zones).
 *
 * Before 6.11 the two structures are the kernel's older ones, so here
 * they are retrofi's own (struct retrofi_thermal_trip,
 * struct retrofi_thermal_zone_device_ops, 6.11's members that a driver
 * sets; the names are macros after the kernel's header, whose own
 * declarations keep its types). compat.ko registers the zone with the
 * kernel's trip-count API (thermal_zone_device_register(), 5.10's and
 * 6.1's alike): a copy of the caller's table (mld's lives on its stack),
 * kernel operations that read trip types, temperatures and hysteresis
 * from that copy and forward the rest, the writable mask made of the
 * RW_TEMP flags, and a .set_trip_temp that, as 7.3's sysfs store does,
 * takes the zone's lock, leaves an equal temperature alone, calls the
 * driver's with the trip and stores the temperature when it succeeds.
 * thermal_zone_device_unregister() frees that context. Structural.
 */
#if RETROFI_LINUX_LESS(6, 11, 0)
/* The kernel's own operations and unregistration, for compat.ko's zones. */
typedef struct thermal_zone_device_ops retrofi_kernel_tz_ops;

static inline void retrofi_kernel_tz_unregister(struct thermal_zone_device *tz)
{
	thermal_zone_device_unregister(tz);
}

struct retrofi_thermal_trip {
	int temperature;
	int hysteresis;
	enum thermal_trip_type type;
	u8 flags;
	void *priv;
};

#undef THERMAL_TRIP_FLAG_RW_TEMP
#undef THERMAL_TRIP_FLAG_RW_HYST
#undef THERMAL_TRIP_FLAG_RW
#define THERMAL_TRIP_FLAG_RW_TEMP	BIT(0)
#define THERMAL_TRIP_FLAG_RW_HYST	BIT(1)
#define THERMAL_TRIP_FLAG_RW	(THERMAL_TRIP_FLAG_RW_TEMP | THERMAL_TRIP_FLAG_RW_HYST)

struct retrofi_thermal_zone_device_ops {
	int (*get_temp)(struct thermal_zone_device *, int *);
	int (*set_trips)(struct thermal_zone_device *, int, int);
	int (*change_mode)(struct thermal_zone_device *, enum thermal_device_mode);
	int (*set_trip_temp)(struct thermal_zone_device *,
			     const struct retrofi_thermal_trip *, int);
	int (*get_crit_temp)(struct thermal_zone_device *, int *);
	int (*set_emul_temp)(struct thermal_zone_device *, int);
};

#define thermal_trip retrofi_thermal_trip
#define thermal_zone_device_ops retrofi_thermal_zone_device_ops

struct thermal_zone_device *
retrofi_thermal_zone_device_register_with_trips(const char *type,
						const struct retrofi_thermal_trip *trips,
						int num_trips, void *devdata,
						const struct retrofi_thermal_zone_device_ops *ops,
						const struct thermal_zone_params *tzp,
						unsigned int passive_delay,
						unsigned int polling_delay);
void retrofi_thermal_zone_device_unregister(struct thermal_zone_device *tz);
int retrofi_for_each_thermal_trip(struct thermal_zone_device *tz,
				  int (*cb)(struct retrofi_thermal_trip *, void *),
				  void *data);
#define thermal_zone_device_register_with_trips retrofi_thermal_zone_device_register_with_trips
#define thermal_zone_device_unregister retrofi_thermal_zone_device_unregister
#define for_each_thermal_trip retrofi_for_each_thermal_trip
/*
 * devm_thermal_of_zone_register() of 6.11's operations: without
 * CONFIG_THERMAL_OF (every Debian amd64 kernel) the kernel's own stub's
 * answer, -ENOTSUPP (mt7915's zone, which it then does without). A
 * kernel with device-tree thermal zones would need the operations
 * converted as above; it is not carried, and the build fails there.
 */
#if !IS_ENABLED(CONFIG_THERMAL_OF)
static inline struct thermal_zone_device *
retrofi_devm_thermal_of_zone_register(struct device *dev, int id, void *data,
				      const struct retrofi_thermal_zone_device_ops *ops)
{
	return ERR_PTR(-ENOTSUPP);
}
#define devm_thermal_of_zone_register retrofi_devm_thermal_of_zone_register
#endif
RETROFI_CENSUS(thermal_trip_table, "6.11", "structural",
	       "thermal: trip: Pass trip pointer to .set_trip_temp() thermal zone callback (v6.11)");
#endif /* < 6.11 */

#endif /* _RETROFI_LINUX_THERMAL_H */
