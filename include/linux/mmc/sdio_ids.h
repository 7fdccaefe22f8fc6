/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/mmc/sdio_ids.h>
 */
#ifndef _RETROFI_LINUX_MMC_SDIO_IDS_H
#define _RETROFI_LINUX_MMC_SDIO_IDS_H

#include_next <linux/mmc/sdio_ids.h>
#include <retrofi/backport.h>

/*
 * SDIO_VENDOR_ID_REALTEK and the IDs of rtw88's SDIO chips -- "mmc: sdio:
 * add Realtek SDIO vendor ID and various wifi device IDs" (v6.4), with
 * "mmc: sdio: Add/rename SDIO ID of the RTL8723DS SDIO wifi cards" (v6.5)
 * for the two RTL8723DS IDs, and the RTL8723CS ID of rtw8723cs, which came
 * later with rtw88's RTL8703B support (title and release not verified: no
 * 6.1 ABI the archive serves has it, up to 6.1.192, and every 6.12 ABI
 * has, from 6.12.107; the record is that bound, and the guard its high
 * end). The
 * chip modules' ID tables (rtw8822bs, rtw8822cs, rtw8821cs, rtw8723ds,
 * rtw8723cs) name them. Probed, by the preprocessor: constant macros, so
 * the target has them when the newest of them is defined, and at a forced
 * API level they are defined again with upstream's values.
 */
#if defined(SDIO_VENDOR_ID_REALTEK) && defined(SDIO_DEVICE_ID_REALTEK_RTW8723DS_1ANT) && \
	defined(SDIO_DEVICE_ID_REALTEK_RTW8723CS)
#define RETROFI_HAVE_SDIO_VENDOR_ID_REALTEK 1
#else
#define RETROFI_HAVE_SDIO_VENDOR_ID_REALTEK 0
#endif
#if RETROFI_API_NEED(6, 12, 107, RETROFI_HAVE_SDIO_VENDOR_ID_REALTEK)
#undef SDIO_VENDOR_ID_REALTEK
#undef SDIO_DEVICE_ID_REALTEK_RTW8723BS
#undef SDIO_DEVICE_ID_REALTEK_RTW8821BS
#undef SDIO_DEVICE_ID_REALTEK_RTW8822BS
#undef SDIO_DEVICE_ID_REALTEK_RTW8821CS
#undef SDIO_DEVICE_ID_REALTEK_RTW8822CS
#undef SDIO_DEVICE_ID_REALTEK_RTW8723DS_2ANT
#undef SDIO_DEVICE_ID_REALTEK_RTW8723DS_1ANT
#undef SDIO_DEVICE_ID_REALTEK_RTW8821DS
#undef SDIO_DEVICE_ID_REALTEK_RTW8723CS
#define SDIO_VENDOR_ID_REALTEK			0x024c
#define SDIO_DEVICE_ID_REALTEK_RTW8723BS	0xb723
#define SDIO_DEVICE_ID_REALTEK_RTW8821BS	0xb821
#define SDIO_DEVICE_ID_REALTEK_RTW8822BS	0xb822
#define SDIO_DEVICE_ID_REALTEK_RTW8821CS	0xc821
#define SDIO_DEVICE_ID_REALTEK_RTW8822CS	0xc822
#define SDIO_DEVICE_ID_REALTEK_RTW8723DS_2ANT	0xd723
#define SDIO_DEVICE_ID_REALTEK_RTW8723DS_1ANT	0xd724
#define SDIO_DEVICE_ID_REALTEK_RTW8821DS	0xd821
#define SDIO_DEVICE_ID_REALTEK_RTW8723CS	0xb703
RETROFI_CENSUS(SDIO_VENDOR_ID_REALTEK, "6.1.192..6.12.107", "probed",
	       "mmc: sdio: add Realtek SDIO vendor ID and various wifi device IDs (v6.4), "
	       "with the RTL8723DS (v6.5) and RTL8723CS (not verified) IDs");
#endif /* < 6.12.107 */

#endif /* _RETROFI_LINUX_MMC_SDIO_IDS_H */
