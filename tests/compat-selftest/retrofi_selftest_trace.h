/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events written the 6.10+ way (__assign_str() with one argument)
 * and the 6.0+ way (__vstring() and __assign_vstr(), a string from a format
 * and a va_list, as ath's and mac80211's message tracepoints), built by the
 * selftest so that <linux/tracepoint.h>'s shims are compiled in every pass
 * of the tracing stages, and fired at run time.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM retrofi_selftest

#if !defined(_RETROFI_SELFTEST_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RETROFI_SELFTEST_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(retrofi_selftest_str,
	TP_PROTO(const char *name, int v),
	TP_ARGS(name, v),
	TP_STRUCT__entry(
		__string(name, name)
		__field(int, v)
	),
	TP_fast_assign(
		__assign_str(name);
		__entry->v = v;
	),
	TP_printk("name=%s v=%d", __get_str(name), __entry->v)
);

TRACE_EVENT(retrofi_selftest_vstr,
	TP_PROTO(struct va_format *vaf),
	TP_ARGS(vaf),
	TP_STRUCT__entry(
		__vstring(msg, vaf->fmt, vaf->va)
	),
	TP_fast_assign(
		__assign_vstr(msg, vaf->fmt, vaf->va);
	),
	TP_printk("%s", __get_str(msg))
);

#endif /* _RETROFI_SELFTEST_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE retrofi_selftest_trace
#include <trace/define_trace.h>
