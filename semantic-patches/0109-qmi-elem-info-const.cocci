// retrofi rule 0109-qmi-elem-info-const
// must-match: no
//   (only ath11k's and ath12k's QMI clients define element tables; a
//   source without them has nothing to match)
// upstream: "soc: qcom: qmi: use const for struct qmi_elem_info" (v6.2;
//   title not verified: every 5.10 the archive serves takes the tables
//   without const, every 6.1 with it, from stable), after which the
//   drivers declared their tables const.
// targets: kernels whose QMI helpers take struct qmi_elem_info without
//   const (5.10); decided in <linux/soc/qcom/qmi.h> by the compile probe
//   qmi_elem_info_const (compat/probes.list)
// why: a header cannot change the qualifier of the target's own
//   prototypes and struct members, and every table passed to them would
//   discard const (a warning per use). The tables' type becomes
//   RETROFI_QMI_ELEM_INFO, const struct qmi_elem_info where the helpers
//   take const and struct qmi_elem_info where they do not. The helpers
//   only read the tables on every target.

@@
identifier t;
typedef RETROFI_QMI_ELEM_INFO;
@@
- const struct qmi_elem_info
+ RETROFI_QMI_ELEM_INFO
  t[] = ...;
