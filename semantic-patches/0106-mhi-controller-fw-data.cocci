// retrofi rule 0106-mhi-controller-fw-data
// must-match: no
//   (only ath11k's and ath12k's PCI glue hand MHI a firmware image from
//   memory; a source without them has nothing to match)
// upstream: "bus: mhi: host: allow MHI client drivers to provide the
//   firmware via a pointer" (v6.6; title not verified: every 6.1 the
//   archive serves lacks the members, every 6.12 has them) added
//   fw_data and fw_sz to struct mhi_controller: the AMSS image that
//   ath11k and ath12k find inside firmware-N.bin, which the MHI core then
//   loads from memory instead of requesting fw_image.
// targets: kernels whose struct mhi_controller has no fw_data (6.1,
//   5.10); decided by the compile probe mhi_controller_fw_data
//   (compat/probes.list), so a stable kernel that takes the change keeps
//   the upstream form
// why: a header cannot add a member to the target's struct
//   mhi_controller, and the target's MHI core loads its firmware only by
//   name (request_firmware() of fw_image). Where the members are missing
//   the branch that sets them is never taken: its condition gets
//   RETROFI_HAVE_mhi_controller_fw_data in front and its assignments go
//   under #if, so the driver takes its other branch, the separate
//   amss.bin by name, as the drivers did before 6.6. Every Debian
//   firmware package ships amss.bin for the chips these drivers support;
//   a firmware-N.bin that carries the only copy of the image (ath12k's
//   dual-MAC one) cannot be used there, and the driver says so with its
//   own warning.
// RETROFI_HAVE_mhi_controller_fw_data comes from <retrofi/probes.h>,
// force-included through include/retrofi/version.h.

// The branch's condition keeps its own parentheses (an || in it stays
// under the probe). Both drivers' branches have an else: the file named
// fw_image, or the dual-MAC image's warning.
@@
expression E, C, D, S;
statement S2;
@@
 if (
-    E
+    RETROFI_HAVE_mhi_controller_fw_data && (E)
     ) {
 	...
-	C->fw_data = D;
-	C->fw_sz = S;
+#if RETROFI_HAVE_mhi_controller_fw_data
+	C->fw_data = D;
+	C->fw_sz = S;
+#endif
 	...
 } else S2
