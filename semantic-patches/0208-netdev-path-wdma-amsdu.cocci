// retrofi rule 0208-netdev-path-wdma-amsdu
// must-match: no
//   (only mt76's mt7996, a vendor driver, sets it; a source without the
//   vendor drivers has nothing to match)
// upstream: the change that gave struct net_device_path's mtk_wdma entry
//   an amsdu member (the flag that lets the MediaTek PPE offload a flow
//   to WED with hardware A-MSDU); mt7996's .net_fill_forward_path sets it.
//   Not in any 6.1 ABI the archive serves, in every 6.12 one (the headers
//   checked); the commit's title and version are not verified here.
// targets: kernels whose struct net_device_path has no mtk_wdma.amsdu
//   (real target 6.1; 5.10's net_device_path is retrofi's declaration
//   only); decided by the compile probe net_device_path_mtk_wdma_amsdu
//   (compat/probes.list), so a stable kernel that takes the member keeps
//   the upstream code
// why: a header cannot add a member to a kernel structure. Where the
//   kernel lacks it, its Ethernet driver's flow offload never reads an
//   A-MSDU flag from the path, so the assignments are left out and the
//   path is what that kernel's PPE knows (no hardware A-MSDU). The rule
//   wraps the if/else that sets it, mt7996's form; an assignment of
//   another form is left alone, and the build fails on it loudly. A
//   structure is structural: the API level never picks the form.
// RETROFI_HAVE_net_device_path_mtk_wdma_amsdu comes from
// <retrofi/probes.h>, force-included through include/retrofi/version.h.

@@
struct net_device_path *path;
expression C, E1, E2;
@@
+#if RETROFI_HAVE_net_device_path_mtk_wdma_amsdu
 if (C)
 	path->mtk_wdma.amsdu = E1;
 else
 	path->mtk_wdma.amsdu = E2;
+#endif
