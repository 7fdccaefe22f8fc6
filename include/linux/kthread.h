/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/kthread.h>
 */
#ifndef _RETROFI_LINUX_KTHREAD_H
#define _RETROFI_LINUX_KTHREAD_H

#include_next <linux/kthread.h>
#include <retrofi/backport.h>

/*
 * kthread_exit() exported -- "exit: Implement kthread_exit" (v5.17)
 * gave kernel threads their own exit, and its export followed (title and
 * version not verified: no 6.1 ABI the archive serves exports it, up to
 * 6.1.192, and every 6.12 ABI does; 5.10.0-46 declares it from stable and
 * exports neither). KUnit's try-catch (lib/kunit/try-catch.c) ends a
 * case's thread with it when an assertion fails. Before, a module ends its
 * thread with what the kernel exports: 6.1's kthread_complete_and_exit()
 * ("kthread: Rename complete_and_exit to kthread_complete_and_exit",
 * v5.17) with no completion, which is kthread_exit(); below 5.17, do_exit(),
 * which kthread_exit() wraps. Structural (an export, which no header
 * shows).
 */
#if RETROFI_LINUX_LESS(6, 12, 0)
static inline void __noreturn LINUX_BACKPORT(kthread_exit)(long result)
{
#if RETROFI_LINUX_LESS(5, 17, 0)
	do_exit(result);
#else
	kthread_complete_and_exit(NULL, result);
#endif /* < 5.17 */
}
#define kthread_exit LINUX_BACKPORT(kthread_exit)
RETROFI_CENSUS(kthread_exit, "6.1.192..6.12", "structural",
	       "the export of kthread_exit() (title and version not verified)");
#endif /* < 6.12 */

#endif /* _RETROFI_LINUX_KTHREAD_H */
