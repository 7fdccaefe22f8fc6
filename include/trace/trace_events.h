/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <trace/trace_events.h>
 *
 * <trace/define_trace.h> includes this once for every trace header created
 * with CREATE_TRACE_POINTS, to run the tracing stages over it. Like the
 * kernel's own, it is read once per trace header: no include guard.
 */
#include <retrofi/backport.h>

/*
 * For the one-argument __assign_str() of <linux/tracepoint.h> (before
 * 6.10, "tracing/treewide: Remove second parameter of __assign_str()"):
 * that shim takes a defined __assign_str for "this pass fills in an event" (the
 * event callback and perf passes, which define it). The kernel leaves the
 * last definition in place when a trace header's passes are done, so a
 * second trace header created in the same file would run its first passes
 * (the event structure, the data offsets) with the shim's __string() --
 * code where a field belongs. Forgetting it here, before the stages of
 * each trace header, starts every header's passes as the first one's.
 * Structural, like the shim it serves.
 */
#if RETROFI_LINUX_LESS(6, 10, 0)
#undef __assign_str
RETROFI_CENSUS(__assign_str, "6.10", "structural",
	       "tracing/treewide: Remove second parameter of __assign_str() (v6.10)");
#endif /* < 6.10 */

#include_next <trace/trace_events.h>
