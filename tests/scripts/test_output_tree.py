"""The generated output tree builds the whole stack with `make KLIB=...`
against the identity target (6.12), with compat.ko first in every module's
dependencies, and refuses targets it cannot serve with one clear message."""

import os
import shutil
import subprocess

import pytest

import retrofi_generate
import retrofi_kernels
import retrofi_matrix
from conftest import REPO

MODULES = ["compat/compat.ko", "net/wireless/cfg80211.ko", "net/mac80211/mac80211.ko",
           "drivers/net/wireless/virtual/mac80211_hwsim.ko", "drivers/net/wireless/ath/ath.ko",
           "drivers/net/wireless/ath/ath9k/ath9k.ko", "drivers/net/wireless/ath/ath9k/ath9k_hw.ko",
           "drivers/net/wireless/ath/ath9k/ath9k_common.ko", "drivers/net/wireless/ath/ath5k/ath5k.ko"]


@pytest.fixture(scope="module")
def fetched():
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    return retrofi_kernels.fetch(m)


@pytest.fixture(scope="module")
def tree(fetched, tmp_path_factory):
    s = fetched.source
    out = tmp_path_factory.mktemp("out")
    r = retrofi_generate.generate(s, str(out))
    return r.out_path


def make(tree, *args):
    return subprocess.run(["make", "-C", tree, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def modinfo(path, field):
    return subprocess.run(["modinfo", "-F", field, path], stdout=subprocess.PIPE, text=True,
                          check=True).stdout.strip()


@pytest.mark.network
def test_stack_builds_on_identity_target_without_warnings(fetched, tree):
    t = fetched.targets["6.12"]
    p = make(tree, "-j2", f"KLIB={t.headers}")
    assert p.returncode == 0, p.stdout[-5000:]
    warnings = [l for l in p.stdout.splitlines() if "warning:" in l]
    assert warnings == []
    for ko in MODULES:
        path = os.path.join(tree, ko)
        assert os.path.isfile(path), ko
        assert modinfo(path, "vermagic").startswith(t.kernelrelease + " ")
        if not ko.startswith("compat/"):
            assert "compat" in modinfo(path, "depends").split(","), ko
    assert modinfo(os.path.join(tree, "compat/compat.ko"), "version")


@pytest.mark.network
def test_output_tree_needs_nothing_from_the_repository(fetched, tmp_path):
    # A fresh tree: a build writes KLIB paths into it (probes.h), which is fine.
    tree = retrofi_generate.generate(fetched.source, str(tmp_path)).out_path
    for root, _, files in os.walk(tree):
        for f in files:
            if f.endswith((".c", ".h", "Makefile", "Kbuild", ".sh", ".list")):
                text = open(os.path.join(root, f), errors="replace").read()
                assert REPO not in text and retrofi_kernels.cache_dir() not in text, f


@pytest.mark.network
def test_missing_klib_is_one_clear_error(tree, tmp_path):
    p = make(tree, f"KLIB={tmp_path}/nope")
    assert p.returncode != 0
    assert f"retrofi: error: {tmp_path}/nope: no kernel build tree" in p.stdout
    assert "fix: " in p.stdout


@pytest.mark.network
def test_built_in_cfg80211_target_is_refused(fetched, tree, tmp_path):
    kt = fetched.targets["6.1"]
    shutil.copytree(os.path.join(kt.root, "usr"), tmp_path / "usr", symlinks=True)
    klib = tmp_path / os.path.relpath(kt.headers, kt.root)
    config = klib / ".config"
    config.write_text(config.read_text().replace("CONFIG_CFG80211=m", "CONFIG_CFG80211=y"))
    p = make(tree, f"KLIB={klib}")
    assert p.returncode != 0
    assert "has cfg80211 built in (CONFIG_CFG80211=y)" in p.stdout
    assert not os.path.exists(os.path.join(tree, "include/retrofi/probes.h.tmp"))


@pytest.mark.network
def test_bad_api_level_is_refused(fetched, tree):
    p = make(tree, f"KLIB={fetched.targets['6.12'].headers}", "API_LEVEL=two.six")
    assert p.returncode != 0
    assert "API_LEVEL=two.six is not a kernel version" in p.stdout
