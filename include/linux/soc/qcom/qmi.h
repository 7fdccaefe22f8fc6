/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat: <linux/soc/qcom/qmi.h>
 */
#ifndef _RETROFI_LINUX_SOC_QCOM_QMI_H
#define _RETROFI_LINUX_SOC_QCOM_QMI_H

#include_next <linux/soc/qcom/qmi.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

/*
 * QMI_SERVICE_ID_WLFW -- the QMI service IDs that moved into the QMI
 * helpers' header (title and version not verified: no 6.12 ABI the
 * archive serves has them, up to 6.12.118, every 7.2 one has, from
 * 7.2.6: the record is that bound): the WLAN firmware service that
 * ath11k and ath12k look up, their own ATH1xK_QMI_WLFW_SERVICE_ID
 * before. Probed, by the preprocessor: a constant macro, so the target
 * has it when it is defined, and at a forced API level it is defined
 * again with upstream's value.
 */
#ifdef QMI_SERVICE_ID_WLFW
#define RETROFI_HAVE_QMI_SERVICE_ID_WLFW 1
#else
#define RETROFI_HAVE_QMI_SERVICE_ID_WLFW 0
#endif
#if RETROFI_API_NEED(7, 2, 6, RETROFI_HAVE_QMI_SERVICE_ID_WLFW)
#undef QMI_SERVICE_ID_WLFW
#define QMI_SERVICE_ID_WLFW 0x45
RETROFI_CENSUS(QMI_SERVICE_ID_WLFW, "6.12.118..7.2.6", "probed",
	       "the QMI service IDs of the QMI helpers (title and version not verified)");
#endif /* < 7.2.6 */

/*
 * RETROFI_QMI_ELEM_INFO -- the type rule 0109-qmi-elem-info-const gives a
 * driver's QMI element tables, written const struct qmi_elem_info
 * upstream: "soc: qcom: qmi: use const for struct qmi_elem_info" (v6.2;
 * title not verified: every 5.10 the archive serves takes the tables
 * without const, every 6.1 with it, from stable). A helpers' API that
 * takes them without const would have every table and every call discard
 * the qualifier (some 40 warnings in ath11k and ath12k), so there the
 * tables are not const; the QMI helpers only read them either way.
 * Probed.
 */
#if RETROFI_HAVE_qmi_elem_info_const
#define RETROFI_QMI_ELEM_INFO const struct qmi_elem_info
#else
#define RETROFI_QMI_ELEM_INFO struct qmi_elem_info
#endif

#endif /* _RETROFI_LINUX_SOC_QCOM_QMI_H */
