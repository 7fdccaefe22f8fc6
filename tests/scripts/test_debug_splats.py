"""The splat scan knows the reports of the debug kernel's checkers (KASAN,
lockdep, UBSAN, list debugging, kmemleak, debugobjects, SLUB), names each
by its checker, and fails a run that printed one, quoting it."""

import pytest

import retrofi_boot
import retrofi_ktap

PASS = "KTAP version 1\n1..1\nok 1 a_test\n"

REPORTS = {
    "KASAN": "BUG: KASAN: slab-use-after-free in retrofi_uaf_init+0x4c/0x80 [retrofi_uaf]",
    "lockdep": "WARNING: possible circular locking dependency detected",
    "UBSAN": "UBSAN: array-index-out-of-bounds in net/mac80211/rx.c:100:5",
    "list corruption": "list_add corruption. prev->next should be next (ffffffffc0a01040), "
                       "but was 0000000000000000. (prev=ffff888003e1c000).",
    "kmemleak": "unreferenced object 0xffff888004a1c000 (size 64):",
    "debugobjects": "ODEBUG: free active (active state 0) object: ffff888004a1c000 "
                    "object type: timer_list hint: retrofi_timer_fn+0x0/0x10 [x]",
    "slub": "BUG kmalloc-64 (Tainted: G    B      O      ): Poison overwritten",
}


@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_each_checker_report_fails_the_run_named_by_its_checker(kind):
    line = REPORTS[kind]
    text = PASS + f"[   42.000000] {line}\n[   42.000001] Call Trace:\n"
    status, reason, _, splats = retrofi_boot.judge(text)
    assert status == "fail"
    assert splats[0].kind == kind and line in splats[0].text[0]
    assert f"{kind} at line 4" in reason


def test_kmemleak_summary_and_the_guests_raw_report_are_splats():
    text = PASS + ("---- kmemleak report\n"
                   "unreferenced object 0xffff888004a1c000 (size 64):\n"
                   "  comm \"insmod\", pid 80, jiffies 4294938000\n"
                   "  backtrace (crc 0):\n"
                   "    kmalloc_trace_noprof+0x2d/0x90\n"
                   "---- end of kmemleak report\n"
                   "[   60.100000] kmemleak: 1 new suspected memory leaks "
                   "(see /sys/kernel/debug/kmemleak)\n")
    splats = retrofi_ktap.scan_splats(text)
    assert [s.kind for s in splats] == ["kmemleak", "kmemleak"]
    assert any("kmalloc_trace_noprof" in l for l in splats[0].text)


def test_a_clean_debug_boot_has_no_splat():
    text = PASS + ("[    0.000000] kmemleak: Kernel memory leak detector initialized (mem pool "
                   "available: 15834)\n"
                   "[    0.100000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc.\n"
                   "[    0.200000] ODEBUG: selftest passed\n"
                   "---- kmemleak report\n---- end of kmemleak report\n")
    status, reason, _, splats = retrofi_boot.judge(text)
    assert (status, splats) == ("pass", [])


# ---------------------------------------------------------------- the leak scan
#
# On a kernel with kmemleak, a row passes only with the guest's complete
# leak scan on the console: a guest whose debugfs or kmemleak file is
# missing, or whose `echo scan` failed, proves no absence of leaks.
# The console logs below are what tests/guest/init prints in each case.

SCANNED = PASS + ("# retrofi guest tests done\n"
                  "---- kmemleak report\n"
                  "---- end of kmemleak report\n"
                  "# ---- dmesg\n"
                  "[    0.000000] kmemleak: Kernel memory leak detector initialized\n"
                  "# ---- end of dmesg\n")
NO_DEBUGFS = PASS + "# retrofi guest tests done\n# ---- dmesg\n# ---- end of dmesg\n"
SCAN_FAILED = PASS + ("# retrofi guest tests done\n"
                      "sh: write error: Operation not permitted\n"
                      "kmemleak: scan failed\n"
                      "sh: write error: Operation not permitted\n"
                      "kmemleak: scan failed\n"
                      "---- kmemleak report\n"
                      "---- end of kmemleak report\n")
CUT_SHORT = PASS + "---- kmemleak report\n"


def test_a_kmemleak_kernels_row_passes_with_the_guests_leak_scan():
    status, reason, _, splats = retrofi_boot.judge(SCANNED, kmemleak=True)
    assert (status, splats) == ("pass", []), reason


@pytest.mark.parametrize("text,why", [
    (NO_DEBUGFS, "guest printed no '---- kmemleak report'"),
    (SCAN_FAILED, "the guest said 'kmemleak: scan failed'"),
    (CUT_SHORT, "has no '---- end of kmemleak report'")],
    ids=["no-debugfs-or-kmemleak", "scan-failed", "report-cut-short"])
def test_a_kmemleak_kernels_row_without_a_leak_scan_fails(text, why):
    status, reason, _, _ = retrofi_boot.judge(text, kmemleak=True)
    assert status == "fail" and why in reason, reason
    assert reason.startswith("no leak scan: "), reason


def test_a_kernel_line_that_looks_like_the_marker_is_not_the_guests_scan():
    text = NO_DEBUGFS + "[    5.000000] ---- kmemleak report\n[    5.000001] ---- end of kmemleak report\n"
    status, reason, _, _ = retrofi_boot.judge(text, kmemleak=True)
    assert status == "fail" and "no leak scan" in reason


def test_a_kernel_without_kmemleak_needs_no_leak_scan():
    status, reason, _, _ = retrofi_boot.judge(NO_DEBUGFS)
    assert status == "pass", reason


def test_only_a_kernel_built_with_kmemleak_must_show_a_scan(tmp_path):
    import retrofi_kernels
    for name, line, want in [("debug", "CONFIG_DEBUG_KMEMLEAK=y", True),
                             ("plain", "# CONFIG_DEBUG_KMEMLEAK is not set", False)]:
        (tmp_path / name).mkdir()
        (tmp_path / name / ".config").write_text(f"CONFIG_X86_64=y\n{line}\n")
        kernel = retrofi_kernels.KernelTree(name, "", "", "", str(tmp_path / name), "", "", "", "")
        assert retrofi_boot.has_kmemleak(kernel) is want, name


def test_the_guest_prints_what_the_host_requires_of_a_leak_scan():
    """tests/guest/init's scan prints the markers judge() looks for, and says
    when a scan fails."""
    import os
    from conftest import REPO
    init = open(os.path.join(REPO, "tests", "guest", "init")).read()
    for marker in (retrofi_boot.KMEMLEAK_BEGIN, retrofi_boot.KMEMLEAK_END,
                   retrofi_boot.KMEMLEAK_FAILED):
        assert f'echo "{marker}"' in init, marker
    assert init.count(f'/sys/kernel/debug/kmemleak || echo "{retrofi_boot.KMEMLEAK_FAILED}"') >= 2
