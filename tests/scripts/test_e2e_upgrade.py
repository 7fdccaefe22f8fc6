"""The kernel upgrade of the .deb's end-to-end cycle, its logic without a
root or the network: which older ABI the root starts with (the newest
kernel-matrix.lock serves below the booted one), how `dkms status` says a
kernel has the stack (dkms 3's lines and dkms 2's), which layer of the
overlay holds the kernel to boot (the lower root's, or the upper layer's
for the kernel the upgrade installed), and what the purge may leave of the
upgrade (its own files, but none of the package's).  The real upgrade,
with dkms's kernel hooks, is `make deb-e2e`'s (scripts/retrofi_e2e.py)."""

import json
import os

import pytest

import retrofi_e2e
import retrofi_e2e_upgrade as up
from retrofi_errors import RetrofiError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _lock():
    with open(os.path.join(REPO, "kernel-matrix.lock")) as f:
        return json.load(f)["entries"]


def test_the_older_abi_is_the_newest_served_below_the_booted_one():
    entries = {"target:6.1.0-57-amd64": {}, "target:6.1.0-55-amd64": {},
               "target:6.1.0-53-amd64": {}, "target:6.1.0-56-rt-amd64": {},
               "target:6.1.0-0.deb11.52-amd64": {}, "target:6.12.118+deb12-amd64": {},
               "target:6.1": {}, "source:newest": {}}
    # 56 is served for rt only, the backports ABI is another line.
    assert up.older_abi("6.1.0-57-amd64", entries) == "6.1.0-55-amd64"
    assert up.older_abi("6.1.0-57-rt-amd64", entries) == "6.1.0-56-rt-amd64"


def test_the_served_lines_have_an_older_abi_in_the_lock():
    entries = _lock()
    for krel in (retrofi_e2e.target_kernelrelease("bookworm"),
                 retrofi_e2e.target_kernelrelease("bullseye")):
        older = up.older_abi(krel, entries)
        assert f"target:{older}" in entries
        assert older.split("-")[0] == krel.split("-")[0] and older < krel


def test_no_older_abi_is_an_error_naming_the_way_out():
    with pytest.raises(RetrofiError) as e:
        up.older_abi("6.1.0-47-amd64", {"target:6.1.0-47-amd64": {}, "target:6.1.0-50-amd64": {}})
    assert "--upgrade-from" in e.value.format()
    with pytest.raises(RetrofiError):
        up.older_abi("6.12.118+deb12-amd64", _lock())


def test_upgrade_from_takes_none_an_abi_or_the_previous_one():
    assert retrofi_e2e.upgrade_from("none", "6.1.0-57-amd64") == ""
    assert retrofi_e2e.upgrade_from("6.1.0-53-amd64", "6.1.0-57-amd64") == "6.1.0-53-amd64"
    assert retrofi_e2e.upgrade_from("previous", "6.1.0-57-amd64") == "6.1.0-56-amd64"
    with pytest.raises(RetrofiError):
        retrofi_e2e.upgrade_from("6.1.0-57-amd64", "6.1.0-57-amd64")


def test_dkms_status_reads_dkms_3_and_dkms_2():
    text = ("retrofi/7.3.4-1.bpo13.1, 6.1.0-56-amd64, x86_64: installed\n"
            "retrofi/7.3.4-1.bpo13.1, 6.1.0-57-amd64, x86_64: installed "
            "(Original modules exist)\n"
            "other/1.0, 6.1.0-57-amd64, x86_64: installed\n"
            "retrofi, 7.3.4-1, 5.10.0-46-amd64, x86_64: built\n"
            "retrofi/7.3.4-1: added\n")
    assert up.dkms_status(text) == {"6.1.0-56-amd64": "installed",
                                    "6.1.0-57-amd64": "installed",
                                    "5.10.0-46-amd64": "built"}
    assert up.dkms_status(text, "other") == {"6.1.0-57-amd64": "installed"}
    assert up.dkms_status("") == {}


def _overlay(tmp_path):
    """A merged-/usr lower root with kernel 56, an upper layer with kernel
    57 as an upgrade installs it."""
    lower = tmp_path / "lower"
    for k in ("6.1.0-56-amd64",):
        (lower / f"usr/lib/modules/{k}/kernel").mkdir(parents=True)
        (lower / "boot").mkdir(exist_ok=True)
        (lower / f"boot/vmlinuz-{k}").write_text("image")
    os.symlink("usr/lib", lower / "lib")
    c = retrofi_e2e.Cycle(str(lower), str(tmp_path / "scratch"))
    return c


def test_the_kernel_to_boot_is_in_the_layer_that_holds_it(tmp_path):
    c = _overlay(tmp_path)
    assert retrofi_e2e.kernel_layer(c, "6.1.0-56-amd64") == c.lower
    with pytest.raises(RetrofiError):
        retrofi_e2e.kernel_layer(c, "6.1.0-57-amd64")
    os.makedirs(os.path.join(c.upper, "usr/lib/modules/6.1.0-57-amd64/kernel"))
    os.makedirs(os.path.join(c.upper, "boot"))
    with pytest.raises(RetrofiError):   # modules without the image: no kernel
        retrofi_e2e.kernel_layer(c, "6.1.0-57-amd64")
    with open(os.path.join(c.upper, "boot/vmlinuz-6.1.0-57-amd64"), "w") as f:
        f.write("image")
    assert retrofi_e2e.kernel_layer(c, "6.1.0-57-amd64") == c.upper
    # The guest's paths are the layer's own: the upper layer has no lib link.
    for krel, layer in (("6.1.0-57-amd64", c.upper), ("6.1.0-56-amd64", c.lower)):
        _, modules, image = retrofi_e2e.kernel_paths(c, krel)
        assert modules == os.path.join(layer, f"usr/lib/modules/{krel}")
        assert os.path.isdir(os.path.join(modules, "kernel"))
        assert image == os.path.join(layer, f"boot/vmlinuz-{krel}")


def _put(c, rel, text="x"):
    path = os.path.join(c.upper, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def test_the_upgrades_own_files_are_no_leftovers_but_the_packages_are(tmp_path):
    c = _overlay(tmp_path)
    before = retrofi_e2e.walk_upper(c.upper)
    k = "usr/lib/modules/6.1.0-57-amd64"
    # The upgrade: the kernel's files, its initramfs, and dkms's build for it.
    for rel in ("boot/vmlinuz-6.1.0-57-amd64", "boot/initrd.img-6.1.0-57-amd64",
                f"{k}/kernel/net/wireless/cfg80211.ko.xz", f"{k}/modules.dep",
                "usr/src/linux-headers-6.1.0-57-amd64/Makefile",
                f"{k}/updates/dkms/cfg80211.ko.xz",
                "var/lib/dkms/retrofi/7.3.4/6.1.0-57-amd64/x86_64/log/make.log"):
        _put(c, rel)
    upgraded = up.upgrade_paths(retrofi_e2e.walk_upper(c.upper), before)
    assert f"{k}/modules.dep" in upgraded and "boot/vmlinuz-6.1.0-57-amd64" in upgraded
    assert not [p for p in upgraded if "/updates" in p or "dkms/retrofi" in p]
    # A clean purge: the package's paths gone, the kernel's stay.
    import shutil
    shutil.rmtree(os.path.join(c.upper, k, "updates"))
    shutil.rmtree(os.path.join(c.upper, "var/lib/dkms/retrofi"))
    assert retrofi_e2e.leftovers(c, before, upgraded) == []
    # Without the upgrade's paths, its files are leftovers.
    assert ("boot/vmlinuz-6.1.0-57-amd64", "new file") in retrofi_e2e.leftovers(c, before)
    # A module dkms built for the newer kernel outlives the purge: a leftover.
    _put(c, f"{k}/updates/dkms/mac80211.ko.xz")
    assert retrofi_e2e.leftovers(c, before, upgraded) == [
        (f"{k}/updates", "new directory"), (f"{k}/updates/dkms", "new directory"),
        (f"{k}/updates/dkms/mac80211.ko.xz", "new file")]


def test_modules_dep_after_the_purge_lists_only_the_kernels_own():
    assert up.foreign_modules("kernel/net/wireless/cfg80211.ko.xz: kernel/net/rfkill.ko.xz\n"
                              "kernel/lib/x.ko.xz:\n") == []
    assert up.foreign_modules("updates/dkms/compat.ko.xz:\n"
                              "kernel/lib/x.ko.xz: updates/dkms/compat.ko.xz\n"
                              "extra/other.ko:\n") == ["updates/dkms/compat.ko.xz",
                                                       "extra/other.ko"]


class _Root:
    """A root whose `dkms status` says what the test gives."""

    def __init__(self, status):
        self.status = status

    def run(self, argv, what=""):
        assert argv == ["dkms", "status"]
        return self.status


def test_a_kernel_dkms_did_not_install_for_is_a_problem_naming_it():
    both = ("retrofi/7.3.4-1, 6.1.0-56-amd64, x86_64: installed\n"
            "retrofi/7.3.4-1, 6.1.0-57-amd64, x86_64: installed\n"
            "other/2.0, 6.1.0-57-amd64, x86_64: installed\n")
    lines, problems = up.installed_for(_Root(both), ["6.1.0-56-amd64", "6.1.0-57-amd64"])
    assert problems == [] and len(lines) == 2
    # The kernel hooks did not run (dkms's /etc/dkms/no-autoinstall): only the older kernel.
    _, problems = up.installed_for(_Root(both.splitlines()[0] + "\n"),
                                   ["6.1.0-56-amd64", "6.1.0-57-amd64"])
    assert problems == ["dkms status shows retrofi absent for 6.1.0-57-amd64, not installed "
                        "(dkms status: retrofi/7.3.4-1, 6.1.0-56-amd64, x86_64: installed)"]
    _, problems = up.installed_for(_Root(both.replace("57-amd64, x86_64: installed\nother",
                                                      "57-amd64, x86_64: built\nother")),
                                   ["6.1.0-57-amd64"])
    assert problems and "retrofi built for 6.1.0-57-amd64" in problems[0]
