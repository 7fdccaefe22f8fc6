/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/leds.h>
 */
#ifndef _RETROFI_LINUX_LEDS_H
#define _RETROFI_LINUX_LEDS_H

#include_next <linux/leds.h>
#include <retrofi/backport.h>

/*
 * led_trigger_blink(), led_trigger_blink_oneshot() -- "leds: Change
 * led_trigger_blink[_oneshot]() delay parameters to pass-by-value" (v6.5).
 * Before, the delays were passed by pointer (and the chosen defaults written
 * back, which no caller in the stack reads). Structural: a changed
 * signature. The wrappers pass the address of their own copies.
 */
#if RETROFI_LINUX_LESS(6, 5, 0)
static inline void LINUX_BACKPORT(led_trigger_blink)(struct led_trigger *trigger,
						     unsigned long delay_on,
						     unsigned long delay_off)
{
	led_trigger_blink(trigger, &delay_on, &delay_off);
}
#define led_trigger_blink LINUX_BACKPORT(led_trigger_blink)

static inline void
LINUX_BACKPORT(led_trigger_blink_oneshot)(struct led_trigger *trigger,
					  unsigned long delay_on,
					  unsigned long delay_off, int invert)
{
	led_trigger_blink_oneshot(trigger, &delay_on, &delay_off, invert);
}
#define led_trigger_blink_oneshot LINUX_BACKPORT(led_trigger_blink_oneshot)
RETROFI_CENSUS(led_trigger_blink, "6.5", "structural",
	       "leds: Change led_trigger_blink[_oneshot]() delay parameters to pass-by-value (v6.5)");
RETROFI_CENSUS(led_trigger_blink_oneshot, "6.5", "structural",
	       "leds: Change led_trigger_blink[_oneshot]() delay parameters to pass-by-value (v6.5)");
#endif /* < 6.5 */

#endif /* _RETROFI_LINUX_LEDS_H */
