"""The KTAP parser and the splat scanner, on console-log fixtures: a result
is a pass only from a complete KTAP stream, and any kernel splat fails."""

import retrofi_boot
import retrofi_ktap

BOOT_NOISE = """\
[    0.000000] Linux version 6.12.118+deb12-amd64 (debian-kernel@lists.debian.org)
[    0.512345] RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable to RETBleed attacks, data leaks possible!
[    1.100000] Run /init as init process
"""

PASS = BOOT_NOISE + """\
KTAP version 1
# retrofi guest tests on 6.12.118+deb12-amd64
1..3
# first
ok 1 backport_modules_are_loaded_from_updates
# Subtest: compat_selftest
    KTAP version 1
    1..2
    ok 1 splice_tail_appends_in_order
    ok 2 count_nodes
ok 2 compat_selftest
[    2.000000] KTAP version 1
[    2.000001] 1..9
[    2.000002] not ok 1 something the kernel printed
ok 3 wpa2_psk_association_passes_traffic
# ---- dmesg
[    0.000000] Linux version 6.12.118+deb12-amd64
"""


def test_complete_passing_stream_passes():
    r = retrofi_ktap.parse(PASS)
    assert r.version == 1 and r.plan == 3
    assert [t.name for t in r.tests] == ["backport_modules_are_loaded_from_updates",
                                         "compat_selftest", "wpa2_psk_association_passes_traffic"]
    assert r.passed and r.errors == []
    assert r.tests[1].subtests.plan == 2 and r.tests[1].subtests.passed
    assert r.tests[0].diagnostics == ["first"]
    status, reason, _, splats = retrofi_boot.judge(PASS)
    assert status == "pass", reason
    assert splats == []        # "RETBleed: WARNING:" is a boot note, not a splat


def test_kernel_lines_are_never_the_guests_ktap():
    # The timestamped "not ok 1" above came through printk: not a result.
    r = retrofi_ktap.parse(PASS)
    assert all(t.status == "ok" for t in r.tests)


def test_not_ok_fails_and_names_the_test():
    text = PASS.replace("ok 3 wpa2_psk", "# ping from ns sta to 10.0.2.1 lost packets\nnot ok 3 wpa2_psk")
    r = retrofi_ktap.parse(text)
    assert not r.passed and [t.number for t in r.failures] == [3]
    assert "lost packets" in r.failures[0].diagnostics[-1]
    status, reason, _, _ = retrofi_boot.judge(text)
    assert status == "fail" and "3 wpa2_psk_association_passes_traffic" in reason


def test_skip_directive_is_a_skip_not_a_failure():
    text = "KTAP version 1\n1..2\nok 1 a\nok 2 b # SKIP no 5 GHz radio\n"
    r = retrofi_ktap.parse(text)
    assert r.passed and r.tests[1].status == "skip" and r.tests[1].directive == "SKIP no 5 GHz radio"
    assert r.counts() == {"ok": 1, "not ok": 0, "skip": 1}


def test_missing_plan_is_a_failure():
    text = BOOT_NOISE + "KTAP version 1\nok 1 a\n"
    r = retrofi_ktap.parse(text)
    assert not r.passed and any("no plan" in e for e in r.errors)
    status, reason, _, _ = retrofi_boot.judge(text)
    assert status == "fail" and "died early" in reason


def test_no_ktap_at_all_is_a_failure():
    text = BOOT_NOISE + "[    1.2] Kernel panic - not syncing: Attempted to kill init!\n"
    status, reason, ktap, splats = retrofi_boot.judge(text)
    assert status == "fail" and "no KTAP plan" in reason
    assert [s.kind for s in splats] == ["panic"]


def test_truncated_stream_is_a_failure():
    text = BOOT_NOISE + "KTAP version 1\n1..5\nok 1 a\nok 2 b\n"
    r = retrofi_ktap.parse(text)
    assert not r.passed and "only 2 of 5" in r.errors[0]
    status, reason, _, _ = retrofi_boot.judge(text)
    assert status == "fail" and "2 of 5 results" in reason


def test_timeout_wins_even_with_partial_results():
    text = BOOT_NOISE + "KTAP version 1\n1..5\nok 1 a\n"
    status, reason, _, _ = retrofi_boot.judge(text, timed_out=True)
    assert status == "timeout" and "1 passed" in reason


def test_out_of_order_and_extra_results_are_errors():
    r = retrofi_ktap.parse("KTAP version 1\n1..2\nok 2 b\nok 1 a\n")
    assert not r.passed and any("where 1 was expected" in e for e in r.errors)
    r = retrofi_ktap.parse("KTAP version 1\n1..1\nok 1 a\nok 2 b\n")
    assert not r.passed and any("2 results for a plan of 1" in e for e in r.errors)


def test_failing_subtest_under_an_ok_parent_is_an_error():
    text = "KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    not ok 1 x\nok 1 parent\n"
    r = retrofi_ktap.parse(text)
    assert not r.passed and "subtests are not" in r.errors[0]


def test_crlf_console_output_parses():
    r = retrofi_ktap.parse("KTAP version 1\r\n1..1\r\nok 1 a\r\n")
    assert r.passed


WARNING_SPLAT = """\
[   12.345678] ------------[ cut here ]------------
[   12.345680] WARNING: CPU: 0 PID: 123 at net/mac80211/tx.c:1234 ieee80211_tx+0x1/0x2 [mac80211]
[   12.345690] Modules linked in: mac80211_hwsim(O) mac80211(O) cfg80211(O) compat(O)
[   12.345700] Call Trace:
[   12.345701]  <TASK>
[   12.345702]  ieee80211_tx+0x1/0x2 [mac80211]
"""


def test_warning_splat_fails_a_passing_run_and_is_quoted():
    text = PASS + WARNING_SPLAT
    status, reason, _, splats = retrofi_boot.judge(text)
    assert status == "fail" and "WARNING" in reason and "net/mac80211/tx.c:1234" in reason
    assert splats[0].kind == "WARNING"
    assert any("Modules linked in" in l for l in splats[0].text)


def test_each_splat_kind_is_detected():
    samples = {
        "BUG": "BUG: kernel NULL pointer dereference, address: 0000000000000008",
        "Oops": "Oops: 0002 [#1] PREEMPT SMP NOPTI",
        "KASAN": "BUG: KASAN: slab-use-after-free in ieee80211_rx+0x10/0x20",
        "UBSAN": "UBSAN: array-index-out-of-bounds in net/wireless/scan.c:100:5",
        "lockdep": "WARNING: possible circular locking dependency detected",
        "hung task": "INFO: task kworker/0:1:42 blocked for more than 30 seconds.",
        "general protection": "general protection fault, probably for non-canonical address",
        "Call Trace": "Call Trace:",
        "panic": "Kernel panic - not syncing: Fatal exception",
    }
    for kind, line in samples.items():
        splats = retrofi_ktap.scan_splats(f"[    5.000000] {line}\n")
        assert len(splats) == 1, (kind, splats)
        # KASAN reports start with "BUG: KASAN:"; either name is right.
        assert splats[0].kind in (kind, "BUG"), (kind, splats[0].kind)


def test_splat_shown_twice_is_reported_once():
    text = WARNING_SPLAT + "# ---- dmesg\n" + WARNING_SPLAT.replace("[   12.", "[   12.")
    assert len([s for s in retrofi_ktap.scan_splats(text) if s.kind == "WARNING"]) == 1


def test_guest_ktap_lines_are_not_splats():
    text = "KTAP version 1\n1..1\n# grep for 'BUG: ' found nothing\nok 1 no_Call_Trace: seen\n"
    assert retrofi_ktap.scan_splats(text) == []


def test_allowed_splat_is_reported_but_does_not_fail():
    text = PASS + WARNING_SPLAT
    allowed = [(r"net/mac80211/tx\.c:1234", "known upstream warning, bug #1")]
    status, reason, _, splats = retrofi_boot.judge(text, allowed)
    # The Call Trace line of the same splat is not covered by the rule.
    assert [s.allowed for s in splats if s.kind == "WARNING"] == ["known upstream warning, bug #1"]
    allowed.append((r"Call Trace", "part of the allowed warning"))
    status, reason, _, _ = retrofi_boot.judge(text, allowed)
    assert status == "pass", reason


def test_render_round_trips():
    r = retrofi_ktap.parse(PASS)
    again = retrofi_ktap.parse(retrofi_ktap.render(r))
    assert again.passed and [t.name for t in again.tests] == [t.name for t in r.tests]


# What tests/guest/init's kunit_suites nests under its test: a module's
# suites as KUnit prints them, a parameterised case's parameters without a
# plan (a generator yields them), then the suite's own result.
KUNIT = BOOT_NOISE + """\
KTAP version 1
1..1
# Subtest: cfg80211_kunit_suites_pass
    KTAP version 1
    1..1
        KTAP version 1
        # Subtest: cfg80211-inform-bss
        1..2
        ok 1 test_inform_bss_ssid_only
            KTAP version 1
            # Subtest: test_inform_bss_ml_sta
            ok 1 no_mld_id
            %s 2 mld_id_eq_1
            # test_inform_bss_ml_sta: pass:1 fail:0 skip:0 total:2
        %s 2 test_inform_bss_ml_sta
        # Totals: pass:2 fail:0 skip:0 total:2
    %s 1 cfg80211-inform-bss
%s 1 cfg80211_kunit_suites_pass
"""


def test_kunit_parameters_without_a_plan_count_and_a_failed_one_fails():
    r = retrofi_ktap.parse(KUNIT % ("ok", "ok", "ok", "ok"))
    assert r.passed, r.errors
    (suite,) = r.tests[0].subtests.tests
    case = suite.subtests.tests[1]
    assert suite.subtests.plan == 2 and case.subtests.plan == 2
    assert [p.name for p in case.subtests.tests] == ["no_mld_id", "mld_id_eq_1"]
    # One failed parameter, reported up the levels as KUnit does.
    r = retrofi_ktap.parse(KUNIT % ("not ok", "not ok", "not ok", "not ok"))
    assert not r.passed and [t.name for t in r.failures] == ["cfg80211_kunit_suites_pass"]
    # A parameter that failed under a case printed ok is an error, not a pass.
    r = retrofi_ktap.parse(KUNIT % ("not ok", "ok", "ok", "ok"))
    assert not r.passed and any("test_inform_bss_ml_sta is ok but its subtests are not" in e
                                for e in r.tests[0].subtests.tests[0].subtests.errors)


def test_a_top_level_stream_without_a_plan_still_fails():
    r = retrofi_ktap.parse(BOOT_NOISE + "KTAP version 1\nok 1 a\n")
    assert not r.passed and any("no plan line" in e for e in r.errors)


def test_leaf_counts_count_each_case_and_each_parameter():
    r = retrofi_ktap.parse(KUNIT % ("not ok", "not ok", "not ok", "not ok"))
    assert retrofi_ktap.leaf_counts(r.tests[0].subtests) == {"ok": 2, "not ok": 1, "skip": 0}
