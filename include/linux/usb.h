/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/usb.h>
 */
#ifndef _RETROFI_LINUX_USB_H
#define _RETROFI_LINUX_USB_H

#include_next <linux/usb.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * usb_maxpacket(udev, pipe) -- "usb: deprecate the third argument of
 * usb_maxpacket()" (v5.19; title not verified), which made the direction
 * argument optional and read the direction from the pipe; v6.0 then
 * removed it. mt76's USB glue calls it with two arguments. Stable 5.10.y
 * carries the 5.19 form (5.10.0-46 has it); 5.10.0-30's takes three.
 * Upstream's body: the maximum packet size of the pipe's endpoint, 0 where
 * the device has no such endpoint. A third argument, as older callers
 * pass it, is ignored, as upstream's is. Structural and probed; with
 * probes forced off, the shim replaces the target's own.
 */
#if RETROFI_LINUX_LESS(5, 19, 0) && RETROFI_PROBED_ON(RETROFI_HAVE_usb_maxpacket_of_the_pipe)
static inline u16 LINUX_BACKPORT(usb_maxpacket)(struct usb_device *udev, int pipe)
{
	struct usb_host_endpoint *ep = usb_pipe_endpoint(udev, pipe);

	return ep ? usb_endpoint_maxp(&ep->desc) : 0;
}
#define usb_maxpacket(udev, pipe, ...) LINUX_BACKPORT(usb_maxpacket)(udev, pipe)
RETROFI_CENSUS(usb_maxpacket, "5.19", "structural",
	       "usb: deprecate the third argument of usb_maxpacket() (v5.19; title not verified)");
#endif /* < 5.19 */

#endif /* _RETROFI_LINUX_USB_H */
