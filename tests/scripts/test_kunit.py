"""The source's own KUnit suites (net/wireless/tests, net/mac80211/tests)
run in a booted guest on the tree's kunit.ko, and every case counts.

No Debian kernel has CONFIG_KUNIT, so the tree builds the source's
lib/kunit as its own module where RETROFI_KUNIT=m (docs/kunit.md); the
defconfig that `make check` builds for its newest end (all-stack, through
test_all_options and the content-keyed build cache: one build serves both)
selects it with both suites. The guest (tests/guest/init, mode "kunit")
loads each test module and turns what KUnit printed into its subtests. The
suites and their cases must be exactly those the source declares, every
case (and parameter) passed: on the identity row there is no skip to
declare."""

import functools
import os

import pytest

import retrofi_boot
import retrofi_debversion
import retrofi_generate
import retrofi_initramfs
import retrofi_kernels
import retrofi_kunit
from conftest import shared_build
from test_all_options import JOBS, MATRIX, kernel_line, options_targets, share_defconfig

declared_suites = retrofi_kunit.declared_suites


def test_declared_suites_reads_names_and_cases_of_registered_suites(tmp_path):
    (tmp_path / "a.c").write_text(
        'static struct kunit_case a_cases[] = {\n\tKUNIT_CASE(x),\n'
        '\tKUNIT_CASE_PARAM(y, y_gen_params),\n\t{}\n};\n\n'
        'static struct kunit_suite a_suite = {\n\t.name = "alpha",\n'
        '\t.test_cases = a_cases,\n};\n\n'
        'static struct kunit_suite unused = {\n\t.name = "never",\n\t.test_cases = a_cases,\n};\n\n'
        'kunit_test_suite(a_suite);\n')
    assert declared_suites(str(tmp_path)) == {"alpha": 2}


def newest_end():
    """The newest of the two real targets `make check` builds all-stack for."""
    order = functools.cmp_to_key(lambda a, b: retrofi_debversion.compare(
        kernel_line(MATRIX.target(a)), kernel_line(MATRIX.target(b))))
    return max(options_targets(MATRIX, "ends"), key=order)


@pytest.mark.network
def test_the_sources_kunit_suites_pass_in_a_guest_on_the_trees_own_kunit(fetched, tmp_path):
    name = newest_end()
    tree = retrofi_generate.generate(fetched.source, str(tmp_path / "out")).out_path
    defconfig = share_defconfig("ends", tree)
    kernel = retrofi_kernels.fetch(MATRIX, [name], with_source=False).targets[name]
    b = shared_build(tree, kernel, tmp_path, defconfig=defconfig, jobs=JOBS)
    assert b.ok, b.reason
    built = {os.path.basename(m) for m in b.modules}
    assert {"kunit.ko", "cfg80211-tests.ko", "mac80211-tests.ko"} <= built, sorted(built)

    initrd = retrofi_initramfs.build(kernel, b.tree, selftest=False,
                                     config={"etc/retrofi-mode": "kunit\n"})
    log = tmp_path / "console.log"
    r = retrofi_boot.boot(kernel, initrd, str(log))
    ktap = r.ktap
    print(f"{name}: {r.status} ({r.reason}); {r.seconds:.0f} s")
    assert r.status == "pass", r.reason + "\n" + "\n".join(r.tail)
    assert [t.name for t in ktap.tests] == ["backport_modules_are_loaded_from_updates",
                                            "cfg80211_kunit_suites_pass",
                                            "mac80211_kunit_suites_pass"]
    expected = retrofi_kunit.expected_sets(fetched.source.path)
    for test in ktap.tests[1:]:
        module = test.name.split("_")[0]
        declared = expected[test.name]
        ran = {s.name: s for s in test.subtests.tests}
        assert sorted(ran) == sorted(declared), (sorted(ran), sorted(declared))
        for suite, cases in declared.items():
            s = ran[suite]
            assert s.status == "ok" and s.subtests is not None and s.subtests.complete, suite
            assert s.subtests.plan == cases == len(s.subtests.tests), suite
            # Each case passed, and each parameter of a parameterised one.
            leaves = [(c.name, p.name, p.status) for c in s.subtests.tests
                      for p in (c.subtests.tests if c.subtests else [c])]
            assert all(st == "ok" for _, _, st in leaves), [l for l in leaves if l[2] != "ok"]
            print(f"  {module}-tests {suite}: {len(s.subtests.tests)} cases, "
                  f"{len(leaves)} results passed")


def test_a_matrix_row_builds_wifi_kunit_exactly_where_the_trees_kunit_is_on(tmp_path, monkeypatch):
    """make matrix: a row whose target gets the tree's KUnit (every real
    target and every shape: RETROFI_KUNIT has no "since") builds the wifi
    selection with it, so its guest runs the suites; a tree without the
    defconfig and an explicit RETROFI_DEFCONFIG keep what they had."""
    import types
    import retrofi_run
    from test_dkms_modules import default_source_tree, stand_in_kernel
    monkeypatch.delenv("RETROFI_DEFCONFIG", raising=False)
    tree = default_source_tree(str(tmp_path / "tree"))
    wifi = open(os.path.join(tree, "defconfigs", "wifi")).read().splitlines()
    kunit = open(os.path.join(tree, "defconfigs", "wifi-kunit")).read().splitlines()
    assert [l for l in kunit if not l.startswith("#")] == \
        [l for l in wifi if not l.startswith("#")] + ["RETROFI_KUNIT=m"]
    k73, k610, k510, k419 = (types.SimpleNamespace(headers=stand_in_kernel(tmp_path / n, *v))
                             for n, v in (("k73", (7, 3)), ("k610", (6, 1)),
                                          ("k510", (5, 10)), ("k419", (4, 19))))
    assert retrofi_run.run_defconfig(tree, k73) == "wifi-kunit"
    assert retrofi_run.run_defconfig(tree, k610) == "wifi-kunit"
    assert retrofi_run.run_defconfig(tree, k510) == "wifi-kunit"
    assert retrofi_run.run_defconfig(tree, k419) == "wifi-kunit"
    # The shapes: their API level keeps KUnit (it builds at 2.6.21).
    assert retrofi_run.run_defconfig(tree, k73, api_level="2.6.21") == "wifi-kunit"
    assert retrofi_run.run_defconfig() == "wifi"
    monkeypatch.setenv("RETROFI_DEFCONFIG", "drivers")
    assert retrofi_run.run_defconfig(tree, k73) == "drivers"
    assert retrofi_run.run_defconfig(tree, k419, drivers=True) == "drivers"
    monkeypatch.delenv("RETROFI_DEFCONFIG")
    # The matrix's ends build every vendor driver in the same one build:
    # with the KUnit suites where they would have had wifi-kunit; a shape
    # on an end's kernel builds no driver (wifi-kunit).
    assert retrofi_run.run_defconfig(tree, k73, drivers=True) == "drivers-kunit"
    assert retrofi_run.run_defconfig(tree, k510, drivers=True) == "drivers-kunit"
    assert retrofi_run.run_defconfig(tree, k419, drivers=True) == "drivers-kunit"
    assert retrofi_run.run_defconfig(tree, k510, api_level="2.6.21", drivers=True) == \
        "wifi-kunit"
    os.unlink(os.path.join(tree, "defconfigs", "drivers-kunit"))
    assert retrofi_run.run_defconfig(tree, k73, drivers=True) == "drivers"
    os.unlink(os.path.join(tree, "defconfigs", "drivers"))
    assert retrofi_run.run_defconfig(tree, k73, drivers=True) == "wifi-kunit"
    os.unlink(os.path.join(tree, "defconfigs", "wifi-kunit"))
    assert retrofi_run.run_defconfig(tree, k73) == "wifi"


def test_a_target_with_its_own_kunit_gets_the_suites_built_against_it(tmp_path, monkeypatch):
    """A target whose .config has CONFIG_KUNIT (the debug rows' kernel) is
    still a KUnit row: the suites build, the tree's kunit.ko does not (its
    exports would clash with the kernel's), and the row says which KUnit
    ran them."""
    import types
    import retrofi_run
    from test_dkms_modules import default_source_tree, stand_in_kernel
    monkeypatch.delenv("RETROFI_DEFCONFIG", raising=False)
    tree = default_source_tree(str(tmp_path / "tree"))
    headers = stand_in_kernel(tmp_path / "k612", 6, 12)
    with open(os.path.join(headers, ".config"), "a") as f:
        f.write("CONFIG_KUNIT=y\n")
    k = types.SimpleNamespace(headers=headers)
    assert retrofi_run.run_defconfig(tree, k) == "wifi-kunit"
    assert retrofi_run.run_defconfig(tree, k, api_level="2.6.21") == "wifi-kunit"
    suites = ("net/wireless/tests/cfg80211-tests.ko", "net/mac80211/tests/mac80211-tests.ko")
    assert retrofi_kunit.provider(("compat/compat.ko",) + suites, headers) == \
        "the target's own (CONFIG_KUNIT=y; the tree builds no kunit.ko)"
    other = stand_in_kernel(tmp_path / "k61", 6, 1)
    assert retrofi_kunit.provider(("lib/kunit/kunit.ko",) + suites, other) == \
        "the tree's kunit.ko (the target has no CONFIG_KUNIT)"
    assert retrofi_kunit.provider(suites, other).startswith("none:")
    assert retrofi_kunit.provider(("compat/compat.ko",), headers) == ""


def test_the_default_matrix_builds_the_vendor_drivers_on_its_oldest_and_newest_real_row():
    """Matrix.ends(): the oldest and newest default real target of the
    selected source in the generic flavour, by kernel line, and every
    build-only row of the sweep build the vendor drivers, no other row; the
    drivers defconfig with KUnit is the drivers one plus RETROFI_KUNIT=m."""
    from test_all_options import MATRIX
    import retrofi_run
    assert MATRIX.ends() == {"7.3", "5.10"}
    builds = {t.name for t in MATRIX.select(["all"]) + MATRIX.select(["sweep"])
              if retrofi_run.builds_drivers(MATRIX, t)}
    sweep = {t.name for t in MATRIX.select(["sweep"])}
    assert builds == {"7.3", "5.10"} | sweep and len(sweep) > 10
    import retrofi_matrix
    only = retrofi_matrix.Matrix(MATRIX.path, MATRIX.source,
                                 tuple(t for t in MATRIX.targets if t.name == "6.1"))
    assert only.ends() == {"6.1"}
    assert retrofi_matrix.Matrix(MATRIX.path, MATRIX.source, ()).ends() == frozenset()
    d = os.path.join(retrofi_generate.REPO, "drivers", "out-tree-since-7.2", "defconfigs")
    lines = {n: [l for l in open(os.path.join(d, n)).read().splitlines()
                 if l and not l.startswith("#")] for n in ("drivers", "drivers-kunit")}
    assert lines["drivers-kunit"] == lines["drivers"] + ["RETROFI_KUNIT=m"]


def test_a_row_that_ran_another_set_of_suites_than_the_source_declares_fails():
    """Every row is held to the source's set (the identity row's): KUnit's
    own KTAP checks only each suite against its plan, so a suite a row
    never built, or one short of its cases, is caught against the
    declarations in the tree."""
    import retrofi_boot
    import retrofi_run
    from test_ktap import KUNIT
    ktap = retrofi_boot.judge(KUNIT % ("ok", "ok", "ok", "ok"))[2]
    # What the KTAP shows: one suite of two cases.
    right = {"cfg80211_kunit_suites_pass": {"cfg80211-inform-bss": 2}}
    (row,) = retrofi_run._test_rows(ktap, (), right)
    assert row.status == "pass", row.detail
    for declared, said in (
            ({"cfg80211-inform-bss": 2, "cfg80211-scan-6ghz": 9},
             "suite cfg80211-scan-6ghz did not run"),
            ({"cfg80211-inform-bss": 3}, "suite cfg80211-inform-bss ran 2 cases, "
             "the source declares 3"),
            ({}, "suite cfg80211-inform-bss is not one the source declares")):
        (row,) = retrofi_run._test_rows(ktap, (), {"cfg80211_kunit_suites_pass": declared})
        assert row.status == "fail" and said in row.detail, row.detail
    # A row whose build made no suites is not judged by them.
    (row,) = retrofi_run._test_rows(ktap, (), {})
    assert row.status == "pass"


@pytest.mark.network
def test_the_expected_set_is_what_the_source_declares(fetched):
    """The declarations the rows are held to, read from the source: five
    cfg80211 suites, six mac80211 ones, and iwlwifi's three, iwlmvm's one
    and iwlmld's eight; a tree without the suite directories holds its rows
    to nothing."""
    sets = retrofi_kunit.expected_sets(fetched.source.path)
    assert sorted(sets) == ["cfg80211_kunit_suites_pass", "iwlmld_kunit_suites_pass",
                            "iwlmvm_kunit_suites_pass", "iwlwifi_kunit_suites_pass",
                            "mac80211_kunit_suites_pass"]
    assert sorted(sets["iwlwifi_kunit_suites_pass"]) == [
        "iwl-average-db", "iwlwifi-devinfo", "iwlwifi-nvm_flags"]
    assert sets["iwlmvm_kunit_suites_pass"] == {"iwlmvm-hcmd-names": 1}
    assert len(sets["iwlmld_kunit_suites_pass"]) == 8
    assert sorted(sets["cfg80211_kunit_suites_pass"]) == [
        "cfg80211-chandef", "cfg80211-element-defragmentation", "cfg80211-ie-generation",
        "cfg80211-inform-bss", "cfg80211-scan-6ghz"]
    assert len(sets["mac80211_kunit_suites_pass"]) == 6
    assert retrofi_kunit.expected_sets(os.path.join(fetched.source.path, "Documentation")) == {}
