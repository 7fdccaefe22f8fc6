"""The main job end to end on one real target, as a user runs it:
`retrofi.py matrix --targets 6.12` generates, builds, boots the backport in
QEMU and runs every guest test; the exit status, the table and the report
files all come from the parsed KTAP and agree with each other."""

import json
import os
import xml.etree.ElementTree as ET

import pytest

import retrofi_initramfs
import retrofi_kernels
import retrofi_matrix
from conftest import REPO, run_cli

GUEST_TESTS = ("backport_modules_are_loaded_from_updates", "compat_selftest",
               "compat_selftest_forced_api_2_6_26",
               "station_scan_lists_the_ap_ssid", "open_association_passes_traffic",
               "wpa2_psk_association_passes_traffic", "wpa3_sae_association_passes_traffic",
               "stack_reloads_10_times_then_associates",
               "ar5416_and_ar5418_resolve_to_ath9k_not_ath5k", "ar5212_resolves_to_ath5k",
               "ath9k_and_ath5k_load_and_unload_without_hardware")


@pytest.mark.network
def test_matrix_boots_6_12_and_every_guest_test_passes(tmp_path):
    out = tmp_path / "out"
    p = run_cli("matrix", "--targets", "6.12", "--out", str(out))
    print(p.stdout[-6000:], p.stderr[-3000:])
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]

    report = json.load(open(out / "report" / "report.json"))
    (row,) = report["targets"]
    assert (row["target"], row["kind"], row["build"], row["boot"], row["ok"]) == \
        ("6.12", "real", "ok", "pass", True)
    names = [t["name"] for t in row["tests"]]
    assert names == list(GUEST_TESTS)
    assert all(t["status"] == "pass" for t in row["tests"]), "no guest test may fail or skip"
    for log in ("build", "console"):
        assert os.path.isfile(row["logs"][log])
    console = open(row["logs"]["console"], errors="replace").read()
    assert "retrofi compat: version" in console

    # The table on the terminal says the same.
    line = next(l for l in p.stdout.splitlines() if l.startswith("6.12 "))
    assert line.split()[:7] == ["6.12", "real", "ok", "pass", str(len(GUEST_TESTS)), "0", "0"]
    suite = ET.parse(out / "report" / "junit.xml").getroot()[0]
    assert suite.get("tests") == str(len(GUEST_TESTS) + 2) and suite.get("failures") == "0"

    # Cached stages: the second initramfs of unchanged inputs is the same file.
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    kt = retrofi_kernels.fetch(m, ["6.12"], with_source=False).targets["6.12"]
    build_dir = next(l for l in open(row["logs"]["build"]).read().splitlines()
                     if l.startswith("$ make -C ")).split()[3]
    again = retrofi_initramfs.build(kt, build_dir)
    assert again.reused and again.size < 24 << 20


def test_unknown_target_is_refused_before_any_work(tmp_path):
    p = run_cli("matrix", "--targets", "6.12 9.9", "--out", str(tmp_path / "out"))
    assert p.returncode == 1
    assert "unknown target '9.9'" in p.stderr and "6.12, 6.1" in p.stderr
    assert not (tmp_path / "out").exists()


def test_list_prints_the_selection_as_json(tmp_path):
    p = run_cli("matrix", "--list")
    assert p.returncode == 0
    assert json.loads(p.stdout) == [{"name": "6.12", "kind": "real"}, {"name": "6.1", "kind": "real"}]
    p = run_cli("matrix", "--list", "--target", "5.10")
    assert json.loads(p.stdout) == [{"name": "5.10", "kind": "real"}]
