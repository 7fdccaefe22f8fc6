"""The release tarball, unpacked elsewhere, is a DKMS package: Debian's
dkms builds it for the cached 6.1 headers with nothing from the repository.
dkms runs with private trees (--dkmstree, --sourcetree, --installtree under
a temporary directory): nothing is registered or installed on this
machine."""

import os
import subprocess
import tarfile

import pytest

import retrofi_generate
import retrofi_kernels
import retrofi_matrix
import retrofi_release
from conftest import REPO

EXPECTED = {"compat", "cfg80211", "mac80211", "mac80211_hwsim", "ath", "ath9k", "ath9k_hw",
            "ath9k_common", "ath5k"}


@pytest.mark.network
def test_release_tarball_builds_with_dkms_for_6_1_without_touching_the_host(tmp_path):
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    k = retrofi_kernels.fetch(m)
    kt = k.targets["6.1"]
    tree = retrofi_generate.generate(k.source, str(tmp_path / "out")).out_path
    rel = retrofi_release.release(tree, str(tmp_path / "rel"), k.source.mtime)
    version = retrofi_generate.dkms_version(k.source)

    src, dkms, inst = tmp_path / "src", tmp_path / "dkms", tmp_path / "install"
    for d in (src, dkms, inst):
        d.mkdir()
    with tarfile.open(rel.tarball) as tar:
        tar.extractall(src)
    os.rename(src / os.path.basename(tree), src / f"retrofi-{version}")
    conf = (src / f"retrofi-{version}" / "dkms.conf").read_text()
    assert f'PACKAGE_VERSION="{version}"' in conf
    private = [f"--dkmstree={dkms}", f"--sourcetree={src}", f"--installtree={inst}"]
    host_state = sorted(os.listdir("/var/lib/dkms")) if os.path.isdir("/var/lib/dkms") else None

    p = subprocess.run(["dkms", "add", "-m", "retrofi", "-v", version, *private],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    p = subprocess.run(["dkms", "build", "-m", "retrofi", "-v", version, "-k", kt.kernelrelease,
                        f"--kernelsourcedir={kt.headers}", *private],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    logs = [os.path.join(root, "make.log") for root, _, files in os.walk(dkms)
            if "make.log" in files]
    log = "".join(open(path).read() for path in logs)
    assert p.returncode == 0, p.stdout[-2000:] + log[-4000:]
    # No log means no build was looked at: that is a failure, never a pass.
    assert len(logs) == 1, f"dkms left {len(logs)} make.log files under {dkms}: {p.stdout[-2000:]}"
    assert "CC [M]" in log and "warning:" not in log
    built = {f[:-3] for _, _, files in os.walk(dkms / "retrofi" / version / kt.kernelrelease)
             for f in files if f.endswith(".ko")}
    assert built == EXPECTED
    assert os.listdir(inst) == []
    if host_state is not None:
        assert sorted(os.listdir("/var/lib/dkms")) == host_state
