"""Every option the tree offers builds on every target: the output tree
with defconfigs/all (every driver, every option a defconfig may set; see
tests/scripts/test_config_all.py) built against each real default target
and the 2.6.21 shape, like backports' CI builds allyesconfig beside its
defconfig.  A build passes with no error and no warning, and only when the
objects of every option that is on were compiled."""

import os
import re
import time

import pytest

import retrofi_build
import retrofi_generate
import retrofi_kernels
import retrofi_matrix
from conftest import REPO

# The real default targets and the 2.6.21 shape (on its base, 5.10).
TARGETS = ["5.10", "2.6.21", "6.1", "6.12"]
JOBS = int(os.environ.get("RETROFI_JOBS", "2"))


@pytest.fixture(scope="module")
def matrix():
    return retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))


@pytest.fixture(scope="module")
def kernels(matrix):
    return retrofi_kernels.fetch(matrix, TARGETS)


@pytest.fixture(scope="module")
def tree(kernels, tmp_path_factory):
    return retrofi_generate.generate(kernels.source,
                                     str(tmp_path_factory.mktemp("out"))).out_path


def option_objects(tree):
    """{option: [objects]} of the Kbuild lines `x-$(RETROFI_CONFIG_O) += a.o b.o`."""
    out = {}
    for root, _, files in os.walk(tree):
        if "Kbuild" not in files:
            continue
        with open(os.path.join(root, "Kbuild")) as f:
            text = f.read().replace("\\\n", " ")
        for m in re.finditer(r"^\S+-\$\(RETROFI_CONFIG_(\w+)\)\s*\+=\s*(.*)$", text, re.M):
            objs = [os.path.join(root, o) for o in m.group(2).split() if o.endswith(".o")]
            out.setdefault(m.group(1), []).extend(objs)
    return out


def config_values(built):
    with open(os.path.join(built, "include", "retrofi", "config.mk")) as f:
        return dict(re.findall(r"^RETROFI_CONFIG_(\w+) := ([^\s#]+)", f.read(), re.M))


@pytest.mark.parametrize("name", TARGETS)
def test_every_offered_option_builds_without_a_warning(matrix, kernels, tree, name, tmp_path):
    target = matrix.target(name)
    kernel = kernels.targets[matrix.real_target(target).name]
    level = target.api_level if target.kind == "shape" else ""
    started = time.monotonic()
    b = retrofi_build.build(tree, kernel, str(tmp_path / "build.log"), api_level=level,
                            defconfig="all", jobs=JOBS)
    print(f"all options, {name}: {b.summary()}; {time.monotonic() - started:.0f} s here")
    assert b.ok, b.reason + "\n" + "\n".join(b.warnings[:20])
    assert b.warnings == ()
    on = {k for k, v in config_values(b.tree).items() if v != ""}
    # The all configuration, as built: everything the tree offers on.
    assert {"ATH_TRACEPOINTS", "MAC80211_MESSAGE_TRACING", "ATH9K_DEBUGFS",
            "MAC80211_DEBUGFS", "ATH5K_TRACER", "ATH9K_TX99"} <= on
    rel = os.path.relpath
    missing = [rel(o, tree) for opt, objs in option_objects(tree).items() if opt in on
               for o in objs if not os.path.isfile(os.path.join(b.tree, rel(o, tree)))]
    assert missing == [], "objects of options that are on, not built"
    assert len(b.modules) == 9, b.modules
