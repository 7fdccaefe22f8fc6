// Test input for 0002-crosststamp-systime: a PHC's getcrosststamp as in
// 7.3's drivers/net/wireless/intel/iwlwifi/mvm/ptp.c and mld/ptp.c.
#include <linux/module.h>
#include <linux/errno.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

int get_crosststamp(struct system_device_crosststamp *xtstamp, s64 gp2_ns,
		    ktime_t sys_time);

int get_crosststamp(struct system_device_crosststamp *xtstamp, s64 gp2_ns,
		    ktime_t sys_time)
{
	
#if RETROFI_LINUX_IS_GEQ(7,2,0)
	if (xtstamp->clock_id != CLOCK_REALTIME) return -ENOTSUPP;
	
#endif
	

	xtstamp->device = ns_to_ktime(gp2_ns);
	
#if RETROFI_LINUX_IS_GEQ(7,2,0)
	xtstamp->sys_systime = sys_time;
#else
	xtstamp->sys_realtime = sys_time;
#endif
	
	return 0;
}

MODULE_LICENSE("GPL");
