"""The release tarball, unpacked elsewhere, builds the whole stack with
`make KLIB=<Debian 6.1 headers>` alone (a real older target: compat shims
and semantic patches at work) with no error and no compiler warning; every
module is built for that kernel."""

import os
import subprocess
import tarfile

import pytest

import retrofi_generate
import retrofi_kernels
import retrofi_matrix
import retrofi_release
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
    out = tmp_path_factory.mktemp("out")
    gen = retrofi_generate.generate(fetched.source, str(out)).out_path
    rel = retrofi_release.release(gen, str(out), fetched.source.mtime)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    with tarfile.open(rel.tarball) as tar:
        tar.extractall(elsewhere)
    return str(elsewhere / os.path.basename(gen))


def modinfo(path, field):
    return subprocess.run(["modinfo", "-F", field, path], stdout=subprocess.PIPE, text=True,
                          check=True).stdout.strip()


@pytest.mark.network
def test_stack_builds_on_6_1_without_warnings(fetched, tree):
    t = fetched.targets["6.1"]
    p = subprocess.run(["make", "-C", tree, "-j2", f"KLIB={t.headers}"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout[-5000:]
    warnings = [line for line in p.stdout.splitlines() if "warning:" in line]
    assert warnings == []
    for ko in MODULES:
        path = os.path.join(tree, ko)
        assert os.path.isfile(path), ko
        assert modinfo(path, "vermagic").startswith(t.kernelrelease + " "), ko
