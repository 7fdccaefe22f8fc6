"""Numbers and output the README and the manual (docs/) quote that code
can produce: checked against that code, so an edit on either side that
leaves the other behind fails here.  (The census table of docs/compat.md
and the sweep table of docs/sweep.md are whole generated blocks:
test_census.py and test_sweep_table.py; the fault table of docs/faults.md
is test_faults.py's.)"""

import json
import os
import re
import tempfile

import retrofi_api_census
import retrofi_matrix
import retrofi_selection
import retrofi_sweep_table
import test_retrofi_status as status
from conftest import REPO, wifi_tree

INIT = os.path.join(REPO, "tests", "guest", "init")
# Where each quoted figure lives.
README = "README.md"
TESTING = "docs/testing.md"   # the guest tests
COMPAT = "docs/compat.md"     # the census counts
SWEEP = "docs/sweep.md"       # the sweep's rows
USERS = "docs/users.md"       # the release tarball


def page(name):
    return open(os.path.join(REPO, name), encoding="utf-8").read()


def one(pattern, where):
    """The one match of pattern in the page where (or in a text: where=(name, text))."""
    name, text = where if isinstance(where, tuple) else (where, page(where))
    found = re.findall(pattern, text, re.S)
    assert len(found) == 1, f"{name}: {pattern!r} found {len(found)} times, not once"
    return found[0]


def census_counts(level):
    rows = retrofi_api_census.api_census(REPO, level)
    return sum(1 for r in rows if r["status"] == "shimmed"), len(rows)


def test_the_census_counts_the_docs_quote_are_the_census():
    shimmed, total = one(r"`make api-census LEVEL=6\.1` now counts (\d+) shimmed of\s+"
                         r"the (\d+) APIs newer than 6\.1", COMPAT)
    assert (int(shimmed), int(total)) == census_counts("6.1")


def test_the_row_the_docs_name_as_needing_no_shim_needs_none():
    level = one(r"where no shim is in force \(the ([0-9.]+) row\)", TESTING)
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    assert m.target(level).kind == "real"
    assert census_counts(level)[0] == 0, f"the census shims APIs at {level}"


def test_the_stacks_module_count_is_the_wifi_defconfigs_and_the_guests(tmp_path):
    sel = retrofi_selection.selection(wifi_tree(str(tmp_path / "t")))
    names = sorted(os.path.basename(m)[:-3] for m in sel.modules)
    assert int(one(r"any of the stack's (\d+) modules missing", TESTING)) == len(names)
    init = ("tests/guest/init", open(INIT, encoding="utf-8").read())
    assert sorted(one(r'\n\tstack="([a-z0-9_ ]+)"\n', init).split()) == names
    assert one(r"\(of the stack's (\d+) modules\)", init) == str(len(names))


def guest_tests():
    """The guest tests of the "tests" mode, in the order they run."""
    init = open(INIT, encoding="utf-8").read()
    body = init[init.index('\nelse\nrun_test '):init.index("\nfi\necho \"# retrofi guest")]
    # A test may run or SKIP under a condition (indented, named twice).
    names = list(dict.fromkeys(re.findall(
        r"^\t?(?:run_test|compat_selftest_nested|skip_test) (\S+)", body, re.M)))
    plan = int(one(r"\nPLAN=(\d+)\n", ("tests/guest/init", init)))
    # The vendor drivers' tests run only for a build that made one (their
    # own PLAN increment; docs/vendor-drivers.md documents them).
    vendor = re.search(r'\nif \[ -n "\$\(driver_id_lines\)" \]; then\n(.*?)\nelse\n', body, re.S)
    assert vendor, "tests/guest/init: the vendor drivers' tests are not where expected"
    extra = re.findall(r"^\trun_test (\S+)", vendor.group(1), re.M)
    assert int(one(r'\|\| PLAN=\$\(\(PLAN \+ (\d+)\)\)\n', ("tests/guest/init", init))) == len(extra)
    return [n for n in names if n not in extra], plan


def kunit_guest_tests():
    """The KUnit suites' tests: one per test module the build made (their
    own PLAN increment), named after the module."""
    init = open(INIT, encoding="utf-8").read()
    modules = one(r"\nkunit_suite_modules\(\) \{\n\tfor m in ([a-z0-9 -]+); do\n",
                  ("tests/guest/init", init)).split()
    assert '\t\tkunit_suites_nested "${m%-tests}_kunit_suites_pass" "$m"\n' in init
    assert '\nif [ -n "$KUNIT_MODULES" ]; then\n\trun_kunit_suites\n' in init
    return [m[:-len("-tests")] + "_kunit_suites_pass" for m in modules]


def test_the_docs_guest_test_table_lists_exactly_the_guest_tests():
    names, plan = guest_tests()
    assert len(names) == plan, "PLAN in tests/guest/init is not its number of tests"
    names += kunit_guest_tests()
    table = one(r"\| guest test \| proves \|\n\|---\|---\|\n(.*?)\n\n", TESTING)
    listed = []
    for cells in (row.split(" | ")[0].strip("| ") for row in table.splitlines()):
        for cell in cells.split(", "):
            parts = cell.split("/")
            if len(parts) == 1:
                listed.append(cell)
                continue
            # "open/wpa2_psk/wpa3_sae_association_passes_traffic": the
            # last part's suffix is shared.
            last = parts[-1]
            cuts = [i for i, c in enumerate(last) if c == "_"
                    and all(p + last[i:] in names for p in parts[:-1])]
            assert cuts, f"{TESTING}: guest test {cell!r} names no guest test"
            listed += [p + last[cuts[0]:] for p in parts[:-1]] + [last]
    assert sorted(listed) == sorted(names)


def test_the_docs_sweep_row_counts_are_the_matrixs():
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    sweep_all = len(m.select([retrofi_matrix.SWEEP_ALL]))
    sweep = len(m.select([retrofi_matrix.SWEEP]))
    assert int(one(r"`cloud-amd64`: (\d+) rows pinned\.", SWEEP)) == sweep_all
    assert int(one(r"and of the newest major: (\d+) rows, ", SWEEP)) == sweep
    rows, builds = one(r"every served ABI and flavour: (\d+) rows, (\d+) of them builds", SWEEP)
    assert int(rows) == sweep_all
    # The builds: the sweep table's built rows.
    counts, _ = retrofi_sweep_table.parse(page(SWEEP))
    assert int(builds) == int(re.search(r"(\d+) built with", counts).group(1))


def test_the_readme_retrofi_status_sample_is_what_it_prints():
    """The README's sample is retrofi-status's whole output on the fake
    machine of its test (retrofi's stack and an ath9k card loaded)."""
    with tempfile.TemporaryDirectory() as root:
        m = status.Machine(root)
        status.backport(m)
        m.secure_boot(on=True, enrolled=True)
        m.dmesg = "[    2.1] ath9k 0000:00:05.0: enabling device\n"
        rc, out, _ = m.run()
    assert rc == 0, out
    sample = one(r"\n```\n(kernel {6}.*?\n)```\n", README)
    assert sample == out, "the README's retrofi-status sample is not what it prints"


def default_source_version():
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    with open(os.path.join(REPO, "kernel-matrix.lock"), encoding="utf-8") as f:
        entry = json.load(f)["entries"][m.source.key]
    (pkg,) = [p for p in entry["packages"] if p["name"].startswith("linux-source-")]
    return pkg["version"]


def test_the_release_tarball_the_user_pages_name_is_the_default_sources():
    """The tarball a user is told to unpack carries the pinned version of
    the default source (make release names it so)."""
    version = default_source_version()
    for name in (README, USERS):
        found = re.findall(r"retrofi-(\d[^\s`/]*?)\.tar\.xz", page(name))
        found += re.findall(r"\bcd retrofi-(\d\S*)", page(name))
        assert found, f"{name} names no release tarball"
        assert set(found) == {version}, f"{name} names {sorted(set(found))}, the release is {version}"
