"""The release tarball, unpacked elsewhere, is a DKMS package: Debian's
dkms builds it for the cached headers of the oldest default real target
with nothing from the repository.  dkms runs with private trees
(--dkmstree, --sourcetree, --installtree under a temporary directory):
nothing is registered or installed on this machine.

dkms runs make as the target's own machine would, with the compiler its
headers name (5.10's .kernelvariables names gcc-10).  dkms runs here on a
PATH without that compiler, as on a bookworm host: the build must stop at
once with the error naming it and the fix on dkms's own output (not only in
make.log), and with RETROFI_CC set to the target's cc from
kernel-matrix.yaml (as the fix says) it must build.

The tarball is the long-term source's (SOURCE=6.12): this is its stack's
build on the oldest target, as test_build_release.py's is on 6.1 and the
fault campaign's on 6.12: no warning, every module built for that kernel, each
depending on compat.ko."""

import os
import shutil
import subprocess
import tarfile

import pytest

import retrofi_generate
import retrofi_kernels
import retrofi_release
from conftest import headers_compiler, lts_matrix, modinfo, oldest_default_real, path_without

EXPECTED = {"compat", "cfg80211", "mac80211", "mac80211_hwsim", "ath", "ath9k", "ath9k_hw",
            "ath9k_common", "ath5k"}


@pytest.mark.network
def test_release_tarball_builds_with_dkms_for_the_oldest_target_without_touching_the_host(tmp_path):
    # The long-term source's tarball: its stack keeps building on the
    # oldest target (the newest source's is booted there by test_matrix_run).
    m = lts_matrix()
    k = retrofi_kernels.fetch(m, [oldest_default_real().name])
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
    cc = headers_compiler(kt)
    assert kt.cc and kt.cc != cc and shutil.which(kt.cc), \
        f"the headers name {cc}; the matrix must give the target another cc: that exists here"
    env = dict(os.environ, PATH=path_without(tmp_path / "bin", cc))
    env.pop("RETROFI_CC", None)
    build = ["dkms", "build", "-m", "retrofi", "-v", version, "-k", kt.kernelrelease,
             f"--kernelsourcedir={kt.headers}", *private]
    # Without the compiler: one error on dkms's output, naming it and the fix.
    p = subprocess.run(build, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert p.returncode != 0, p.stdout[-3000:]
    errors = [l for l in p.stdout.splitlines() if l.startswith("retrofi: error:")]
    assert errors == [f"retrofi: error: {kt.headers}: {cc} is not installed: the compiler the "
                      f"target's headers name (CC={cc} in their Makefile)"], p.stdout[-3000:]
    fix = p.stdout.splitlines()[p.stdout.splitlines().index(errors[0]) + 1]
    assert fix.strip().startswith(f"fix: install {cc}") and "RETROFI_CC=gcc-" in fix, fix
    assert not [f for _, _, fs in os.walk(dkms) for f in fs if f.endswith(".ko")], "nothing built"
    # With the compiler the fix names: the whole stack builds.
    env["RETROFI_CC"] = kt.cc
    p = subprocess.run(build, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
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
