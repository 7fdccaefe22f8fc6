/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A second trace header created in the same file as retrofi_selftest_trace.h
 * (as mac80211's trace.c creates trace.h and trace_msg.h), written the 6.10+
 * way: an event class with two strings, so that <trace/trace_events.h>'s
 * shim (several trace headers in one file) is compiled in and its event
 * checked at run time.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM retrofi_selftest_class

#if !defined(_RETROFI_SELFTEST_TRACE_CLASS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RETROFI_SELFTEST_TRACE_CLASS_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(retrofi_selftest_pair,
	TP_PROTO(const char *dev, int n, const char *what),
	TP_ARGS(dev, n, what),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(int, n)
		__string(what, what)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->n = n;
		__assign_str(what);
	),
	TP_printk("%s %d %s", __get_str(dev), __entry->n, __get_str(what))
);

DEFINE_EVENT(retrofi_selftest_pair, retrofi_selftest_pair_seen,
	TP_PROTO(const char *dev, int n, const char *what),
	TP_ARGS(dev, n, what)
);

#endif /* _RETROFI_SELFTEST_TRACE_CLASS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE retrofi_selftest_trace_class
#include <trace/define_trace.h>
