/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/tracepoint.h>
 *
 * Like the kernel's own, this header is read again on every pass of
 * <trace/define_trace.h> over a trace header (each trace header includes it
 * inside its TRACE_HEADER_MULTI_READ section), so what follows the
 * include_next has no include guard.
 */
#include_next <linux/tracepoint.h>
#include <retrofi/backport.h>

/*
 * __assign_str(dst) -- "tracing/treewide: Remove second parameter of
 * __assign_str()" (v6.10): the source string is now given once, to
 * __string(item, src), and __assign_str() copies it. Before 6.10 the
 * event callback's __assign_str(dst, src) names the source again.
 *
 * Structural (the tracing stages' macros), and no header can reach into a
 * TRACE_EVENT() to pair each __assign_str(dst) with its __string(): so in
 * the passes that fill in an event (the event callback of
 * <trace/trace_events.h> and <trace/perf.h>, the only ones in which
 * __assign_str is defined and TP_STRUCT__entry expands to code), __string()
 * copies its source as soon as it has set the string's location, and
 * __assign_str(dst) has nothing left to do. The kernel leaves __assign_str
 * defined after a trace header's passes; our <trace/trace_events.h>
 * forgets it before the next header's, so that several trace headers can
 * be created in one file (mac80211's trace.c creates two). The source is the same
 * expression the length was taken from in the get_offsets pass, as in 6.10.
 * Like the kernel's own stage macros, __string() here is a list of
 * statements that TP_STRUCT__entry pastes into the callback's body (which
 * checkpatch flags), and strcpy() is safe for the same reason as upstream's:
 * the room was sized with strlen() of the same source.
 */
#if RETROFI_LINUX_LESS(6, 10, 0)
#if defined(TRACE_HEADER_MULTI_READ) && defined(__assign_str)
#undef __string
#define __string(item, src) __dynamic_array(char, item, -1)		\
	strcpy(__get_str(item), (src) ? (const char *)(src) : "(null)");
#undef __assign_str
#define __assign_str(dst) do { } while (0)
RETROFI_CENSUS(__assign_str, "6.10", "structural",
	       "tracing/treewide: Remove second parameter of __assign_str() (v6.10)");
#endif
#endif /* < 6.10 */

/*
 * __vstring(), __assign_vstr() -- "tracing: Add __vstring() and
 * __assign_vstr() helper macros" (v6.0): a string field filled in from a
 * format and a va_list (ath's and mac80211's message tracepoints), up to
 * TRACE_EVENT_STR_MAX bytes with its NUL.
 *
 * Structural (the tracing stages' macros). Before 6.0 no stage of
 * <trace/trace_events.h> or <trace/perf.h> defines or undefines __vstring,
 * and only the get_offsets stage reads a dynamic array's length (the others
 * take -1, as upstream's stages do), so one definition with the length
 * serves every pass. __assign_vstr() appears only in TP_fast_assign(),
 * which the event callback and perf passes expand, where __get_str() is
 * the entry's string; its body is 6.0's. __trace_event_vstr_len() and
 * TRACE_EVENT_STR_MAX are 6.0's <linux/trace_events.h>.
 */
#if RETROFI_LINUX_LESS(6, 0, 0)
#ifndef TRACE_EVENT_STR_MAX
#define TRACE_EVENT_STR_MAX	512
#endif
#ifndef __trace_event_vstr_len
#define __trace_event_vstr_len(fmt, va)			\
({							\
	va_list __ap;					\
	int __ret;					\
							\
	va_copy(__ap, *(va));				\
	__ret = vsnprintf(NULL, 0, fmt, __ap) + 1;	\
	va_end(__ap);					\
							\
	min(__ret, TRACE_EVENT_STR_MAX);		\
})
#endif
#undef __vstring
#define __vstring(item, fmt, ap) __dynamic_array(char, item,		\
		__trace_event_vstr_len(fmt, ap))
#undef __assign_vstr
#define __assign_vstr(dst, fmt, va)					\
	do {								\
		va_list __cp_va;					\
		va_copy(__cp_va, *(va));				\
		vsnprintf(__get_str(dst), TRACE_EVENT_STR_MAX, fmt, __cp_va); \
		va_end(__cp_va);					\
	} while (0)
RETROFI_CENSUS(__vstring, "6.0", "structural",
	       "tracing: Add __vstring() and __assign_vstr() helper macros (v6.0)");
#endif /* < 6.0 */
