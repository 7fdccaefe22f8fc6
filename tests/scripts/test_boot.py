"""The boot stages: the initramfs builder, the QEMU runner and the verdict.

The network-marked tests use the cached 6.12 target: one real boot runs
every guest test (tests/guest/init) with the backport installed, and a few
short boots of small /init scripts prove that a hang, a `not ok` and a guest
that dies before its plan are each reported as what they are.
"""

import io
import os
import shutil
import subprocess
import threading
import time

import pytest

import retrofi_boot
import retrofi_initramfs
import retrofi_kernels
import retrofi_matrix
from conftest import REPO
from faultcheck import saw
from retrofi_errors import RetrofiError

FIXTURES = os.path.join(REPO, "tests", "guest", "fixtures")


# ---------------------------------------------------------------- no network

CONSOLE = ("[    4.40] Run /init as init process\r\n"
           "KTAP version 1\r\n1..12\r\n"
           "# modprobe compat\r\n    1..3\r\n    ok 1 nested\r\n"
           "ok 1 backport_modules_are_loaded_from_updates\r\n"
           "[   20.10] ok 9 not a guest result\r\n"
           "not ok 2 shims_in_force_are_in_the_installed_modules\r\n")


def test_guest_progress_counts_top_level_results_against_the_plan():
    assert retrofi_boot.guest_progress(CONSOLE[:CONSOLE.index("KTAP")]) is None
    assert retrofi_boot.guest_progress(CONSOLE[:CONSOLE.index("# modprobe")]) == \
        "0 of 12 guest tests done"
    assert retrofi_boot.guest_progress(CONSOLE) == "2 of 12 guest tests done"


def test_a_boot_prints_how_many_guest_tests_are_done_while_it_runs(tmp_path):
    log = tmp_path / "console.log"
    out = io.StringIO()
    with retrofi_boot._console_progress("6.12", str(log), out, every=0.05):
        time.sleep(0.2)                 # no console yet: nothing to say
        for end in (CONSOLE.index("# modprobe"), len(CONSOLE)):
            log.write_text(CONSOLE[:end])
            said = f"{retrofi_boot.guest_progress(CONSOLE[:end])} ("
            deadline = time.monotonic() + 10
            while said not in out.getvalue() and time.monotonic() < deadline:
                time.sleep(0.05)
    lines = out.getvalue().splitlines()
    assert [l.split(" (")[0] for l in lines] == ["[boot] 6.12: 0 of 12 guest tests done",
                                                  "[boot] 6.12: 2 of 12 guest tests done"]
    assert threading.active_count() == 1, "the progress thread ended with the boot"

def test_cpio_is_deterministic_newc():
    def make():
        c = retrofi_initramfs.CpioWriter()
        c.add_file("usr/bin/x", b"hello", 0o755)
        c.add_symlink("bin/y", "/usr/bin/x")
        c.add_chardev("dev/console", 5, 1)
        c.add_dir("tmp")
        out = __import__("io").BytesIO()
        c.write(out)
        return out.getvalue()
    a, b = make(), make()
    assert a == b
    assert a.startswith(b"070701") and b"TRAILER!!!" in a
    # Parents come before children; every header is 4-byte aligned.
    names, off = [], 0
    while True:
        hdr = a[off:off + 110]
        namesize = int(hdr[94:102], 16)
        filesize = int(hdr[54:62], 16)
        name = a[off + 110:off + 110 + namesize - 1].decode()
        names.append(name)
        off += 110 + namesize
        off += (4 - off % 4) % 4
        off += filesize + (4 - filesize % 4) % 4
        if name == "TRAILER!!!":
            break
    assert names == ["bin", "bin/y", "dev", "dev/console", "tmp", "usr", "usr/bin", "usr/bin/x",
                     "TRAILER!!!"]
    assert off == len(a)


def _fake_target(tmp_path, image):
    return retrofi_kernels.KernelTree(name="fake", abi="0", version="0", root=str(tmp_path),
                                      headers=str(tmp_path), kernelrelease="0.0.0", image=image,
                                      modules=str(tmp_path), cc="")


def test_target_without_a_kernel_is_an_error(tmp_path):
    initrd = tmp_path / "i.cpio.gz"
    initrd.write_bytes(b"")
    with pytest.raises(RetrofiError) as e:
        retrofi_boot.boot(_fake_target(tmp_path, str(tmp_path / "vmlinuz-missing")), str(initrd),
                          str(tmp_path / "log"))
    assert "no kernel image" in e.value.what


def test_missing_qemu_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RetrofiError) as e:
        retrofi_boot.boot(_fake_target(tmp_path, "/nonexistent"), "/nonexistent", str(tmp_path / "l"))
    assert "qemu-system-x86_64 not found" in e.value.what and "qemu-system-x86" in e.value.fix


def test_a_boot_result_names_the_row_booted_not_its_base_kernel(tmp_path, monkeypatch):
    """A shape row boots its base kernel; its verdict names the shape."""
    qemu = tmp_path / "bin" / "qemu-system-x86_64"
    qemu.parent.mkdir()
    qemu.write_text("#!/bin/sh\nprintf 'KTAP version 1\\n1..1\\nok 1 guest_ran\\n'\n")
    qemu.chmod(0o755)
    monkeypatch.setenv("PATH", f"{qemu.parent}:{os.environ['PATH']}")
    image, initrd = tmp_path / "vmlinuz", tmp_path / "initrd"
    image.write_bytes(b"")
    initrd.write_bytes(b"")
    r = retrofi_boot.boot(_fake_target(tmp_path, str(image)), str(initrd),
                          str(tmp_path / "console.log"), timeout=30, name="2.6.21",
                          progress=io.StringIO())
    assert r.ok, r.report()
    assert r.target == "2.6.21" and r.report().startswith("target 2.6.21: PASS")
    base = retrofi_boot.boot(_fake_target(tmp_path, str(image)), str(initrd),
                             str(tmp_path / "console2.log"), timeout=30, progress=io.StringIO())
    assert base.target == "fake"


# ---------------------------------------------------------------- stored boots

SPLAT = "[    9.10] WARNING: CPU: 0 PID: 1 at drivers/x.c:1 x+0x1/0x2\n"


def _counting_qemu(tmp_path, monkeypatch):
    """A stand-in QEMU that logs each call and prints $FAKE_CONSOLE."""
    qemu = tmp_path / "bin" / "qemu-system-x86_64"
    qemu.parent.mkdir(exist_ok=True)
    qemu.write_text('#!/bin/sh\necho "$*" >>"$FAKE_QEMU_CALLS"\ncat "$FAKE_CONSOLE"\n')
    qemu.chmod(0o755)
    calls, console = tmp_path / "calls", tmp_path / "console-to-print"
    monkeypatch.setenv("PATH", f"{qemu.parent}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_QEMU_CALLS", str(calls))
    monkeypatch.setenv("FAKE_CONSOLE", str(console))
    return qemu, calls, console


def _boots(calls):
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def test_a_boot_of_unchanged_inputs_is_judged_from_its_stored_console(tmp_path, monkeypatch):
    """The kernel, the initramfs, QEMU and its arguments unchanged: the
    stored console is copied to the log and judged anew, and the result
    says when it ran; any of them changed, or reuse off: a real boot."""
    qemu, calls, console = _counting_qemu(tmp_path, monkeypatch)
    console.write_text("KTAP version 1\n1..1\nok 1 guest_ran\n")
    image, initrd, store = tmp_path / "vmlinuz", tmp_path / "initrd", str(tmp_path / "boots")
    image.write_bytes(b"kernel")
    initrd.write_bytes(b"initramfs")
    target = _fake_target(tmp_path, str(image))

    def boot(log="again.log", **kw):
        kw = dict(dict(timeout=30, progress=io.StringIO(), store=store), **kw)
        return retrofi_boot.boot(target, str(initrd), str(tmp_path / log), **kw)

    first = boot("first.log")
    assert first.ok and first.reused == "" and _boots(calls) == 1
    console.write_text("KTAP version 1\n1..1\nnot ok 1 guest_ran\n")   # what a new boot would say
    again = boot()
    assert _boots(calls) == 1, "no QEMU ran"
    assert again.ok and again.reused and again.seconds == pytest.approx(first.seconds, abs=0.1)
    assert (tmp_path / "again.log").read_text() == (tmp_path / "first.log").read_text()
    line = again.report().splitlines()[0]
    assert f"[tcg; the stored boot of {again.reused}, inputs unchanged]" in line
    # Each input, changed, boots again (and that boot is what is judged).
    initrd.write_bytes(b"initramfs with another module")
    assert not boot().ok and _boots(calls) == 2
    image.write_bytes(b"another kernel")
    assert not boot().reused and _boots(calls) == 3
    assert not boot(append="no5lvl").reused and _boots(calls) == 4
    assert not boot(memory=2048).reused and _boots(calls) == 5
    assert not boot(timeout=31).reused and _boots(calls) == 6
    qemu.write_text(qemu.read_text() + "# another QEMU\n")
    assert not boot().reused and _boots(calls) == 7
    # reuse=False boots although the store has it, and replaces it.
    console.write_text("KTAP version 1\n1..1\nok 1 guest_ran\n")
    assert boot(reuse=False).ok and _boots(calls) == 8
    assert boot().ok and _boots(calls) == 8


def test_a_stored_failure_stays_a_failure_and_is_judged_by_todays_rules(tmp_path, monkeypatch):
    """A failed boot is stored as much as a passing one (nothing is retried);
    the verdict is the judge's of now: a splat allowed since then passes."""
    _, calls, console = _counting_qemu(tmp_path, monkeypatch)
    console.write_text("KTAP version 1\n1..1\n" + SPLAT + "ok 1 guest_ran\n")
    image, initrd, store = tmp_path / "vmlinuz", tmp_path / "initrd", str(tmp_path / "boots")
    image.write_bytes(b"kernel")
    initrd.write_bytes(b"initramfs")
    target = _fake_target(tmp_path, str(image))

    def boot(**kw):
        return retrofi_boot.boot(target, str(initrd), str(tmp_path / "c.log"), timeout=30,
                                 progress=io.StringIO(), store=store, **kw)
    first = boot()
    assert first.status == "fail" and "kernel splat" in first.reason
    console.write_text("KTAP version 1\n1..1\nok 1 guest_ran\n")
    again = boot()
    assert again.status == "fail" and again.reused and _boots(calls) == 1
    allowed = boot(allowed_splats=[(r"WARNING: .* drivers/x\.c:1", "known, test")])
    assert allowed.ok and allowed.reused and _boots(calls) == 1
    assert [s.allowed for s in allowed.splats] == ["known, test"]


def test_an_interrupted_boot_is_not_stored(tmp_path, monkeypatch):
    _, calls, console = _counting_qemu(tmp_path, monkeypatch)
    console.write_text("KTAP version 1\n1..1\nok 1 guest_ran\n")
    image, initrd, store = tmp_path / "vmlinuz", tmp_path / "initrd", tmp_path / "boots"
    image.write_bytes(b"kernel")
    initrd.write_bytes(b"initramfs")
    target = _fake_target(tmp_path, str(image))
    real = retrofi_boot.run_qemu

    def interrupted(*a, **kw):
        real(*a, **kw)
        raise KeyboardInterrupt
    monkeypatch.setattr(retrofi_boot, "run_qemu", interrupted)
    with pytest.raises(KeyboardInterrupt):
        retrofi_boot.boot(target, str(initrd), str(tmp_path / "c.log"), timeout=30,
                          progress=io.StringIO(), store=str(store))
    assert not store.exists() or os.listdir(store) == []
    monkeypatch.setattr(retrofi_boot, "run_qemu", real)
    r = retrofi_boot.boot(target, str(initrd), str(tmp_path / "c.log"), timeout=30,
                          progress=io.StringIO(), store=str(store))
    assert r.ok and not r.reused and _boots(calls) == 2


GUEST_WITH_SKIPS = """KTAP version 1
1..2
# Subtest: compat_selftest
    KTAP version 1
    1..2
    ok 1 list_cut_position_singular
    ok 2 x509_loads_a_certificate # SKIP not exported on this target
ok 1 compat_selftest
ok 2 station_scan_lists_the_ap_ssid # SKIP no hostapd
"""


X509_SKIP = ("compat_selftest/x509_loads_a_certificate", "not exported on this target")
SCAN_SKIP = ("station_scan_lists_the_ap_ssid", "no hostapd")


def test_a_skip_is_never_a_pass_unless_the_target_declares_it():
    status, reason, ktap, _ = retrofi_boot.judge(GUEST_WITH_SKIPS)
    assert status == "fail"
    assert "compat_selftest/x509_loads_a_certificate (SKIP not exported on this target)" in reason
    assert "station_scan_lists_the_ap_ssid (SKIP no hostapd)" in reason
    # Declaring one leaves the other failing the boot.
    status, reason, _, _ = retrofi_boot.judge(GUEST_WITH_SKIPS, expected_skips=[X509_SKIP])
    assert status == "fail" and "x509" not in reason and "station_scan" in reason
    status, _, _, _ = retrofi_boot.judge(GUEST_WITH_SKIPS, expected_skips=[X509_SKIP, SCAN_SKIP])
    assert status == "pass"


def test_a_declared_skip_that_skipped_for_another_reason_fails_the_boot():
    status, reason, _, _ = retrofi_boot.judge(GUEST_WITH_SKIPS, expected_skips=[
        ("compat_selftest/x509_loads_a_certificate", "not built at this API level"), SCAN_SKIP])
    assert status == "fail"
    assert ("compat_selftest/x509_loads_a_certificate: skipped for another reason: "
            "'not exported on this target', declared 'not built at this API level'") in reason


def test_a_declared_skip_that_ran_or_went_missing_fails_the_boot():
    ran = GUEST_WITH_SKIPS.replace("x509_loads_a_certificate # SKIP not exported on this target",
                                   "x509_loads_a_certificate")
    status, reason, _, _ = retrofi_boot.judge(ran, expected_skips=[X509_SKIP, SCAN_SKIP])
    assert status == "fail" and "compat_selftest/x509_loads_a_certificate: passed" in reason
    status, reason, _, _ = retrofi_boot.judge(GUEST_WITH_SKIPS, expected_skips=[
        X509_SKIP, SCAN_SKIP, ("compat_selftest/kmemdup_array_copies", "exported shim")])
    assert status == "fail" and "compat_selftest/kmemdup_array_copies: not in the results" in reason


def test_a_declared_skip_of_a_test_this_mode_does_not_run_is_not_judged():
    """make stress runs no compat selftest: its declared skips cannot happen there."""
    stress = "KTAP version 1\n1..1\nok 1 stack_reloads_cycles_1_to_10_then_associates\n"
    status, reason, _, _ = retrofi_boot.judge(stress, expected_skips=[X509_SKIP])
    assert status == "pass", reason


def test_a_nested_undeclared_skip_fails_its_row_in_the_report():
    import retrofi_matrix
    import retrofi_run
    ktap = retrofi_boot.judge(GUEST_WITH_SKIPS)[2]
    rows = retrofi_run._test_rows(ktap, [retrofi_matrix.ExpectedSkip(*SCAN_SKIP)])
    assert [(r.name, r.status) for r in rows] == [("compat_selftest", "fail"),
                                                 ("station_scan_lists_the_ap_ssid", "skip")]
    assert "x509_loads_a_certificate" in rows[0].detail


def test_a_declared_skip_not_taken_fails_its_row_in_the_report():
    import retrofi_matrix
    import retrofi_run
    ktap = retrofi_boot.judge(GUEST_WITH_SKIPS)[2]
    rows = retrofi_run._test_rows(ktap, [
        retrofi_matrix.ExpectedSkip(X509_SKIP[0], "another reason"),
        retrofi_matrix.ExpectedSkip(*SCAN_SKIP)])
    assert [(r.name, r.status) for r in rows] == [("compat_selftest", "fail"),
                                                 ("station_scan_lists_the_ap_ssid", "skip")]
    assert "skipped for another reason" in rows[0].detail


def test_the_matrix_declares_the_skips_the_selftests_print():
    """Each booted row declares the forced-API selftest's exported shims' cases
    (TX() in the selftest's tables) and, on a row without lockdep (not a
    debug kernel's), the lockdep case of the three selftests, on a kernel
    of 6.7 or later the debugfs cancellation case, and on a kernel without
    preemptible RCU (Debian's before 5.12, which had no PREEMPT_DYNAMIC:
    5.10 and the shapes on it) the guard(rcu) case; each reason is
    what the module prints there, so the guest's log can be checked
    against the declaration."""
    import re
    import retrofi_matrix
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    st = os.path.join(root, "tests", "compat-selftest")
    tables = "".join(open(os.path.join(st, f)).read() for f in sorted(os.listdir(st))
                     if f.startswith("retrofi_selftest") and f.endswith((".c", ".h")))
    exported = {m.group(1): m.group(2) for m in
                re.finditer(r"(?<!define )\bTX\((\w+),\s*(\w+),", tables)}
    fmt = re.search(r'pr_info\("ok %d %s # SKIP (exported shim %s: [^"%]*)\\n"',
                    tables).group(1)
    lockdep_case = re.search(r"\bT\((lockdep_is_held\w+), lockdep_is_held\)", tables).group(1)
    lockdep_skip = re.search(r'test_' + lockdep_case + r'\(void\)\n\{.*?SKIP\("([^"]*)"\)',
                             tables, re.S).group(1)
    debugfs_cases = re.findall(r"\bT\((debugfs_removal\w+),\s*debugfs_enter_cancellation\)",
                               tables)
    assert len(debugfs_cases) == 2, debugfs_cases
    debugfs_skips = {case: re.search(r'test_' + case + r'\(void\)\n\{.*?return SKIP\("([^"]*\(6\.7\)[^"]*)"\)',
                                     tables, re.S).group(1)
                     for case in debugfs_cases}
    pp_case = re.search(r"\bT\((pp_page_to_nmdesc\w+), pp_page_to_nmdesc\)", tables).group(1)
    pp_skip = re.search(r'test_' + pp_case + r'\(void\)\n\{.*?return SKIP\("([^"]*)"\)',
                        tables, re.S).group(1)
    rcu_case = re.search(r"\bTC\((rcu_guard\w+), rcu,", tables).group(1)
    rcu_skip = re.search(r'test_' + rcu_case + r'\(void\)\n\{.*?return SKIP\("([^"]*)"\)',
                         tables, re.S).group(1)
    m = retrofi_matrix.load(os.path.join(root, "kernel-matrix.yaml"))
    forced = "compat_selftest_forced_api_2_6_21/"
    modules = ("compat_selftest", forced.rstrip("/"), "compat_selftest_probes_off")
    debug = {t.name for t in m.targets
             if t.config and "CONFIG_PROVE_LOCKING=y" in open(os.path.join(root, t.config)).read()}
    assert debug == {"debug-6.12"}
    assert "# CONFIG_MAC80211 is not set" in open(os.path.join(root, m.target("debug-6.12").config)).read()
    init = open(os.path.join(root, "tests", "guest", "init")).read()
    status_test, status_skip = re.search(
        r'\tskip_test (retrofi_status_\w+) "([^"]*)"', init).group(1, 2)
    for t in m.targets:
        if t.kind == retrofi_matrix.BUILD_ONLY:
            assert t.expected_skips == (), t.name   # never booted: nothing to declare
            continue
        want = {forced + case: fmt.replace("%s", "backport_" + api)
                for case, api in exported.items()}
        if t.name not in debug and t.base not in debug:
            want.update({f"{parent}/{lockdep_case}": lockdep_skip for parent in modules})
        # The kernel's own debugfs cancellation (6.7 and later): its case
        # skips in every module, since the shim is structural.
        series = tuple(map(int, re.search(r"(\d+)\.(\d+)", m.real_target(t).name).group(1, 2)))
        if series >= (6, 7):
            want.update({f"{parent}/{case}": skip
                         for case, skip in debugfs_skips.items() for parent in modules})
        if series < (5, 12):
            want.update({f"{parent}/{rcu_case}": rcu_skip for parent in modules})
        # The debug kernel has no mac80211 of its own: the retrofi-status
        # test, which loads the kernel's own stack, skips there; nor a page
        # pool (no driver of its base selects CONFIG_PAGE_POOL), which the
        # pp_page_to_nmdesc case needs.
        if t.name in debug or t.base in debug:
            want[status_test] = status_skip
            want.update({f"{parent}/{pp_case}": pp_skip for parent in modules})
        assert {e.test: e.reason for e in t.expected_skips} == want, t.name


def test_each_guest_test_row_carries_its_seconds_by_the_guest_clock():
    import retrofi_run
    ktap = retrofi_boot.judge("KTAP version 1\n1..2\n# a: 7.25 s -> 9.75 s (guest uptime)\nok 1 a\n"
                              "# b said nothing of its time\nok 2 b\n")[2]
    assert [(r.name, r.seconds) for r in retrofi_run._test_rows(ktap)] == [("a", 2.5), ("b", None)]


# ---------------------------------------------------------------- real boots

@pytest.fixture(scope="module")
def kernels():
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    return retrofi_kernels.fetch(m, ["6.12"])


# The one full boot of a real target with every guest test runs through the
# matrix runner: tests/scripts/test_matrix_run.py.


def _fixture_boot(kernels, tmp_path, name, timeout=60, files=None):
    target = kernels.targets["6.12"]
    initrd = retrofi_initramfs.build(target, None, init=os.path.join(FIXTURES, name),
                                     config=files)
    started = time.monotonic()
    result = retrofi_boot.boot(target, initrd, str(tmp_path / f"{name}.log"), timeout=timeout)
    print(result.report())
    return result, time.monotonic() - started


@pytest.mark.network
def test_a_guest_that_hangs_ends_as_timeout(kernels, tmp_path):
    result, took = _fixture_boot(kernels, tmp_path, "hangs", timeout=20)
    assert result.status == "timeout" and result.exit_code is None
    assert took < 40
    assert any("hanging on purpose" in l for l in result.tail)
    # What the user sees: the verdict with why, the log, the console's end.
    report = result.report().splitlines()
    assert report[0].startswith("target 6.12: TIMEOUT (guest did not power off before the "
                                "timeout (0 passed, 0 failed, 0 skipped of 1 planned)) in ")
    assert report[0].endswith(f"[tcg]; console log: {tmp_path / 'hangs.log'}")
    saw("test_boot.py::test_a_guest_that_hangs_ends_as_timeout", report[0])
    assert "  last console lines:" in report and "    # hanging on purpose" in report


@pytest.mark.network
def test_a_guest_test_printing_not_ok_fails_the_target(kernels, tmp_path):
    result, _ = _fixture_boot(kernels, tmp_path, "fails")
    assert result.status == "fail" and result.exit_code == 0
    assert "2 this_test_fails_on_purpose" in result.reason
    assert [t.number for t in result.ktap.failures] == [2]


@pytest.mark.network
def test_a_guest_that_dies_before_its_plan_fails(kernels, tmp_path):
    result, _ = _fixture_boot(kernels, tmp_path, "dies_early")
    assert result.status == "fail"
    assert "died early" in result.reason
    assert any(s.kind == "panic" for s in result.splats)
    saw("test_boot.py::test_a_guest_that_dies_before_its_plan_fails", result.report().splitlines()[0])


@pytest.mark.network
def test_a_kernel_backtrace_fails_an_otherwise_passing_guest(kernels, tmp_path):
    result, _ = _fixture_boot(kernels, tmp_path, "splats")
    assert result.ktap.passed
    assert result.status == "fail" and "kernel splat" in result.reason


@pytest.mark.network
def test_a_test_module_that_warns_fails_the_target_with_the_splat_quoted(kernels, tmp_path):
    target = kernels.targets["6.12"]
    src = tmp_path / "warn"
    shutil.copytree(os.path.join(REPO, "tests", "guest", "warn-module"), src)
    p = subprocess.run(["make", "-C", target.headers, f"M={src}", "modules"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout[-3000:]
    ko = (src / "retrofi_warn.ko").read_bytes()
    result, _ = _fixture_boot(kernels, tmp_path, "warns", files={"retrofi_warn.ko": ko})
    assert result.ktap.passed, "every KTAP line was ok"
    assert result.status == "fail" and "kernel splat" in result.reason
    report = result.report()
    # The quote names the warning site: the test module's init function.
    assert any(s.kind == "WARNING" and "retrofi_warn_init" in " ".join(s.text)
               for s in result.splats), result.splats
    assert "retrofi_warn_init" in result.reason and "retrofi_warn_init" in report
    saw("test_boot.py::test_a_test_module_that_warns_fails_the_target_with_the_splat_quoted",
        report.splitlines()[0])


def test_a_test_with_subtests_reports_every_innermost_case_in_the_table():
    """KUnit suites (and the compat selftests): the row's test counts its
    cases and parameters, and the report's table says how many passed,
    failed and were skipped."""
    import retrofi_ktap
    import retrofi_report
    import retrofi_run
    import test_ktap
    ktap = retrofi_ktap.parse(test_ktap.KUNIT % ("not ok", "not ok", "not ok", "not ok"))
    (row,) = retrofi_run._test_rows(ktap)
    assert (row.name, row.status, row.cases) == ("cfg80211_kunit_suites_pass", "fail",
                                                 {"pass": 2, "fail": 1, "skip": 0})
    r = retrofi_report.Row(target="7.3", kind="real", build="ok", boot="fail", seconds=1.0,
                           tests=[row])
    assert "7.3: cfg80211_kunit_suites_pass: 2 cases passed, 1 failed, 0 skipped" in \
        retrofi_report.table([r]).splitlines()
