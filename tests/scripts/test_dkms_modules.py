"""dkms.conf lists exactly the modules the selected defconfig builds for
the kernel dkms builds for (${kernel_source_dir}): dkms installs only the
modules it lists and fails on a listed one the build did not make, and
which modules a defconfig builds depends on the kernel (an option "since
X.Y", a facility the target lacks).  The list comes from the tree's own
config/modules.sh (its Kbuild files, config/options and config.sh's
rules), which writes nothing into the tree dkms sources it from.

The stand-in kernels are a .config and a version.h (what config.sh reads
of a target); the check against real builds reads the modules.order of
the builds already in the cache (no build is made here)."""

import glob
import json
import os
import re
import shutil
import subprocess

import pytest

import retrofi_dkmsconf
import retrofi_selection
from conftest import STACK_MODULES, out_tree_kbuild
from test_config_all import OUT_TREE, OVERLAYS, facilities, parse_options, version
from test_generate import write

STACK = [os.path.basename(m)[:-3] for m in STACK_MODULES]
# A few modules of each vendor family the drivers defconfig selects.
VENDOR = ["mt76", "mt7921e", "mt7925u", "rtw88_8822ce", "rtw89_8852be", "ath9k_htc", "carl9170",
          "iwlwifi", "iwlmvm", "ath10k_pci", "ath11k_pci", "ath12k"]


def default_source_tree(path):
    """The default source's (7.x) output tree as far as the module list
    reads it: the Kbuild files, config/ and defconfigs/ of drivers/out-tree
    with its overlays on top, compat/Kbuild, and dkms.conf."""
    out_tree_kbuild(path, OVERLAYS)

    class S:
        version = "1.0"
    write(os.path.join(path, "dkms.conf"), retrofi_dkmsconf.dkms_conf(S, "retrofi").decode())
    return path


def stand_in_kernel(path, major, minor, without=()):
    """A target as config.sh reads one: a .config with every base facility
    of config/base and every facility an option needs (less `without`),
    cfg80211 and mac80211 as modules, and its LINUX_VERSION_CODE."""
    base = [l.split()[0] for l in open(os.path.join(OUT_TREE, "config", "base"))
            if l.strip() and not l.startswith("#")]
    names = [n for n in facilities(parse_options()) + base if n not in without]
    write(str(path / ".config"), "".join(f"CONFIG_{n}=y\n" for n in names)
          + "CONFIG_CFG80211=m\nCONFIG_MAC80211=m\n")
    version(path, major, minor)
    return str(path)


def snapshot(tree):
    return sorted((os.path.relpath(os.path.join(d, f), tree), os.stat(os.path.join(d, f)).st_mtime_ns)
                  for d, _, files in os.walk(tree) for f in files)


def dkms_lists(tree, klib, defconfig, tmp_path, env=None):
    """(BUILT_MODULE_LOCATION + BUILT_MODULE_NAME + .ko of each record, the
    DEST_MODULE_LOCATIONs, MAKE[0], stderr): dkms.conf sourced by bash as
    dkms does, with RETROFI_DEFCONFIG=defconfig."""
    write(str(tmp_path / "default"), f"RETROFI_DEFCONFIG={defconfig}\n")
    e = dict(os.environ, kernelver="7.3.4+deb13-amd64", kernel_source_dir=klib,
             RETROFI_DEFAULTS=str(tmp_path / "default"), **(env or {}))
    p = subprocess.run(["bash", "-c", '. "$1" >/dev/null; for i in "${!BUILT_MODULE_NAME[@]}"; do'
                        ' echo "${BUILT_MODULE_LOCATION[i]}${BUILT_MODULE_NAME[i]}.ko'
                        ' ${DEST_MODULE_LOCATION[i]}"; done; echo "MAKE ${MAKE[0]}"', "-",
                        os.path.join(tree, "dkms.conf")],
                       env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    rows = [l.split() for l in p.stdout.splitlines() if not l.startswith("MAKE ")]
    make = [l for l in p.stdout.splitlines() if l.startswith("MAKE ")][0][5:]
    return [r[0] for r in rows], [r[1] for r in rows], make, p.stderr


def build_selects(tree, klib, defconfig, tmp_path):
    """What the build of the tree for klib selects, as the build stage
    checks it against modules.order (retrofi_selection, after the tree's
    config.sh wrote config.mk for the defconfig), in a copy of the tree."""
    work = str(tmp_path / "configured")
    shutil.copytree(tree, work)
    shutil.copy(os.path.join(work, "defconfigs", defconfig), os.path.join(work, ".retrofi-config"))
    subprocess.run(["sh", os.path.join(work, "config", "config.sh"), klib, work], check=True)
    sel = retrofi_selection.selection(work)
    assert sel.errors == (), sel.errors
    return sel


def names(kos):
    return sorted(os.path.basename(k)[:-3] for k in kos)


def test_for_a_7_3_kernel_the_drivers_defconfig_lists_the_vendor_modules_the_build_selects(tmp_path):
    tree = default_source_tree(str(tmp_path / "tree"))
    klib = stand_in_kernel(tmp_path / "klib", 7, 3)
    before = snapshot(tree)
    kos, dest, make, err = dkms_lists(tree, klib, "drivers", tmp_path)
    assert err == ""
    assert snapshot(tree) == before, "sourcing dkms.conf wrote into the tree"
    assert sorted(kos) == sorted(build_selects(tree, klib, "drivers", tmp_path).modules)
    assert set(VENDOR) < set(names(kos)) and set(STACK) < set(names(kos))
    assert dest == ["/updates/" + os.path.dirname(k) for k in kos]
    assert make.startswith(f"sh config/modules.sh --report {klib} defconfigs/drivers; "
                           f"make KLIB={klib} defconfig-drivers && make -j")


def test_for_a_5_10_kernel_every_vendor_family_is_listed(tmp_path):
    tree = default_source_tree(str(tmp_path / "tree"))
    klib = stand_in_kernel(tmp_path / "klib", 5, 10)
    kos, _, _, err = dkms_lists(tree, klib, "drivers", tmp_path)
    assert err == ""
    assert sorted(kos) == sorted(build_selects(tree, klib, "drivers", tmp_path).modules)
    # 5.10 gets the stack, mt76, rtw88's and rtw89's PCIe, SDIO and USB
    # chips, ath10k, ath11k, ath12k, ath9k_htc, carl9170 and iwlwifi.
    got = set(names(kos))
    assert set(STACK) <= got
    assert {"mt76", "mt7921e", "mt7921s", "mt7925u", "mt7996e", "mt76x2u", "rtw88_8822ce",
            "rtw88_8822cs", "rtw88_usb", "rtw88_8822cu", "rtw89_8852ae", "rtw89_usb",
            "rtw89_8852bu", "ath10k_pci", "ath11k_pci", "ath12k", "ath9k_htc", "carl9170",
            "iwlwifi", "iwlmld"} <= got, sorted(got)


def test_for_a_kernel_older_than_5_10_the_vendor_modules_are_not_listed_and_the_build_log_says_why(tmp_path):
    tree = default_source_tree(str(tmp_path / "tree"))
    klib = stand_in_kernel(tmp_path / "klib", 5, 4)
    kos, _, make, err = dkms_lists(tree, klib, "drivers", tmp_path)
    assert err == ""
    sel = build_selects(tree, klib, "drivers", tmp_path)
    assert sorted(kos) == sorted(sel.modules)
    got = set(names(kos))
    assert set(STACK) <= got
    assert not {"mt76", "mt7921e", "mt7925u", "rtw88_usb", "rtw89_8852ae", "ath10k_pci",
                "ath11k_pci", "ath9k_htc", "carl9170", "iwlwifi"} & got, sorted(got)
    # What MAKE[0] runs first, into dkms's make.log: each module not built, and why.
    p = subprocess.run(["sh", "config/modules.sh", "--report", klib, "defconfigs/drivers"], cwd=tree,
                       stdout=subprocess.PIPE, text=True, check=True)
    assert make.startswith(f"sh config/modules.sh --report {klib} defconfigs/drivers; ")
    report = p.stdout.splitlines()
    assert ("retrofi: not built: drivers/net/wireless/mediatek/mt76/mt76.ko "
            "(RETROFI_CONFIG_MT76_CORE off: not backported below 5.10)") in report, p.stdout
    # (a directory its parent's Kbuild does not descend into, by the reason of that line)
    assert [l for l in report if l.startswith("retrofi: not built: drivers/net/wireless/mediatek/mt76/mt7921/ ")], \
        p.stdout
    # Every module the 7.3 kernel gets and this one does not is named with its reason.
    named = {l.split()[3] for l in report}
    k73 = stand_in_kernel(tmp_path / "k73", 7, 3)
    for ko in set(build_selects(tree, k73, "drivers", tmp_path / "x").modules) - set(sel.modules):
        assert ko in named or any(ko.startswith(d) for d in named if d.endswith("/")), ko


def test_a_kernel_without_a_facility_gets_no_module_that_needs_it(tmp_path):
    tree = default_source_tree(str(tmp_path / "tree"))
    klib = stand_in_kernel(tmp_path / "klib", 7, 3, without=("MHI_BUS",))
    kos, _, _, _ = dkms_lists(tree, klib, "drivers", tmp_path)
    assert sorted(kos) == sorted(build_selects(tree, klib, "drivers", tmp_path).modules)
    assert "ath11k_pci" not in names(kos) and "ath12k" not in names(kos)
    assert "ath10k_pci" in names(kos) and "mt7921e" in names(kos)


def test_a_kernel_without_headers_gets_what_the_defconfig_selects_on_any_kernel(tmp_path):
    # dkms sources dkms.conf for `dkms status` or `dkms remove` of a kernel
    # whose headers are gone: the list is the defconfig's widest.
    tree = default_source_tree(str(tmp_path / "tree"))
    kos, _, _, err = dkms_lists(tree, str(tmp_path / "absent"), "drivers", tmp_path)
    k73 = stand_in_kernel(tmp_path / "k73", 7, 3)
    assert err == "" and sorted(kos) == sorted(build_selects(tree, k73, "drivers", tmp_path).modules)


def test_an_unknown_defconfig_is_one_error_and_the_build_stops_at_it(tmp_path):
    tree = default_source_tree(str(tmp_path / "tree"))
    klib = stand_in_kernel(tmp_path / "klib", 7, 3)
    kos, _, make, err = dkms_lists(tree, klib, "tiny", tmp_path)
    assert err.splitlines() == [
        f"retrofi: error: {tmp_path}/default: RETROFI_DEFCONFIG=tiny: no such defconfig",
        "  fix: name one of: " + " ".join(sorted(os.listdir(os.path.join(tree, "defconfigs"))))]
    assert make.startswith("make KLIB=" + klib + " defconfig-tiny && ") and names(kos) == sorted(STACK)


def _cached_builds():
    """The complete builds in the shared cache: (directory, target name,
    API level), each with its tree, .retrofi-config and modules.order."""
    import retrofi_kernels
    out = []
    for d in sorted(glob.glob(os.path.join(retrofi_kernels.cache_dir(), "build", "*-*"))):
        m = re.match(r"^(.+?)-src[^-]+(?:-api([0-9.]+))?(?:-.+)?-[0-9a-f]{16}$", os.path.basename(d))
        if m and all(os.path.isfile(os.path.join(d, f)) for f in
                     ("modules.order", ".retrofi-build.json", "Kbuild", "config/options")):
            out.append((d, m.group(1), m.group(2) or ""))
    return out


@pytest.mark.network
def test_the_list_equals_the_modules_order_of_each_real_build_in_the_cache(fetched, tmp_path):
    """Each cached build's own tree (Kbuild files, config/, defconfigs/ as
    that build had them; dkms.conf and the lister as generated now) lists,
    for that build's kernel headers and defconfig, what its make put in
    modules.order: the vendor drivers' build on 7.3 where the cache has one."""
    builds = [b for b in _cached_builds() if b[1] in fetched.targets]
    if not builds:
        pytest.skip("no complete build in the cache yet (the build tests make them)")
    vendor = 0
    for d, target, api in builds:
        work = tmp_path / os.path.basename(d)
        for root, _, files in os.walk(d):
            for f in files:
                rel = os.path.relpath(os.path.join(root, f), d)
                if f == "Kbuild" or rel.startswith(("config/", "defconfigs/")):
                    os.makedirs(os.path.dirname(work / rel), exist_ok=True)
                    shutil.copy(os.path.join(root, f), work / rel)
        for f in ("config.sh", "modules.sh"):
            shutil.copy(os.path.join(OUT_TREE, "config", f), work / "config" / f)
        sel = os.path.join(d, ".retrofi-config")
        shutil.copy(sel if os.path.isfile(sel) else os.path.join(d, "defconfigs", "wifi"),
                    work / "defconfigs" / "as-built")
        default_conf = retrofi_dkmsconf.dkms_conf(type("S", (), {"version": "1.0"}), "retrofi")
        write(str(work / "dkms.conf"), default_conf.decode())
        env = {}
        if api:
            a = [int(x) for x in api.split(".")] + [0]
            env["RETROFI_API_CODE"] = str(a[0] * 65536 + a[1] * 256 + min(a[2], 255))
        kos, _, _, err = dkms_lists(str(work), fetched.targets[target].headers, "as-built",
                                    tmp_path, env)
        built = [re.sub(r"\.o$", ".ko", l.strip().replace(d + "/", "", 1))
                 for l in open(os.path.join(d, "modules.order")) if l.strip()]
        assert json.load(open(os.path.join(d, ".retrofi-build.json"))).get("modules")
        assert err == "" and sorted(kos) == sorted(built), os.path.basename(d)
        vendor += any("mt76" in k for k in built)
    if not vendor:
        pytest.skip(f"{len(builds)} cached builds agree; none with the vendor drivers to compare "
                    f"(RETROFI_DEFCONFIG=drivers make matrix TARGETS=7.3 makes one)")
