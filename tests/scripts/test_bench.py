"""`make bench`: its smoke mode (a tiny synthetic project, real spatch and
make, no kernels or QEMU) measured end to end, and the judging of figures
against their goals."""

import json
import os
import subprocess

import pytest

import retrofi_bench as bench

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(REPO, "scripts", "retrofi_bench.py")


def smoke(results, tmp_path):
    return subprocess.run(["/usr/bin/python3", SCRIPT, "--smoke", "--results-dir", str(results),
                           "--work-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)


def test_smoke_bench_measures_every_figure_and_compares_with_the_previous_result(tmp_path):
    results = tmp_path / "results"
    first = smoke(results, tmp_path)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr
    [name] = os.listdir(results)
    assert name.endswith("-smoke.json")
    data = json.load(open(results / name))
    figs = {f["key"]: f for f in data["figures"]}
    assert set(figs) == {"generate_cold_s", "generate_cold_vs_floor", "generate_warm_s",
                         "build_vs_plain", "build_cpu_vs_plain", "incremental_vs_plain",
                         "build_drivers_vs_stack", "boot_tests_s",
                         "matrix_warm_s", "matrix_cold_s"}
    for key in ("generate_cold_s", "generate_cold_vs_floor", "generate_warm_s",
                "build_vs_plain", "build_cpu_vs_plain", "incremental_vs_plain"):
        f = figs[key]
        assert f["value"] > 0, f
        assert f["met"] == (f["value"] <= f["goal"]), f
    # The cold run computed every (rule, file) result, the warm one none.
    assert "0 spatch results computed" in figs["generate_warm_s"]["detail"]
    assert " 0 (rule, file)" not in figs["generate_cold_s"]["detail"]
    for key in ("build_drivers_vs_stack", "boot_tests_s", "matrix_warm_s", "matrix_cold_s"):
        assert figs[key]["value"] is None and figs[key]["met"] is None
    assert len(data["load_before"]) == 3 and data["previous"] is None
    assert "generation, warm" in first.stdout and "<= 1.5 s" in first.stdout

    second = smoke(results, tmp_path)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr
    # A second run the same day writes a file of its own: the first stays.
    name2 = name[:-len(".json")] + ".2.json"
    assert sorted(os.listdir(results)) == sorted([name, name2])
    assert json.load(open(results / name)) == data
    data2 = json.load(open(results / name2))
    assert data2["previous"] == name
    # The previous column shows the first run's value.
    row = next(l for l in second.stdout.splitlines() if l.startswith("generation, warm"))
    assert bench._fmt(figs["generate_warm_s"]["value"], "s") in row.split("<=")[1]
    assert [n for n in os.listdir(tmp_path) if n.startswith("retrofi-bench-")] == []

    third = smoke(results, tmp_path)
    assert third.returncode == 0, third.stdout[-3000:] + third.stderr
    assert json.load(open(results / (name[:-len(".json")] + ".3.json")))["previous"] == name2


def test_a_figure_over_its_goal_is_not_met_and_the_table_says_so():
    over = bench.Figure("generate_warm_s", 1.6)
    under = bench.Figure("build_vs_plain", 1.04)
    missing = bench.Figure("matrix_warm_s", None, "not run (smoke mode)")
    assert (over.met, under.met, missing.met) == (False, True, None)
    lines = bench.table([over, under, missing], {"generate_warm_s": 0.5}).splitlines()
    assert lines[2].split()[2:7] == ["1.6", "s", "<=", "1.5", "s"] and " NO " in lines[2]
    assert " yes " in lines[3] and " not run " in lines[4]
    assert "0.5 s" in lines[2]
    assert lines[-1] == "1 of 2 measured goals met; 1 not run"


def test_per_target_boot_figures_come_from_the_report_rows():
    rows = [{"target": "6.12", "boot": "pass", "accel": "tcg", "seconds": 95.0,
             "stages": {"build": 3.0, "initramfs": 2.0, "boot": 4.1, "tests": 80.0}},
            {"target": "6.1", "boot": "not run", "seconds": 5.0, "stages": {"build": 5.0}}]
    a, b = bench.boot_figures(rows)
    assert a.key == "boot_tests_s:6.12" and a.value == pytest.approx(90.0) and a.met is False
    assert "to /init 4.1 s, tests 80.0 s" in a.detail and a.name.endswith("6.12 (TCG)")
    assert b.value is None


def test_every_source_has_its_own_generation_figures_held_to_the_same_goals():
    g = {"cold": 13.0, "warm": 1.0, "floor": 10.0, "files": 348, "spatch_runs": 2900,
         "warm_runs": 0}
    selected = bench.generation_figures(g)
    newest = bench.generation_figures(dict(g, cold=12.5), "newest")
    assert [f.key for f in selected] == ["generate_cold_s", "generate_cold_vs_floor",
                                         "generate_warm_s"]
    assert [f.key for f in newest] == ["generate_cold_s:newest", "generate_cold_vs_floor:newest",
                                       "generate_warm_s:newest"]
    ratio = newest[1]
    assert ratio.name == "generation cold / floor (1 spatch --jobs per rule), source newest"
    assert ratio.value == pytest.approx(1.25) and ratio.goal == 1.2 and ratio.met is False
    assert selected[1].met is False and selected[2].met is True
    table = bench.table(selected + newest)
    assert "source newest" in table and table.splitlines()[-1] == "2 of 6 measured goals met"


def test_a_corrupt_previous_result_is_one_clear_error_and_nothing_is_written(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "2026-01-01-x.json").write_text("{not json")
    p = smoke(results, tmp_path)
    assert p.returncode == 2
    assert "2026-01-01-x.json: not a bench result" in p.stderr and "fix:" in p.stderr
    assert os.listdir(results) == ["2026-01-01-x.json"]


def test_the_plain_build_uses_the_source_of_the_kernels_own_line():
    """The plain make M= of upstream files builds only on headers of their
    own line: against 6.12's headers the 6.12 source, never the newest."""
    import types
    kernel = types.SimpleNamespace(version="6.12.118-1~deb12u1")
    assert bench._same_line(types.SimpleNamespace(version="6.12.118-1~deb12u1"), kernel)
    assert not bench._same_line(types.SimpleNamespace(version="7.3.4-1~bpo13+1"), kernel)
    assert not bench._same_line(types.SimpleNamespace(version="6.1.158-1"), kernel)
