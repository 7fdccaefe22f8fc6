"""Every option the tree offers builds on every kernel line: the output
tree with defconfigs/all (every driver, every option a defconfig may set;
see test_config_all.py) built against each real target of the default
source (the generic flavour: one per kernel line, 7.2 included) and each
default API shape, like backports' CI builds allyesconfig beside its
defconfig.  A build passes with no error and no warning, and only when
the objects of every option that is on were compiled.

The targets come from kernel-matrix.yaml; RETROFI_OPTIONS_TARGETS picks
the share a run builds: "ends" (the default; `make check`) the oldest and
the newest real default target, "rest" every other one (the workflow's
options job), "all" every one (`make check-options`).  A build goes
through the build stage's content-keyed cache, so a run that already
built the tree with defconfig-all for a target reuses it."""

import os
import re
import subprocess
import time

import pytest
import yaml

import retrofi_generate
import retrofi_kernels
import retrofi_matrix
import retrofi_selection
from conftest import REPO, shared_build

JOBS = int(os.environ.get("RETROFI_JOBS", "2"))
SHARES = ("ends", "rest", "all")
SHARE_VAR = "RETROFI_OPTIONS_TARGETS"


def kernel_line(target):
    """A real target's kernel line ("5.10"), from its ABI pattern."""
    m = re.match(r"^(\d+\.\d+)", target.abi)
    assert m, f"target {target.name}: abi {target.abi!r} names no kernel line"
    return m.group(1)


def options_targets(matrix, share):
    """The names of the targets the all-options build covers, in matrix
    order: share "all" is every real target of the selected source in the
    generic flavour and every default shape on a real base; "ends" the
    oldest and newest real default target; "rest" the others."""
    if share not in SHARES:
        raise ValueError(f"{SHARE_VAR}={share!r}: not a share of the all-options targets; "
                         f"fix: use one of {', '.join(SHARES)}")
    reals = [t for t in matrix.targets if t.kind == "real" and t.flavour == "amd64"
             and matrix.source_of(t) == matrix.source]
    shapes = [t for t in matrix.targets if t.kind == "shape" and t.default
              and matrix.real_target(t) in reals]
    ends = matrix.ends()
    every = [t.name for t in matrix.targets if t in reals or t in shapes]
    return [n for n in every if share == "all" or (n in ends) == (share == "ends")]


MATRIX = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
SHARE = os.environ.get(SHARE_VAR, "ends")
TARGETS = options_targets(MATRIX, SHARE)


def share_defconfig(share, tree):
    """The defconfig a share builds: `make check`'s ends the stack's every
    option without the vendor drivers (defconfigs/all-stack, where the tree
    has it: their objects would cost its budget more than it has), every
    other share defconfigs/all."""
    if share == "ends" and os.path.isfile(os.path.join(tree, "defconfigs", "all-stack")):
        return "all-stack"
    return "all"


@pytest.fixture(scope="module")
def tree(fetched, tmp_path_factory):
    return retrofi_generate.generate(fetched.source, str(tmp_path_factory.mktemp("out"))).out_path


def option_objects(tree):
    """{option: [(object, module)]} of the Kbuild lines
    `x-$(RETROFI_CONFIG_O) += a.o b.o`: the module is x.ko where x is a
    module (obj-... += x.o), a.ko itself for obj-, and None where x is a
    list that a module of the directory takes in (rc80211_minstrel-y)."""
    lines, modules = [], set()
    for root, _, files in os.walk(tree):
        if "Kbuild" not in files:
            continue
        with open(os.path.join(root, "Kbuild")) as f:
            text = f.read().replace("\\\n", " ")
        for m in re.finditer(r"^obj-\S*\s*[:+]?=\s*(.*)$", text, re.M):
            modules.update(os.path.relpath(os.path.join(root, o[:-2] + ".ko"), tree)
                           for o in m.group(1).split() if o.endswith(".o"))
        for m in re.finditer(r"^(\S+)-\$\(RETROFI_CONFIG_(\w+)\)\s*\+=\s*(.*)$", text, re.M):
            lines += [(root, m.group(1), m.group(2), o) for o in m.group(3).split()
                      if o.endswith(".o")]
    out = {}
    for root, prefix, option, o in lines:
        module = os.path.relpath(os.path.join(root, (o[:-2] if prefix == "obj" else prefix) + ".ko"),
                                 tree)
        out.setdefault(option, []).append((os.path.join(root, o),
                                           module if module in modules else None))
    return out


def config_values(built):
    with open(os.path.join(built, "include", "retrofi", "config.mk")) as f:
        return dict(re.findall(r"^RETROFI_CONFIG_(\w+) := ([^\s#]+)", f.read(), re.M))


def test_the_targets_are_every_kernel_line_and_make_check_builds_the_two_ends():
    assert options_targets(MATRIX, "all") == ["7.3", "6.12", "6.1", "5.10", "7.2", "2.6.21"]
    assert options_targets(MATRIX, "ends") == ["7.3", "5.10"]
    assert options_targets(MATRIX, "rest") == ["6.12", "6.1", "7.2", "2.6.21"]
    with pytest.raises(ValueError, match=r"RETROFI_OPTIONS_TARGETS='some'.*fix: use one of ends"):
        options_targets(MATRIX, "some")


def test_make_check_builds_the_two_ends_and_the_workflow_every_other_line():
    with open(os.path.join(REPO, "Makefile")) as f:
        make = f.read()
    check = make[make.index("\ncheck: "):].split("\n\n")[0]
    assert "RETROFI_OPTIONS_TARGETS=ends" in check and "tests/scripts" in check
    with open(os.path.join(REPO, ".github", "workflows", "matrix.yml")) as f:
        jobs = yaml.safe_load(f)["jobs"]
    runs = [s.get("run", "") for job in jobs.values() for s in job.get("steps", [])]
    assert "make check-options OPTIONS=rest" in runs
    ends, rest = options_targets(MATRIX, "ends"), options_targets(MATRIX, "rest")
    assert not set(ends) & set(rest) and sorted(ends + rest) == sorted(options_targets(MATRIX, "all"))


@pytest.mark.network
@pytest.mark.parametrize("name", TARGETS)
def test_every_offered_option_builds_without_a_warning(tree, name, tmp_path):
    target = MATRIX.target(name)
    real = MATRIX.real_target(target).name
    kernel = retrofi_kernels.fetch(MATRIX, [real], with_source=False).targets[real]
    level = target.api_level if target.kind == "shape" else ""
    started = time.monotonic()
    defconfig = share_defconfig(SHARE, tree)
    b = shared_build(tree, kernel, tmp_path, api_level=level, defconfig=defconfig, jobs=JOBS)
    print(f"all options, {name}: {b.summary()}; {time.monotonic() - started:.0f} s here")
    assert b.ok, b.reason + "\n" + "\n".join(b.warnings[:20])
    assert b.warnings == ()
    on = {k for k, v in config_values(b.tree).items() if v != ""}
    # The all configuration, as built: everything the tree offers on.
    assert {"ATH_TRACEPOINTS", "MAC80211_MESSAGE_TRACING", "ATH9K_DEBUGFS",
            "MAC80211_DEBUGFS", "ATH5K_TRACER", "ATH9K_TX99"} <= on
    # every module the configuration selects for this target (a driver whose
    # facility the target lacks, or whose code is not backported to it, is
    # off with a reason)
    sel = retrofi_selection.selection(b.tree)
    # Every part of a selected module that an option which is on adds (a
    # stack option such as NL80211_TESTMODE also adds parts to vendor
    # modules: those count where the vendor module is selected).
    rel = os.path.relpath
    dirs = {os.path.dirname(m) for m in sel.modules}
    parts = [rel(o, tree) for opt, objs in option_objects(tree).items() if opt in on
             for o, module in objs
             if module in sel.modules or (module is None and os.path.dirname(rel(o, tree)) in dirs)]
    assert {"net/mac80211/debugfs.o", "net/mac80211/rc80211_minstrel_ht_debugfs.o"} <= set(parts), \
        "the check reads the stack's optional parts"
    missing = [o for o in parts if not os.path.isfile(os.path.join(b.tree, o))]
    assert missing == [], "objects of options that are on, not built"
    assert sel.errors == () and sorted(b.modules) == sorted(sel.modules), (b.modules, sel)
    stack = [m for m in b.modules if os.path.basename(m)[:-3] in STACK]
    assert len(stack) == 9, b.modules
    # The vendor drivers: built where their family is on (since markers),
    # each chip module the guest list names among them.
    vendor = {os.path.basename(m)[:-3].replace("-", "_") for m in b.modules} - STACK - KUNIT
    # The tree's KUnit and the source's suites: where the option is on
    # (7.3 and newer), all three, else none.
    kunit = {os.path.basename(m)[:-3].replace("-", "_") for m in b.modules} & KUNIT
    assert kunit == (KUNIT if "RETROFI_KUNIT" in on else set()), (sorted(kunit), sorted(on))
    if defconfig == "all" and "MT76_CORE" in on:
        assert {"mt7921e", "mt7925e", "mt7921u", "mt76"} <= vendor, sorted(vendor)
    if defconfig == "all" and "RTW89_CORE" in on:
        assert {"rtw89_8852ae", "rtw89_core", "rtw89_pci"} <= vendor, sorted(vendor)
    if defconfig == "all" and "IWLWIFI" in on:
        assert {"iwlwifi", "iwlmvm", "iwlmld", "iwldvm"} <= vendor, sorted(vendor)
    if defconfig == "all" and "ATH12K" in on:
        assert {"ath10k_pci", "ath10k_usb", "ath11k_pci", "ath12k_wifi7"} <= vendor, \
            sorted(vendor)
    if defconfig == "all-stack" or not on & {"MT76_CORE", "RTW88_CORE", "RTW89_CORE",
                                             "ATH9K_HTC", "CARL9170", "IWLWIFI",
                                             "ATH10K", "ATH11K", "ATH12K"}:
        assert vendor == set(), sorted(vendor)


STACK = {"compat", "cfg80211", "mac80211", "mac80211_hwsim", "ath", "ath9k", "ath9k_hw",
         "ath9k_common", "ath5k"}
# kunit.ko (the source's lib/kunit) and the stack's KUnit suites
KUNIT = {"kunit", "cfg80211_tests", "mac80211_tests"}


def test_make_check_builds_the_stack_and_check_options_the_vendor_drivers(tmp_path):
    """The ends (`make check`) build defconfigs/all-stack, every other share
    defconfigs/all: all-stack is all without the vendor drivers and no
    option less."""
    tree = tmp_path
    (tree / "defconfigs").mkdir()
    assert share_defconfig("ends", str(tree)) == "all"
    (tree / "defconfigs" / "all-stack").write_text("")
    assert share_defconfig("ends", str(tree)) == "all-stack"
    assert share_defconfig("rest", str(tree)) == share_defconfig("all", str(tree)) == "all"
    d = os.path.join(REPO, "drivers", "out-tree-since-7.2", "defconfigs")
    lines = lambda n: {l for l in open(os.path.join(d, n)).read().splitlines()
                       if l and not l.startswith("#")}
    vendor = {"RETROFI_MT76=m", "RETROFI_RTW88=m", "RETROFI_RTW89=m", "RETROFI_ATH9K_HTC=m",
              "RETROFI_CARL9170=m", "RETROFI_IWLWIFI=m", "RETROFI_ATH10K=m",
              "RETROFI_ATH11K=m", "RETROFI_ATH12K=m"}
    assert lines("all") - lines("all-stack") == vendor
    assert lines("all-stack") <= lines("all")


@pytest.mark.network
def test_the_default_source_tree_offers_the_vendor_drivers_defconfigs(tree):
    """The default source's tree (7.2 overlay applied) lists the overlay's
    defconfigs beside the base ones, each with its one-line description."""
    p = subprocess.run(["make", "-s", "-C", tree, "list-defconfigs"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    rows = [l.split(None, 1) for l in p.stdout.splitlines() if l.startswith("defconfig-")]
    assert [r[0] for r in rows] == ["defconfig-all", "defconfig-all-stack", "defconfig-ath5k",
                                    "defconfig-ath9k", "defconfig-drivers", "defconfig-drivers-kunit",
                                    "defconfig-hwsim",
                                    "defconfig-wifi", "defconfig-wifi-kunit"]
    assert all(len(r) == 2 and r[1].strip() for r in rows), rows
