"""The report says exactly what ran: build-only rows never read as boots,
skipped guest tests are skips, and shards merge into one report."""

import json
import xml.etree.ElementTree as ET

import pytest

import retrofi_report as rr
from retrofi_errors import RetrofiError


def rows():
    return [
        rr.Row("6.12", "real", "ok", "pass", 41.0, tests=[
            rr.TestRow("hwsim_wpa2_psk", "pass"), rr.TestRow("hwsim_wpa3_sae", "skip", "no SAE")],
            accel="tcg", notes=["rerun under tcg: KVM internal error. Suberror: 1"]),
        rr.Row("6.1", "real", "ok", "fail", 30.0, reason="not ok 3 hwsim_open",
               tests=[rr.TestRow("hwsim_open", "fail", "ping lost 3/20")]),
        rr.Row("shape-2.6.26", "shape", "ok", "not run", 12.0),
        rr.Row("5.10", "real", "fail", "not run", 5.0, reason="error: foo"),
    ]


def test_table_marks_build_only_and_shape_rows_for_what_they_are():
    t = rr.table(rows())
    lines = t.splitlines()
    assert lines[0].split() == ["target", "kind", "build", "boot", "accel", "passed", "failed",
                                "skipped", "seconds"]
    shape = next(l for l in lines if l.startswith("shape-2.6.26"))
    assert shape.split()[:9] == ["shape-2.6.26", "shape", "ok", "not", "run", "-", "-", "-", "-"]
    assert next(l for l in lines if l.startswith("6.12 ")).split()[4:8] == ["tcg", "1", "0", "1"]
    assert "6.1: not ok 3 hwsim_open" in t and "5.10: error: foo" in t
    # A boot rerun under TCG after a fault of the machine says so on its row.
    assert "6.12: rerun under tcg: KVM internal error. Suberror: 1" in t


def test_a_row_judged_from_a_stored_boot_is_marked_in_the_table_and_the_json():
    r = rows()
    r[0].boot_reused = "2026-12-08T00:48:42Z"
    lines = rr.table(r).splitlines()
    assert next(l for l in lines if l.startswith("6.12 ")).split()[3] == "pass*"
    assert next(l for l in lines if l.startswith("6.1 ")).split()[3] == "fail"
    assert "* judged from the stored boot of the same kernel, initramfs and QEMU: no guest " \
        "ran in this run (RERUN=1 boots anew)" in lines
    assert rr.to_json(r)["targets"][0]["boot_reused"] == "2026-12-08T00:48:42Z"
    assert not any(l.startswith("* ") for l in rr.table(rows()).splitlines())
    boot = ET.fromstring(rr.junit(r)).find("testsuite/testcase[@name='boot']")
    assert boot.find("system-out").text == \
        "judged from the stored boot of 2026-12-08T00:48:42Z: no guest ran in this run"
    assert ET.fromstring(rr.junit(rows())).find("testsuite/testcase/system-out") is None


def test_only_a_passing_boot_with_no_failed_test_is_ok():
    r = rows()
    assert [x.ok for x in r] == [True, False, False, False]


def test_junit_counts_skips_as_skips_and_unbooted_as_skipped_boot():
    root = ET.fromstring(rr.junit(rows()))
    suites = {s.get("name"): s for s in root}
    s = suites["6.12 (real)"]
    assert (s.get("tests"), s.get("failures"), s.get("skipped")) == ("4", "0", "1")
    shape = suites["shape-2.6.26 (shape)"]
    boot = [c for c in shape if c.get("name") == "boot"][0]
    assert boot.find("skipped") is not None and boot.find("failure") is None
    assert suites["6.1 (real)"].get("failures") == "2"


def test_json_round_trips_and_shards_merge(tmp_path):
    a, b = rows()[:2], rows()[2:]
    for name, part in (("a", a), ("b", b)):
        rr.write(part, str(tmp_path / name))
    merged = rr.merge([str(tmp_path / "a" / "report.json"), str(tmp_path / "b" / "report.json")],
                      str(tmp_path / "all"))
    assert [r.target for r in merged] == ["6.12", "6.1", "shape-2.6.26", "5.10"]
    data = json.load(open(tmp_path / "all" / "report.json"))
    assert [t["ok"] for t in data["targets"]] == [True, False, False, False]
    assert data["targets"][0]["notes"] == ["rerun under tcg: KVM internal error. Suberror: 1"]
    assert ET.parse(tmp_path / "all" / "junit.xml").getroot().tag == "testsuites"


def test_report_names_the_accelerator_and_why(tmp_path):
    rr.write(rows(), str(tmp_path), accel={"name": "tcg", "reason": "KVM probe boot: no /dev/kvm"})
    data = json.load(open(tmp_path / "report.json"))
    assert data["accel"] == {"name": "tcg", "reason": "KVM probe boot: no /dev/kvm"}
    assert data["targets"][0]["accel"] == "tcg"


def test_merge_refuses_a_target_in_two_shards(tmp_path):
    rr.write(rows()[:1], str(tmp_path / "a"))
    rr.write(rows()[:1], str(tmp_path / "b"))
    with pytest.raises(RetrofiError) as e:
        rr.merge([str(tmp_path / "a" / "report.json"), str(tmp_path / "b" / "report.json")],
                 str(tmp_path / "all"))
    assert "appears in two shards" in e.value.what


def test_merge_refuses_what_is_not_a_report(tmp_path):
    (tmp_path / "x.json").write_text('{"hello": 1}')
    with pytest.raises(RetrofiError) as e:
        rr.merge([str(tmp_path / "x.json")], str(tmp_path / "all"))
    assert "not a retrofi report" in e.value.what
