"""The release tarball, unpacked elsewhere, is a DKMS package: Debian's
dkms builds it for the cached headers of the oldest default real target
with nothing from the repository.  dkms runs with private trees
(--dkmstree, --sourcetree, --installtree under a temporary directory):
nothing is registered or installed on this machine.

dkms runs make as the target's own machine would, with the compiler its
headers name (5.10's .kernelvariables names gcc-10).  Where this machine
lacks that compiler, the target's cc from kernel-matrix.yaml stands in for
it under that name on PATH, as a user of that kernel would have it.

This is also the oldest target's release-tarball build (test_build_release.py
builds the others): no warning, every module built for that kernel, each
depending on compat.ko."""

import os
import re
import shutil
import subprocess
import tarfile

import pytest

import retrofi_generate
import retrofi_kernels
import retrofi_matrix
import retrofi_release
from conftest import REPO, modinfo, oldest_default_real

EXPECTED = {"compat", "cfg80211", "mac80211", "mac80211_hwsim", "ath", "ath9k", "ath9k_hw",
            "ath9k_common", "ath5k"}


def _headers_compiler(kt, bindir):
    """PATH entries that give make the compiler kt's headers name."""
    try:
        text = open(os.path.join(kt.headers, ".kernelvariables")).read()
    except OSError:
        return []
    m = re.search(r"\)(gcc-\d+)\s*$", text, re.M)
    if not m or shutil.which(m.group(1)):
        return []
    assert kt.cc and shutil.which(kt.cc), \
        f"the headers name {m.group(1)}; the matrix must give the target a cc: that exists here"
    bindir.mkdir()
    os.symlink(shutil.which(kt.cc), bindir / m.group(1))
    return [str(bindir)]


@pytest.mark.network
def test_release_tarball_builds_with_dkms_for_the_oldest_target_without_touching_the_host(tmp_path):
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    k = retrofi_kernels.fetch(m)
    kt = k.targets[oldest_default_real().name]
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
    env = dict(os.environ)
    env["PATH"] = ":".join(_headers_compiler(kt, tmp_path / "bin") + [env["PATH"]])
    p = subprocess.run(["dkms", "build", "-m", "retrofi", "-v", version, "-k", kt.kernelrelease,
                        f"--kernelsourcedir={kt.headers}", *private],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    logs = [os.path.join(root, "make.log") for root, _, files in os.walk(dkms)
            if "make.log" in files]
    log = "".join(open(path).read() for path in logs)
    assert p.returncode == 0, p.stdout[-2000:] + log[-4000:]
    # No log means no build was looked at: that is a failure, never a pass.
    assert len(logs) == 1, f"dkms left {len(logs)} make.log files under {dkms}: {p.stdout[-2000:]}"
    assert "CC [M]" in log and [l for l in log.splitlines() if "warning:" in l] == []
    kos = {f[:-3]: os.path.join(d, f) for d, _, files in
           os.walk(dkms / "retrofi" / version / kt.kernelrelease) for f in files if f.endswith(".ko")}
    assert set(kos) == EXPECTED
    # What the release tarball test checks of the other targets' builds.
    for name, path in kos.items():
        assert modinfo(path, "vermagic").startswith(kt.kernelrelease + " "), name
        if name != "compat":
            assert "compat" in modinfo(path, "depends").split(","), name
    assert os.listdir(inst) == []
    if host_state is not None:
        assert sorted(os.listdir("/var/lib/dkms")) == host_state
