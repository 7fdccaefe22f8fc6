"""The kernels the output tree's dkms.conf lets dkms build for: 5.10 and
newer with cfg80211 and mac80211 as modules.  Debian's dkms (3.0.10) runs
on the tree's dkms.conf with private trees and fake kernels (a .config, no
headers): an unsupported kernel is skipped (exit 77) with one line that
says which rule and why; a supported one goes on to look for its headers.
Nothing is built, registered or installed on this machine."""

import os
import shutil
import subprocess

import pytest

import retrofi_dkmsconf
from conftest import out_tree_kbuild
from test_dkms_selection import conf_tree
from test_generate import write

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

@pytest.mark.parametrize("release,supported", [
    ("5.10.0-30-amd64", True), ("5.19.0-1-amd64", True), ("6.1.0-18-amd64", True),
    ("6.12.38+deb13-amd64", True), ("7.3.4+deb13-amd64", True), ("10.1.0-1-amd64", True),
    ("5.4.0-1-amd64", False), ("5.1.0-1-amd64", False), ("4.19.0-21-amd64", False),
    ("2.6.32-5-amd64", False), ("3.16.0-4-amd64", False),
])
def test_build_exclusive_kernel_takes_5_10_and_newer(release, supported):
    p = subprocess.run(["bash", "-c", '[[ $1 =~ $2 ]]', "-", release,
                        retrofi_dkmsconf.BUILD_EXCLUSIVE_KERNEL])
    assert (p.returncode == 0) == supported


def _dkms_build(tmp_path, release, config):
    """dkms build of the synthetic dkms.conf for a fake kernel, private trees."""
    class S:
        version = "1.0"
    src = tmp_path / "src" / "retrofi-1.0"
    write(str(src / "dkms.conf"), retrofi_dkmsconf.dkms_conf(S, "retrofi").decode())
    write(str(src / "Makefile"), "all:\n")
    # The output tree's Kbuild files, config/ and defconfigs: dkms.conf
    # lists the modules of the selected one.
    out_tree_kbuild(str(src))
    k = tmp_path / "k" / release
    write(str(k / ".config"), config)
    private = [f"--dkmstree={tmp_path / 'dkms'}", f"--sourcetree={tmp_path / 'src'}",
               f"--installtree={tmp_path / 'inst'}"]
    for d in ("dkms", "inst"):
        (tmp_path / d).mkdir(exist_ok=True)
    subprocess.run(["dkms", "add", "-m", "retrofi", "-v", "1.0", *private],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return subprocess.run(["dkms", "build", "-m", "retrofi", "-v", "1.0", "-k", release,
                           f"--kernelsourcedir={k}", *private],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.mark.skipif(not shutil.which("dkms"), reason="dkms is not installed (make bootstrap)")
@pytest.mark.parametrize("release,config,why", [
    ("4.19.0-21-amd64", "CONFIG_CFG80211=m\nCONFIG_MAC80211=m\n",
     "retrofi: not built for kernel 4.19.0-21-amd64: retrofi supports kernels 5.10 and newer"),
    ("6.1.0-18-amd64", "CONFIG_CFG80211=y\nCONFIG_MAC80211=m\n",
     "retrofi: not built for kernel 6.1.0-18-amd64: CONFIG_CFG80211=y (built in): retrofi "
     "replaces cfg80211 and mac80211 by modules, it needs both =m"),
    ("6.1.0-18-amd64", "CONFIG_CFG80211=m\n# CONFIG_MAC80211 is not set\n",
     "retrofi: not built for kernel 6.1.0-18-amd64: CONFIG_MAC80211 is not set: the kernel "
     "has no wireless stack for retrofi to replace"),
])
def test_dkms_skips_an_unsupported_kernel_and_says_why(tmp_path, release, config, why):
    p = _dkms_build(tmp_path, release, config)
    assert p.returncode == 77, p.stdout
    assert [l for l in p.stdout.splitlines() if l.startswith("retrofi:")] == [why], p.stdout
    assert "BUILD_EXCLUSIVE directive" in p.stdout


@pytest.mark.skipif(not shutil.which("dkms"), reason="dkms is not installed (make bootstrap)")
def test_dkms_goes_on_to_build_for_a_supported_kernel(tmp_path):
    # Past the BUILD_EXCLUSIVE check, dkms looks for the kernel's headers
    # (a fake kernel has none): another exit, and no retrofi line.
    p = _dkms_build(tmp_path, "5.10.0-30-amd64", "CONFIG_CFG80211=m\nCONFIG_MAC80211=m\n")
    assert p.returncode not in (0, 77), p.stdout
    assert "BUILD_EXCLUSIVE" not in p.stdout and "retrofi:" not in p.stdout, p.stdout
    assert "kernel headers for kernel 5.10.0-30-amd64 cannot be found" in p.stdout, p.stdout


@pytest.mark.parametrize("config,excluded", [
    ("CONFIG_CFG80211=y\nCONFIG_MAC80211=m\n", True),
    ("CONFIG_CFG80211=m\nCONFIG_MAC80211=y\n", True),
    ("CONFIG_CFG80211=m\n# CONFIG_MAC80211 is not set\n", True),
    ("CONFIG_CFG80211=m\nCONFIG_MAC80211=m\n", False)])
def test_dkms_2_8_skips_a_kernel_by_its_options_through_the_kernel_rule(tmp_path, config,
                                                                      excluded):
    """bullseye's dkms 2.8 reads BUILD_EXCLUSIVE_KERNEL but no
    BUILD_EXCLUSIVE_CONFIG: dkms.conf, sourced as it sources it (kernelver
    and kernel_source_dir set), leaves a kernel it excludes by its options
    a kernel rule that does not match it, so dkms 2.8 skips it too."""
    tree = conf_tree(tmp_path / "retrofi-1.0")
    k = tmp_path / "k"
    write(str(k / ".config"), config)
    env = dict(os.environ, kernelver="5.10.0-46-amd64", kernel_source_dir=str(k),
               RETROFI_DEFAULTS=str(tmp_path / "absent"))
    p = subprocess.run(["bash", "-c", '. "$1" >/dev/null 2>&1; [[ $kernelver =~ '
                        '$BUILD_EXCLUSIVE_KERNEL ]]', "-", str(tree / "dkms.conf")], env=env)
    assert (p.returncode != 0) == excluded
