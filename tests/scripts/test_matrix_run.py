"""The main job end to end on one real target, as a user runs it:
`retrofi.py matrix --targets <oldest default>` generates, builds, boots the
backport in QEMU and runs every guest test; the exit status, the table and
the report files all come from the parsed KTAP and agree with each other.
The long-term source's identity (SOURCE=6.12 on 6.12, the build the fault
campaign finished) runs too, on a machine whose KVM faults after its probe
boot: the runner must finish under TCG and say so."""

import glob
import json
import os
import shutil
import xml.etree.ElementTree as ET

import pytest

import retrofi_build
import retrofi_initramfs
import retrofi_kernels
import retrofi_matrix
import retrofi_run
from conftest import REPO, lts_source, oldest_default_real, private_cache, run_cli
from faultcheck import assert_one_error, saw

GUEST_TESTS = ("backport_modules_are_loaded_from_updates",
               "booted_kernel_is_preempt_rt_exactly_on_rt_rows",
               "shims_in_force_are_in_the_installed_modules", "compat_selftest",
               "compat_selftest_forced_api_2_6_21", "compat_selftest_probes_off",
               "station_scan_lists_the_ap_ssid", "open_association_passes_traffic",
               "wpa2_psk_association_passes_traffic", "wpa3_sae_association_passes_traffic",
               "stack_reloads_10_times_then_associates",
               "ar5416_and_ar5418_resolve_to_ath9k_not_ath5k", "ar5212_resolves_to_ath5k",
               "ath9k_and_ath5k_load_and_unload_without_hardware",
               "retrofi_status_reports_the_backport_then_the_in_tree_stack")
# A row whose build has the tree's KUnit (every real target of the default
# source) runs the source's suites after these.
KUNIT_TESTS = ("cfg80211_kunit_suites_pass", "mac80211_kunit_suites_pass")
# A row that builds iwlwifi with the tree's KUnit (the matrix's ends: its
# since is 5.10) runs iwlwifi's own suites after the stack's.
IWLWIFI_KUNIT_TESTS = ("iwlwifi_kunit_suites_pass", "iwlmvm_kunit_suites_pass",
                       "iwlmld_kunit_suites_pass")
# A row that builds the vendor drivers (the matrix's ends, the oldest among
# them) runs these before its KUnit suites.
DRIVER_TESTS = ("vendor_driver_ids_resolve_to_the_backport",
                "vendor_drivers_load_and_unload_without_hardware")


def _run_matrix(target, out, env=None, *args):
    p = run_cli("matrix", "--targets", target, "--out", str(out), *args, env=env)
    print(p.stdout[-6000:], p.stderr[-3000:])
    report = json.load(open(out / "report" / "report.json")) if \
        (out / "report" / "report.json").exists() else None
    return p, report


def _assert_every_guest_test_passed(p, out, report, target, tests=GUEST_TESTS):
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    (row,) = report["targets"]
    assert (row["target"], row["kind"], row["build"], row["boot"], row["ok"]) == \
        (target, "real", "ok", "pass", True)
    names = [t["name"] for t in row["tests"]]
    assert names == list(tests)
    assert all(t["status"] == "pass" for t in row["tests"]), "no guest test may fail or skip"
    assert all(t["seconds"] is not None for t in row["tests"]), "each test's guest-clock time"
    assert row["initramfs_bytes"] > 1 << 20 and set(row["stages"]) >= {"build", "initramfs",
                                                                        "boot", "tests"}
    for log in ("build", "console"):
        assert os.path.isfile(row["logs"][log])
    console = open(row["logs"]["console"], errors="replace").read()
    assert "retrofi compat: version" in console
    # The traffic was counted by the interfaces on both ends (per-CPU
    # tstats summed by the core, or by the compat layer where the core
    # does not).
    assert console.count("(>= 40 expected)") >= 8, "counters checked after every exchange"
    # The table on the terminal says the same.
    line = next(l for l in p.stdout.splitlines() if l.startswith(f"{target} "))
    boot = "pass*" if row["boot_reused"] else "pass"
    assert line.split()[:8] == [target, "real", "ok", boot, row["accel"], str(len(tests)),
                                "0", "0"]
    # The row ran under the run's accelerator, unless a fault of the machine
    # made it rerun under TCG (then its notes say so).
    if any(n.startswith("rerun under tcg: ") for n in row["notes"]):
        assert row["accel"] == "tcg"
    else:
        assert row["accel"] == report["accel"]["name"]
    assert report["accel"]["reason"]
    suite = ET.parse(out / "report" / "junit.xml").getroot()[0]
    assert suite.get("tests") == str(len(tests) + 2) and suite.get("failures") == "0"
    return row


@pytest.mark.network
def test_matrix_boots_the_oldest_default_target_and_every_guest_test_passes(tmp_path):
    """The oldest default real target: where the version-guarded, probed
    and exported shims really run. It is one of the matrix's ends, so its
    one build has every vendor driver the target can take as well, and the
    guest proves their IDs and loads."""
    target = oldest_default_real().name
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    assert target in m.ends()
    out = tmp_path / "out"
    tests = GUEST_TESTS + DRIVER_TESTS + KUNIT_TESTS + IWLWIFI_KUNIT_TESTS
    # --rerun: this run boots even if an earlier one stored this boot.
    p, report = _run_matrix(target, out, None, "--rerun")
    row = _assert_every_guest_test_passed(p, out, report, target, tests)
    assert row["boot_reused"] == "" and "[boot] " in p.stdout
    assert row["build"] == "ok" and any(m.endswith("rtw89_pci.ko") for m in row["modules"]) \
        and any(m.endswith("iwlmld.ko") for m in row["modules"]), \
        "the end's build has the vendor drivers"

    # Cached stages: the build of the same tree is the runner's, and the
    # initramfs of unchanged inputs (the runner's guest config) the same file.
    kt = retrofi_kernels.fetch(m, [target], with_source=False).targets[target]
    (tree,) = glob.glob(str(out / "retrofi-*"))
    b = retrofi_build.build(tree, kt, str(tmp_path / "build-again.log"),
                            defconfig=retrofi_run.run_defconfig(tree, kt, drivers=True))
    assert b.ok and b.cached, b.summary()
    assert b.tree == next(l for l in open(row["logs"]["build"]).read().splitlines()
                          if l.startswith("$ make -C ")).split()[3]
    again = retrofi_initramfs.build(kt, b.tree, config=retrofi_run.guest_config(
        m.target(target), "tests", b.census, retrofi_run.preempt_rt(m, m.target(target)), b))
    assert again.reused and again.size < 24 << 20

    # The warm run: nothing changed, so the boot just stored stands for the
    # boot; its console is judged again and the row says when it ran.
    console = open(row["logs"]["console"], "rb").read()
    p2, warm = _run_matrix(target, out)
    row2 = _assert_every_guest_test_passed(p2, out, warm, target, tests)
    assert row2["boot_reused"] and "[boot] " not in p2.stdout, "no QEMU ran"
    assert open(row2["logs"]["console"], "rb").read() == console
    assert f"{target}: boot: the stored boot of {row2['boot_reused']}, whose kernel, " \
        "initramfs and QEMU are unchanged, judged again (RERUN=1 boots anew)" in p2.stdout
    assert row2["stages"]["tests"] == row["stages"]["tests"]


# One fault end to end: the boot stage finds each kind of fault (the KVM
# internal error, silence after the firmware, a failed entry after the
# kernel started) and reruns under TCG in test_accel.py; the whole run,
# the row and the table are the same for every kind.
@pytest.mark.network
@pytest.mark.parametrize("mode,fault", [
    ("internal-error-after-probe", "KVM internal error. Suberror: 1")])
def test_matrix_finishes_under_tcg_when_kvm_faults_after_its_probe(tmp_path, mode, fault):
    """A machine whose KVM passes the probe and then fails a real guest
    (the nested-virtualisation case): the identity target still passes,
    rerun under TCG, and its row says why."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy(os.path.join(REPO, "tests", "scripts", "fakes", "qemu-system-x86_64"), bindir)
    env = {"PATH": f"{bindir}:{os.environ['PATH']}", "REAL_QEMU": shutil.which("qemu-system-x86_64"),
           "FAKE_QEMU_MODE": mode, "RETROFI_ACCEL": "auto",
           "RETROFI_CACHE": private_cache(tmp_path / "cache"), "SOURCE": lts_source()}
    out = tmp_path / "out"
    p, report = _run_matrix("6.12", out, env)
    row = _assert_every_guest_test_passed(p, out, report, "6.12")
    assert report["accel"]["name"] == "kvm", "the probe passed"
    assert row["accel"] == "tcg" and row["notes"] == [f"rerun under tcg: {fault}"]
    assert f"6.12: rerun under tcg: {fault}" in p.stdout
    line = next(l for l in p.stdout.splitlines() if "6.12: rerun under tcg: " in l)
    saw("test_matrix_run.py::test_matrix_finishes_under_tcg_when_kvm_faults_after_its_probe",
        line.split("] ", 1)[-1] if line.startswith("[") else line)
    assert "SeaBIOS" in open(row["logs"]["console"] + ".kvm-fault").read()


def test_unknown_target_is_refused_before_any_work(tmp_path):
    p = run_cli("matrix", "--targets", "6.12 9.9", "--out", str(tmp_path / "out"))
    line = assert_one_error(p, "unknown target '9.9'", code=1, stream="stderr")
    saw("test_matrix_run.py::test_unknown_target_is_refused_before_any_work", line)
    assert "6.12, 6.1" in p.stderr
    assert os.listdir(tmp_path) == [], "no output directory, nothing else"


def test_list_prints_the_selection_as_json(tmp_path):
    p = run_cli("matrix", "--list")
    assert p.returncode == 0
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    assert json.loads(p.stdout) == [{"name": t.name, "kind": t.kind} for t in m.targets if t.default]
    listed = {t["name"]: t["kind"] for t in json.loads(p.stdout)}
    assert listed["6.12"] == "real" and listed["2.6.21"] == "shape", "shapes are listed as shapes"
    p = run_cli("matrix", "--list", "--target", "5.10")
    assert json.loads(p.stdout) == [{"name": "5.10", "kind": "real"}]
