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
