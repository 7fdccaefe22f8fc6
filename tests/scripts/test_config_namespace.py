"""The output tree's own configuration (config/options, config/config.sh):
the stack's CONFIG_ options come from the tree, never from the target's
.config; the C code of a real target sees the macros it saw when they came
from the target; a target without any wireless option still gets the
whole stack; a base that cannot hold a cfg80211 device is refused."""

import glob
import os
import re
import shutil
import subprocess

import pytest

import retrofi_generate
from conftest import assert_stack_built, modinfo

CONFIG_RE = re.compile(r"\bCONFIG_([A-Z0-9_]+)")
# An 802.11 option's name (not IPWIRELESS, a 3G modem, or ACER_WIRELESS, a hotkey).
WIRELESS_RE = re.compile(r"80211|WLAN|WEXT|ATH9K|ATH5K|^WIRELESS(_EXT)?$")


@pytest.fixture(scope="module")
def tree(fetched, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    return retrofi_generate.generate(fetched.source, str(out)).out_path


def namespace(tree):
    """The options config/options sets (the tree's namespace)."""
    with open(os.path.join(tree, "config", "options")) as f:
        return [l.split()[0] for l in f if re.match(r"^[A-Z]", l)]


def common_dir(kt):
    """Debian's arch-independent headers beside the target's build dir."""
    found = glob.glob(os.path.join(kt.root, "usr", "src", "linux-headers-*-common"))
    assert len(found) == 1, found
    return found[0]


def config_sh(tree, klib, srcdir=None):
    return subprocess.run(["sh", os.path.join(tree, "config", "config.sh"), klib, tree,
                           srcdir or klib], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def macros(include_dirs, *includes):
    """#define CONFIG_... lines the preprocessor ends with: {name: value}."""
    argv = ["gcc", "-E", "-dM", "-nostdinc"] + [f"-I{d}" for d in include_dirs]
    for i in includes:
        argv += ["-include", i]
    out = subprocess.run(argv + ["-x", "c", "/dev/null"], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    got = {}
    for line in out.splitlines():
        m = re.match(r"#define (CONFIG_[A-Z0-9_]+) (.*)$", line)
        if m:
            got[m.group(1)] = m.group(2)
    return got


# The vendor drivers' directories: the default configuration (wifi) builds
# none of them, so the options only their code tests are not the stack's
# (a target's CONFIG_MT76_LEDS=y says nothing the stack's code sees).
VENDOR_DIRS = ("drivers/net/wireless/mediatek", "drivers/net/wireless/realtek",
               "drivers/net/wireless/ath/carl9170", "drivers/net/wireless/intel",
               "drivers/net/wireless/ath/ath10k", "drivers/net/wireless/ath/ath11k",
               "drivers/net/wireless/ath/ath12k")
VENDOR_FILES = re.compile(r"^(htc|hif_usb|wmi)")
# KUnit (lib/kunit and its headers): the tree's own kunit.ko, built only
# under the option RETROFI_KUNIT, never by the default configuration; its
# Kconfig values (KUNIT_DEFAULT_TIMEOUT, ...) are the tree's, set where no
# target has KUnit (docs/kunit.md).
KUNIT_DIRS = ("lib/kunit", "include/kunit")


def used_by_c(tree):
    """The namespace's options that the tree's C code tests (the code the
    default configuration builds: not the vendor drivers')."""
    names = set(namespace(tree))
    used = set()
    for root, _, files in os.walk(tree):
        if os.path.join(tree, "include", "retrofi") in root:
            continue
        rel = os.path.relpath(root, tree)
        if rel.startswith(VENDOR_DIRS) or rel.startswith(KUNIT_DIRS):
            continue
        if rel == "drivers/net/wireless/ath/ath9k":
            files = [f for f in files if not VENDOR_FILES.match(f)]
        for f in files:
            if f.endswith((".c", ".h")):
                with open(os.path.join(root, f), errors="replace") as fh:
                    used |= {n for n in CONFIG_RE.findall(fh.read()) if n in names}
    return used


def selected(got, names):
    return {k: v for k, v in got.items()
            if k.startswith("CONFIG_") and re.sub(r"_MODULE$", "", k[7:]) in names}


@pytest.mark.network
@pytest.mark.parametrize("name", ["6.12", "6.1", "5.10"])
def test_real_targets_c_code_sees_the_config_macros_their_config_gave(fetched, tree, name,
                                                                      tmp_path):
    kt = fetched.targets.get(name)
    if kt is None:
        import retrofi_kernels
        import retrofi_matrix
        from conftest import REPO
        kt = retrofi_kernels.fetch(retrofi_matrix.load(f"{REPO}/kernel-matrix.yaml"),
                                   [name]).targets[name]
    work = shutil.copytree(tree, tmp_path / "t", symlinks=True)
    p = config_sh(str(work), kt.headers)
    assert p.returncode == 0, p.stdout
    inc = [os.path.join(kt.headers, "include"), os.path.join(common_dir(kt), "include")]
    used = used_by_c(str(work))
    assert {"MAC80211_LEDS", "ATH9K_PCI", "CFG80211_WEXT", "MAC80211_MESH"} <= used
    before = selected(macros(inc, os.path.join(common_dir(kt), "include/linux/kconfig.h")), used)
    after = selected(macros(inc, os.path.join(work, "include/retrofi/config.h")), used)
    assert before and after == before
    # Options outside the namespace are the target's, untouched.
    every_before = macros(inc, os.path.join(common_dir(kt), "include/linux/kconfig.h"))
    every_after = macros(inc, os.path.join(work, "include/retrofi/config.h"))
    names = set(namespace(str(work)))
    ours_after, ours_before = selected(every_after, names), selected(every_before, names)
    assert {k: v for k, v in every_after.items() if k not in ours_after} == \
        {k: v for k, v in every_before.items() if k not in ours_before}


def _wireless_names(source):
    """Every Kconfig symbol of the kernel's wireless code: net/wireless,
    net/mac80211, all of drivers/net/wireless, and WIRELESS itself."""
    names = {"WIRELESS"}
    paths = [os.path.join(source, "net/wireless/Kconfig"),
             os.path.join(source, "net/mac80211/Kconfig")]
    for root, _, files in os.walk(os.path.join(source, "drivers/net/wireless")):
        paths += [os.path.join(root, f) for f in files if f.startswith("Kconfig")]
    for p in paths:
        with open(p) as f:
            names |= set(re.findall(r"^(?:menu)?config ([A-Z0-9_]+)", f.read(), re.M))
    return names


def headers_without_wireless(kt, source, dst):
    """A copy of the target's build dir whose .config, auto.conf and
    autoconf.h have no wireless option at all (the -common headers and the
    kbuild scripts are the target's, reached by the same relative paths)."""
    build = os.path.realpath(kt.headers)
    usr = os.path.dirname(os.path.dirname(build))           # <root>/usr
    copy = os.path.join(dst, "usr", "src", os.path.basename(build))
    shutil.copytree(build, copy, symlinks=True)
    for d in glob.glob(os.path.join(usr, "src", "*")) + glob.glob(os.path.join(usr, "lib", "*")):
        rel = os.path.relpath(d, usr)
        if not os.path.exists(os.path.join(dst, "usr", rel)):
            os.makedirs(os.path.dirname(os.path.join(dst, "usr", rel)), exist_ok=True)
            os.symlink(d, os.path.join(dst, "usr", rel))
    names = _wireless_names(source)
    # and what an older target names that the source kernel no longer has
    # (5.10: WLAN_VENDOR_CISCO, ...)
    with open(os.path.join(copy, ".config")) as f:
        names |= {n for n in re.findall(r"CONFIG_([A-Z0-9_]+)", f.read()) if WIRELESS_RE.search(n)}
    alt = "|".join(sorted(names))
    pats = {".config": re.compile(rf"^(CONFIG_({alt})=.*|# CONFIG_({alt}) is not set)$"),
            "include/config/auto.conf": re.compile(rf"^CONFIG_({alt})=.*$"),
            "include/generated/autoconf.h": re.compile(rf"^#define CONFIG_({alt})(_MODULE)? .*$")}
    for rel, pat in pats.items():
        path = os.path.join(copy, rel)
        with open(path) as f:
            lines = f.read().splitlines()
        kept = [l for l in lines if not pat.match(l)]
        assert len(kept) < len(lines), rel
        with open(path, "w") as f:
            f.write("\n".join(kept) + "\n")
    with open(os.path.join(copy, ".config")) as f:
        left = [l for l in f if any(WIRELESS_RE.search(n)
                                    for n in re.findall(r"CONFIG_([A-Z0-9_]+)", l))]
    assert left == []
    return copy


@pytest.mark.network
def test_target_wireless_options_never_reach_the_stack(fetched, tree, tmp_path):
    """A target whose .config turns ath9k debugfs on and ath9k's PCI bus and
    mac80211's LEDs off: the stack sees the tree's choices, not these."""
    kt = fetched.targets["6.12"]
    build = os.path.realpath(kt.headers)
    klib = tmp_path / "klib"
    shutil.copytree(build, klib, symlinks=True)
    auto = klib / "include/generated/autoconf.h"
    text = auto.read_text()
    text = re.sub(r"^#define CONFIG_(ATH9K_PCI|MAC80211_LEDS) 1\n", "", text, flags=re.M)
    text += "#define CONFIG_ATH9K_DEBUGFS 1\n#define CONFIG_CFG80211_DEBUGFS 1\n"
    auto.write_text(text)
    work = shutil.copytree(tree, tmp_path / "t", symlinks=True)
    p = config_sh(str(work), str(klib))
    assert p.returncode == 0, p.stdout
    inc = [str(klib / "include"), os.path.join(common_dir(kt), "include")]
    # the modified target as the stack would see it without the tree's config
    plain = macros(inc, os.path.join(common_dir(kt), "include/linux/kconfig.h"))
    assert "CONFIG_ATH9K_DEBUGFS" in plain and "CONFIG_ATH9K_PCI" not in plain
    got = macros(inc, os.path.join(work, "include/retrofi/config.h"))
    assert got.get("CONFIG_ATH9K_PCI") == "1" and got.get("CONFIG_MAC80211_LEDS") == "1"
    assert "CONFIG_ATH9K_DEBUGFS" not in got and "CONFIG_CFG80211_DEBUGFS" not in got
    mk = (work / "include/retrofi/config.mk").read_text()
    assert "RETROFI_CONFIG_ATH9K_PCI := y" in mk and "RETROFI_CONFIG_ATH9K_DEBUGFS :=\n" in mk


@pytest.mark.network
def test_a_target_without_any_wireless_option_builds_the_whole_stack(fetched, tree, tmp_path):
    """5.10's struct net_device holds ieee80211_ptr unconditionally, so a
    5.10 kernel built without any wireless option can host the stack: the
    tree builds every module with its own options (ath9k's PCI bus,
    mac80211's LEDs); cfg80211's wext compatibility is off because the base
    has no wext core, and the generated header says so."""
    import retrofi_kernels
    import retrofi_matrix
    from conftest import REPO
    kt = fetched.targets.get("5.10") or retrofi_kernels.fetch(
        retrofi_matrix.load(f"{REPO}/kernel-matrix.yaml"), ["5.10"]).targets["5.10"]
    klib = headers_without_wireless(kt, fetched.source.path, str(tmp_path / "root"))
    work = str(shutil.copytree(tree, tmp_path / "t", symlinks=True))
    # With the build stage's make variables (no debug info: the quarter
    # of the compile that proves nothing about configuration).
    import retrofi_build
    p = subprocess.run(["make", "-C", work, "-j2", f"KLIB={klib}", *retrofi_build.make_vars()]
                       + ([f"CC={kt.cc}"] if kt.cc else []),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert_stack_built(p, work, kt.kernelrelease)
    with open(os.path.join(work, "include/retrofi/config.h")) as f:
        hdr = f.read()
    assert "/* CONFIG_CFG80211_WEXT off: the target has no CONFIG_WEXT_CORE */" in hdr
    assert not os.path.exists(os.path.join(work, "net/wireless/wext-compat.o"))
    assert os.path.exists(os.path.join(work, "net/mac80211/led.o"))
    assert os.path.exists(os.path.join(work, "drivers/net/wireless/ath/ath9k/pci.o"))
    assert "pci:v0000168Cd00000023" in modinfo(
        os.path.join(work, "drivers/net/wireless/ath/ath9k/ath9k.ko"), "alias")
    with open(os.path.join(work, "net/mac80211/.led.o.cmd")) as f:
        assert f"-include {work}/include/retrofi/config.h" in f.read()


@pytest.mark.network
def test_a_base_whose_net_device_needs_cfg80211_is_refused_without_it(fetched, tree, tmp_path):
    """Since 6.1, struct net_device has ieee80211_ptr only when
    IS_ENABLED(CONFIG_CFG80211): a 6.12 kernel without it cannot hold a
    cfg80211 device, and the build says so before compiling anything."""
    kt = fetched.targets["6.12"]
    klib = headers_without_wireless(kt, fetched.source.path, str(tmp_path / "root"))
    work = str(shutil.copytree(tree, tmp_path / "t", symlinks=True))
    p = subprocess.run(["make", "-C", work, f"KLIB={klib}"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert p.returncode != 0
    assert "this kernel cannot load a Wi-Fi stack: it lacks CONFIG_CFG80211 (the target kernel " \
           "has no cfg80211, and its struct net_device holds ieee80211_ptr only with it" \
           in p.stdout, p.stdout[-3000:]
    assert "fix: use a kernel built with them" in p.stdout
    assert not glob.glob(os.path.join(work, "**", "*.o"), recursive=True)
