/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/list.h>
 *
 * Wraps the target's own header and adds the list helpers the wireless stack
 * uses that older kernels lack.
 */
#ifndef _RETROFI_LINUX_LIST_H
#define _RETROFI_LINUX_LIST_H

#include_next <linux/list.h>
#include <linux/bug.h>		/* the seed's list_cut_position(); 5.10's list.h lacks it */
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * list_is_singular(), list_splice_tail(), list_splice_tail_init(),
 * list_cut_position() -- upstream in 2.6.27:
 *   "list.h: Add list_splice_tail() and list_splice_tail_init()"
 *   "list.h: add list_cut_position()"
 * (Luis R. Rodriguez, July 2008; moved out of ath9k's core.h). Additive:
 * honours API_LEVEL. The bodies are exactly the seed patches'.
 */
#if RETROFI_API_LESS(2, 6, 27)
#define list_is_singular LINUX_BACKPORT(list_is_singular)
/**
 * list_is_singular - tests whether a list has just one entry.
 * @head: the list to test.
 */
static inline int list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && (head->next == head->prev);
}

#define __list_cut_position LINUX_BACKPORT(__list_cut_position)
static inline void __list_cut_position(struct list_head *list,
		struct list_head *head, struct list_head *entry)
{
	struct list_head *new_first =
		(entry->next != head) ? entry->next : head;
	list->next = head->next;
	list->next->prev = list;
	list->prev = entry;
	entry->next = list;
	head->next = new_first;
	new_first->prev = head;
}

/*
 * The seed's list_cut_position() BUG()s where 6.12's returns without
 * cutting: on an empty @head, and on a singular @head when @entry is
 * neither @head nor its one entry. The body stays the seed's (docs/seeds.md);
 * at a forced API level the stack's only callers, ath9k's three in
 * xmit.c (6.12), never pass such arguments (a frame is the buffers
 * bf..bf->bf_lastbf, in a row on one list):
 *  - ath_drain_txq_list(): inside "while (!list_empty(list))", @entry is
 *    the first frame's last buffer; a singular @list holds one buffer,
 *    which is then that frame's first and last, so @entry is its entry.
 *  - ath_tx_processq(): @head is txq->axq_q, not empty (checked before),
 *    and the call is made only if !list_is_singular(&lastbf->list), i.e.
 *    axq_q holds more than lastbf; @entry, lastbf->list.prev, may be
 *    @head itself: a cut at the head, which moves nothing.
 *  - ath_tx_edma_tasklet(): @head is the tail FIFO, not empty (checked),
 *    and the call is made only when lastbf is not its last entry (and
 *    bf != lastbf), so it holds two entries or more.
 * Where the seed's would BUG(), 6.12's would leave the frame on the list,
 * and the first caller would meet it again forever: the driver relies on
 * these preconditions on every kernel. The selftest runs the singular and
 * cut-at-head cases and each of the three calls.
 */
#define list_cut_position LINUX_BACKPORT(list_cut_position)
/**
 * list_cut_position - cut a list into two
 * @list: a new list to add all removed entries
 * @head: a list with entries
 * @entry: an entry within head, could be the head itself
 *	and if so we won't cut the list
 */
static inline void list_cut_position(struct list_head *list,
		struct list_head *head, struct list_head *entry)
{
	BUG_ON(list_empty(head));
	if (list_is_singular(head))
		BUG_ON(head->next != entry && head != entry);
	if (entry == head)
		INIT_LIST_HEAD(list);
	else
		__list_cut_position(list, head, entry);
}

#define __list_splice_tail LINUX_BACKPORT(__list_splice_tail)
static inline void __list_splice_tail(const struct list_head *list,
				      struct list_head *head)
{
	struct list_head *first = list->next;
	struct list_head *last = list->prev;
	struct list_head *current_tail = head->prev;

	current_tail->next = first;
	last->next = head;
	head->prev = last;
	first->prev = current_tail;
}

#define list_splice_tail LINUX_BACKPORT(list_splice_tail)
/**
 * list_splice_tail - join two lists, each list being a queue
 * @list: the new list to add.
 * @head: the place to add it in the first list.
 */
static inline void list_splice_tail(const struct list_head *list,
				    struct list_head *head)
{
	if (!list_empty(list))
		__list_splice_tail(list, head);
}

#define list_splice_tail_init LINUX_BACKPORT(list_splice_tail_init)
/**
 * list_splice_tail_init - join two lists, each list being a queue, and
 *	reinitialise the emptied list.
 * @list: the new list to add.
 * @head: the place to add it in the first list.
 *
 * The list at @list is reinitialised
 */
static inline void list_splice_tail_init(struct list_head *list,
					 struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice_tail(list, head);
		INIT_LIST_HEAD(list);
	}
}
RETROFI_CENSUS(list_is_singular, "2.6.27", "additive",
	       "list_is_singular() with the seed's 2.6.27 list helpers (title not verified)");
RETROFI_CENSUS(list_cut_position, "2.6.27", "additive",
	       "list.h: add list_cut_position() (v2.6.27)");
RETROFI_CENSUS(list_splice_tail, "2.6.27", "additive",
	       "list.h: Add list_splice_tail() and list_splice_tail_init() (v2.6.27)");
RETROFI_CENSUS(list_splice_tail_init, "2.6.27", "additive",
	       "list.h: Add list_splice_tail() and list_splice_tail_init() (v2.6.27)");
#endif /* < 2.6.27 */

/*
 * list_count_nodes() -- "i915: Move list_count() to list.h as
 * list_count_nodes() for broader use" (v6.3, through the USB tree).
 * Stable kernels carry it (6.1.191 took it; Debian 6.1.192 has it): probed.
 */
#if RETROFI_API_NEED(6, 3, 0, RETROFI_HAVE_list_count_nodes)
#define list_count_nodes LINUX_BACKPORT(list_count_nodes)
/**
 * list_count_nodes - count nodes in the list
 * @head:	the head for your list.
 */
static inline size_t list_count_nodes(struct list_head *head)
{
	struct list_head *pos;
	size_t count = 0;

	list_for_each(pos, head)
		count++;

	return count;
}
RETROFI_CENSUS(list_count_nodes, "6.3", "probed",
	       "i915: Move list_count() to list.h as list_count_nodes() for broader use (v6.3)");
#endif /* < 6.3 */

/*
 * list_first_entry() -- 2.6.22: mcgrof/compat and hauke/backports carry it
 * in compat-2.6.22.h (guard < 2.6.22); the upstream commit title is not
 * verified here. The first entry of a list that must not be empty.
 * Additive; a macro, so it is replaced (redirected to a backport_ macro
 * that the selftest can name) with 6.12's body.
 */
#if RETROFI_API_LESS(2, 6, 22)
#undef list_first_entry
#define list_first_entry LINUX_BACKPORT(list_first_entry)
#define backport_list_first_entry(ptr, type, member) \
	list_entry((ptr)->next, type, member)
RETROFI_CENSUS(list_first_entry, "2.6.22", "additive",
	       "compat-2.6.22.h of hauke/backports (title not verified)");
#endif /* < 2.6.22 */

/*
 * list_first_entry_or_null() -- "list: introduce list_first_entry_or_null"
 * (Jiri Pirko, May 2013, v3.10; cited by hauke/backports' commit that
 * backported it): the first entry, or NULL for an empty list. 6.12's body
 * reads head->next once. Additive.
 */
#if RETROFI_API_LESS(3, 10, 0)
#undef list_first_entry_or_null
#define list_first_entry_or_null LINUX_BACKPORT(list_first_entry_or_null)
#define backport_list_first_entry_or_null(ptr, type, member) ({	\
	struct list_head *head__ = (ptr);				\
	struct list_head *pos__ = READ_ONCE(head__->next);		\
	pos__ != head__ ? list_entry(pos__, type, member) : NULL;	\
})
RETROFI_CENSUS(list_first_entry_or_null, "3.10", "additive",
	       "list: introduce list_first_entry_or_null (v3.10)");
#endif /* < 3.10 */

/*
 * list_last_entry() -- "list: introduce list_last_entry(), use
 * list_{first,last}_entry()" (Oleg Nesterov, November 2013, v3.13), and
 * list_next_entry() from the same series ("list: introduce
 * list_next_entry() and list_prev_entry()", commit 008208c6b26f, v3.13;
 * quoted by NVIDIA's open-gpu-kernel-modules nv-list-helpers.h).
 * Additive; 6.12's bodies.
 */
#if RETROFI_API_LESS(3, 13, 0)
#undef list_last_entry
#define list_last_entry LINUX_BACKPORT(list_last_entry)
#define backport_list_last_entry(ptr, type, member) \
	list_entry((ptr)->prev, type, member)
RETROFI_CENSUS(list_last_entry, "3.13", "additive",
	       "list: introduce list_last_entry(), use list_{first,last}_entry() (v3.13)");

#undef list_next_entry
#define list_next_entry LINUX_BACKPORT(list_next_entry)
#define backport_list_next_entry(pos, member) \
	list_entry((pos)->member.next, typeof(*(pos)), member)
RETROFI_CENSUS(list_next_entry, "3.13", "additive",
	       "list: introduce list_next_entry() and list_prev_entry() (v3.13)");
#endif /* < 3.13 */

#endif /* _RETROFI_LINUX_LIST_H */
