"""Numbers the README quotes that code can produce: checked against that
code, so an edit on either side that leaves the other behind fails here.
(The census table and the sweep table are whole generated blocks:
test_census.py and test_sweep_table.py.)"""

import os
import re

import retrofi_api_census
import retrofi_matrix
import retrofi_selection
import retrofi_sweep_table
from conftest import REPO, wifi_tree

README = os.path.join(REPO, "README.md")
INIT = os.path.join(REPO, "tests", "guest", "init")


def readme():
    return open(README, encoding="utf-8").read()


def one(pattern, text=None):
    found = re.findall(pattern, text if text is not None else readme(), re.S)
    assert len(found) == 1, f"README.md: {pattern!r} found {len(found)} times, not once"
    return found[0]


def census_counts(level):
    rows = retrofi_api_census.api_census(REPO, level)
    return sum(1 for r in rows if r["status"] == "shimmed"), len(rows)


def test_the_census_counts_the_readme_quotes_are_the_census():
    shimmed, total = one(r"`make api-census LEVEL=6\.1` now counts (\d+) shimmed of\s+"
                         r"the (\d+) APIs newer than 6\.1")
    assert (int(shimmed), int(total)) == census_counts("6.1")


def test_the_row_the_readme_names_as_needing_no_shim_needs_none():
    level = one(r"where no shim is in force \(the ([0-9.]+) row\)")
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    assert m.target(level).kind == "real"
    assert census_counts(level)[0] == 0, f"the census shims APIs at {level}"


def test_the_stacks_module_count_is_the_wifi_defconfigs_and_the_guests(tmp_path):
    sel = retrofi_selection.selection(wifi_tree(str(tmp_path / "t")))
    names = sorted(os.path.basename(m)[:-3] for m in sel.modules)
    assert int(one(r"any of the stack's (\d+) modules missing")) == len(names)
    init = open(INIT, encoding="utf-8").read()
    assert sorted(one(r'\n\tstack="([a-z0-9_ ]+)"\n', init).split()) == names
    assert one(r"\(of the stack's (\d+) modules\)", init) == str(len(names))


def guest_tests():
    """The guest tests of the "tests" mode, in the order they run."""
    init = open(INIT, encoding="utf-8").read()
    body = init[init.index('\nelse\nrun_test '):init.index("\nfi\necho \"# retrofi guest")]
    names = re.findall(r"^(?:run_test|compat_selftest_nested) (\S+)", body, re.M)
    plan = int(one(r"\nPLAN=(\d+)\n", init))
    return names, plan


def test_the_readme_guest_test_table_lists_exactly_the_guest_tests():
    names, plan = guest_tests()
    assert len(names) == plan, "PLAN in tests/guest/init is not its number of tests"
    table = one(r"\| guest test \| proves \|\n\|---\|---\|\n(.*?)\n\n")
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
            assert cuts, f"README guest test {cell!r} names no guest test"
            listed += [p + last[cuts[0]:] for p in parts[:-1]] + [last]
    assert sorted(listed) == sorted(names)


def test_the_readme_sweep_row_counts_are_the_matrixs():
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    sweep_all = len(m.select([retrofi_matrix.SWEEP_ALL]))
    sweep = len(m.select([retrofi_matrix.SWEEP]))
    assert int(one(r"`cloud-amd64`: (\d+) rows pinned\.")) == sweep_all
    assert int(one(r"and of the newest major: (\d+) rows, ")) == sweep
    rows, builds = one(r"every served ABI and flavour: (\d+) rows, (\d+) of them builds")
    assert int(rows) == sweep_all
    # The builds: the sweep table's built rows.
    counts, _ = retrofi_sweep_table.parse(readme())
    assert int(builds) == int(re.search(r"(\d+) built with", counts).group(1))
