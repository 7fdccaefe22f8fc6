"""The probes, not the version, choose the shims: on the oldest and the
newest ABI the archive serves of one major (6.1), the compat headers and
the rewritten code take the target's own API exactly where its headers have
it. No build: compat/probe.sh on each header tree, then the preprocessor
alone on a tiny file, as the output tree compiles it."""

import os
import re
import shutil
import subprocess

import pytest

import retrofi_debversion
import retrofi_kernels
import retrofi_matrix
from conftest import REPO
from test_compat import probe_value, rewritten_by_timer_rule

FAMILY = "all-6.1"

# A caller of each probed API whose choice is checked; the timer teardown
# is semantic-patches/0001-timer-shutdown's output (rewritten_by_timer_rule).
LIST_CALLER = """
size_t retrofi_decide_count(struct list_head *h);
size_t retrofi_decide_count(struct list_head *h)
{
	return list_count_nodes(h);
}
"""


@pytest.fixture(scope="module")
def oldest_and_newest():
    """The oldest and the newest generic (amd64) ABI of the 6.1 family, as
    pinned in kernel-matrix.lock, with their headers fetched."""
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    rows = sorted((t for t in m.targets if t.family == FAMILY
                   and t.flavour == m.family(FAMILY).flavours[0]),
                  key=lambda t: retrofi_debversion.sort_key(t.version))
    assert len(rows) >= 2, f"family {FAMILY} has {len(rows)} pinned ABIs: run make kernels-update"
    k = retrofi_kernels.fetch(m, [rows[0].name, rows[-1].name], with_source=False).targets
    return k[rows[0].name], k[rows[-1].name]


def target_has(kt, header, declaration):
    """Whether the target's own header (its -common tree) has a declaration."""
    src = os.path.join(kt.root, "usr", "src")
    for d in os.listdir(src):
        path = os.path.join(src, d, "include", header)
        if d.endswith("-common") and os.path.exists(path):
            return re.search(declaration, open(path).read()) is not None
    raise AssertionError(f"no {header} in {src}")


def decisions(kt, tmp_path, code):
    """What the output tree's headers choose against kt: probe.sh writes
    probes.h, then `make <file>.i` preprocesses code as every file of the
    tree is (compat headers first, retrofi/version.h force-included).
    Returns (probes.h, {api: "own" | "shim"})."""
    tree = tmp_path / kt.name
    shutil.copytree(os.path.join(REPO, "include"), tree / "include")
    shutil.copy(os.path.join(REPO, "drivers", "out-tree", "include", "retrofi", "version.h"),
                tree / "include" / "retrofi" / "version.h")
    probes = tree / "include" / "retrofi" / "probes.h"
    cc = [f"CC={kt.cc}"] if kt.cc else []
    p = subprocess.run(["sh", os.path.join(REPO, "compat", "probe.sh"), kt.headers,
                        os.path.join(REPO, "compat", "probes.list"), str(probes)] + cc,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    (tree / "decide.c").write_text(code + LIST_CALLER)
    (tree / "Kbuild").write_text("obj-m += decide.o\n")
    flags = f"-I{tree}/include -include {tree}/include/retrofi/version.h"
    p = subprocess.run(["make", "-C", kt.headers, f"M={tree}", f"NOSTDINC_FLAGS={flags}",
                        "decide.i"] + cc, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout[-3000:]
    out = (tree / "decide.i").read_text()
    count = re.search(r"return (\w+)\(h\);", out).group(1)
    teardown = re.findall(r"\b(timer_shutdown_sync|del_timer_sync)\(&t\)", out)
    assert count in ("list_count_nodes", "backport_list_count_nodes"), count
    assert len(teardown) == 1, teardown
    return probes.read_text(), {
        "list_count_nodes": "own" if count == "list_count_nodes" else "shim",
        "timer_shutdown": "own" if teardown[0] == "timer_shutdown_sync" else "shim"}


@pytest.mark.network
def test_the_probes_not_the_version_choose_the_shims_on_two_abis_of_one_major(oldest_and_newest,
                                                                            tmp_path):
    old, new = oldest_and_newest
    code = rewritten_by_timer_rule(tmp_path)
    chosen = {}
    for kt in (old, new):
        probes, chosen[kt.name] = decisions(kt, tmp_path, code)
        has = {"list_count_nodes": target_has(kt, "linux/list.h",
                                              r"size_t list_count_nodes\(struct list_head"),
               "timer_shutdown": target_has(kt, "linux/timer.h",
                                            r"extern int timer_shutdown_sync\(struct timer_list")}
        for api, present in has.items():
            assert probe_value(probes, api) == int(present), (kt.name, api)
            assert chosen[kt.name][api] == ("own" if present else "shim"), \
                f"{kt.name} ({kt.version}): the headers {'have' if present else 'lack'} " \
                f"{api}, but the tree chose the {chosen[kt.name][api]} one"
    # The premise: one major, two ABIs, and the stable backport of
    # list_count_nodes() (6.1.191) between them.
    assert old.version.split(".")[:2] == new.version.split(".")[:2]
    assert chosen[old.name]["list_count_nodes"] == "shim", chosen
    assert chosen[new.name]["list_count_nodes"] == "own", chosen
