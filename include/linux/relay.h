/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/relay.h>
 */
#ifndef _RETROFI_LINUX_RELAY_H
#define _RETROFI_LINUX_RELAY_H

#include_next <linux/relay.h>
#include <linux/mutex.h>
#include <retrofi/backport.h>

/*
 * relay_open(..., const struct rchan_callbacks *cb, ...) -- "relay: allow
 * the use of const callback structs" (v5.11): relay calls only the
 * callbacks that are set. Before, relay_open() takes a writable struct
 * and fills the callbacks left NULL with its defaults, so the const one
 * the stack passes (ath9k's spectral scan) would be written in read-only
 * memory. Structural (a changed signature): before 5.11 each call site
 * hands relay a writable copy of its callbacks, made once (relay keeps
 * the pointer for the channel's life; every channel of a call site shares
 * one struct, as the stack's static one was shared before the const
 * change) under a mutex, so that a second relay_open() never rewrites
 * what an open channel reads.
 */
#if RETROFI_LINUX_LESS(5, 11, 0)
#define relay_open(base, parent, size, n, cb, priv) ({			\
	static struct rchan_callbacks __retrofi_relay_cb;		\
	static DEFINE_MUTEX(__retrofi_relay_mtx);			\
	static bool __retrofi_relay_copied;				\
	struct rchan *__retrofi_chan;					\
									\
	mutex_lock(&__retrofi_relay_mtx);				\
	if (!__retrofi_relay_copied) {					\
		__retrofi_relay_cb = *(cb);				\
		__retrofi_relay_copied = true;				\
	}								\
	__retrofi_chan = (relay_open)(base, parent, size, n,		\
				      &__retrofi_relay_cb, priv);	\
	mutex_unlock(&__retrofi_relay_mtx);				\
	__retrofi_chan;							\
})
RETROFI_CENSUS(relay_open, "5.11", "structural",
	       "relay: allow the use of const callback structs (v5.11)");
#endif /* < 5.11 */

#endif /* _RETROFI_LINUX_RELAY_H */
