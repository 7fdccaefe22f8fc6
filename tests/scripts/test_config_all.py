"""The all configuration (defconfigs/all, RETROFI_ALL_OPTIONS=y) is the
tree's allyesconfig: every option a defconfig may set is on in it, so the
all-options builds (`make check-options`) compile every option the tree
offers, and an option added to config/options cannot escape them unless it
is marked fixed.  The needs between options are respected in every
configuration; a defconfig cannot set a fixed option or one that does not
exist.  No kernel needed: config/config.sh runs on a stand-in .config."""

import os
import re
import shutil
import subprocess

import pytest

from conftest import REPO

OUT_TREE = os.path.join(REPO, "drivers", "out-tree")
# The default source's (7.x) view: its overlays replace defconfigs (wifi and
# all select the vendor drivers only the 7.x source's copy list carries).
OVERLAYS = sorted(os.path.join(REPO, "drivers", d) for d in os.listdir(os.path.join(REPO, "drivers"))
                  if d.startswith("out-tree-since-"))


def tree_file(*rel):
    """A file of the output tree's configuration as the default source has it."""
    for d in reversed(OVERLAYS):
        if os.path.isfile(os.path.join(d, *rel)):
            return os.path.join(d, *rel)
    return os.path.join(OUT_TREE, *rel)


def defconfig_names():
    return sorted({n for d in [OUT_TREE] + OVERLAYS
                   for n in (os.listdir(os.path.join(d, "defconfigs"))
                             if os.path.isdir(os.path.join(d, "defconfigs")) else [])})


def parse_options(path=os.path.join(OUT_TREE, "config", "options")):
    """[(name, value, fixed, needs)] in file order."""
    out = []
    with open(path) as f:
        for line in f:
            if re.match(r"^\s*(#|$)", line):
                continue
            words = line.split()
            fixed = len(words) > 2 and words[2] == "fixed"
            needs = words[words.index("needs") + 1:] if "needs" in words else []
            out.append((words[0], words[1], fixed, needs))
    return out


def facilities(options):
    """The base facilities the options need (needs that are not options)."""
    names = {o[0] for o in options}
    return sorted({n for o in options for n in o[3]
                   if n not in names and not n.startswith("!") and "|" not in n})


@pytest.fixture
def tree(tmp_path):
    """The output tree's configuration files, and a stand-in target whose
    .config has every base facility that an option needs, and what the
    stack needs of any base (config/base)."""
    t = tmp_path / "tree"
    for d in ("config", "defconfigs"):
        for src in [OUT_TREE] + OVERLAYS:
            if os.path.isdir(os.path.join(src, d)):
                shutil.copytree(os.path.join(src, d), t / d, dirs_exist_ok=True)
    klib = tmp_path / "klib"
    klib.mkdir()
    (klib / ".config").write_text(
        "".join(f"CONFIG_{n}=y\n" for n in facilities(parse_options()))
        + "".join(f"CONFIG_{l.split()[0]}=y\n" for l in open(os.path.join(OUT_TREE, "config", "base"))
                  if l.strip() and not l.startswith("#"))
        + "CONFIG_CFG80211=m\nCONFIG_MAC80211=m\n")
    version(klib, 7, 3)
    return t, klib


def version(klib, major, minor):
    """The stand-in target's LINUX_VERSION_CODE (what "since X.Y" reads)."""
    h = klib / "include" / "generated" / "uapi" / "linux" / "version.h"
    h.parent.mkdir(parents=True, exist_ok=True)
    h.write_text(f"#define LINUX_VERSION_CODE {major * 65536 + minor * 256}\n")


def config(tree, defconfig_text):
    t, klib = tree
    (t / ".retrofi-config").write_text(defconfig_text)
    p = subprocess.run(["sh", str(t / "config" / "config.sh"), str(klib), str(t)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    values = {}
    if p.returncode == 0:
        for line in (t / "include" / "retrofi" / "config.mk").read_text().splitlines():
            m = re.match(r"^RETROFI_CONFIG_([A-Za-z0-9_]+) :=\s*(\S*)", line)
            if m:
                values[m.group(1)] = m.group(2) if not m.group(2).startswith("#") else ""
    return p, values


def defconfig(name):
    with open(tree_file("defconfigs", name)) as f:
        return f.read()


def test_the_all_configuration_turns_on_every_option_a_defconfig_may_set(tree):
    options = parse_options()
    p, got = config(tree, defconfig("all"))
    assert p.returncode == 0, p.stdout
    assert set(got) == {o[0] for o in options}
    wrong = {}
    for name, value, fixed, _ in options:
        if fixed:
            want = "" if value == "n" else value
        elif value.startswith("sel:"):
            want = "m"                          # every driver
        elif value in ("y", "n"):
            want = "y"
        else:
            want = value                        # a number or a string: its value
        if got[name] != want:
            wrong[name] = (got[name], want)
    assert wrong == {}, "option: (all configuration, expected)"
    # Nothing offered is off for a facility the stand-in target has: the
    # needs between options are all met when every option is on.
    header = (tree[0] / "include" / "retrofi" / "config.h").read_text()
    assert re.findall(r"/\* CONFIG_\w+ off: .*\*/", header) == []


def test_every_defconfig_is_contained_in_the_all_configuration(tree):
    """What any defconfig turns on, the all configuration turns on too: a
    driver or an override a defconfig offers is built by check-options."""
    _, every = config(tree, defconfig("all"))
    for name in defconfig_names():
        p, got = config(tree, defconfig(name))
        assert p.returncode == 0, (name, p.stdout)
        on = {k for k, v in got.items() if v}
        assert on <= {k for k, v in every.items() if v}, name
        drivers = re.findall(r"^RETROFI_([A-Z0-9_]+)=m$", defconfig(name), re.M)
        assert set(drivers) <= set(re.findall(r"^RETROFI_([A-Z0-9_]+)=m$",
                                              defconfig("all"), re.M)), name


def test_an_option_is_off_when_an_option_it_needs_is_off(tree):
    p, got = config(tree, "RETROFI_ATH9K=m\nRETROFI_CONFIG_ATH9K_TX99=y\n"
                          "RETROFI_CONFIG_CFG80211_CERTIFICATION_ONUS=y\n")
    assert p.returncode == 0, p.stdout
    assert got["ATH9K_TX99"] == "" and got["CFG80211_CERTIFICATION_ONUS"] == "y"
    header = (tree[0] / "include" / "retrofi" / "config.h").read_text()
    assert "/* CONFIG_ATH9K_TX99 off: CONFIG_ATH9K_DEBUGFS is off */" in header
    # and on once what it needs is on
    p, got = config(tree, "RETROFI_ATH9K=m\nRETROFI_CONFIG_ATH9K_TX99=y\n"
                          "RETROFI_CONFIG_CFG80211_CERTIFICATION_ONUS=y\n"
                          "RETROFI_CONFIG_CFG80211_DEBUGFS=y\nRETROFI_CONFIG_MAC80211_DEBUGFS=y\n"
                          "RETROFI_CONFIG_ATH9K_DEBUGFS=y\n")
    assert p.returncode == 0, p.stdout
    assert got["ATH9K_TX99"] == "y" and got["ATH9K_COMMON_DEBUG"] == "y"


def test_an_option_is_off_when_the_target_lacks_a_facility_it_needs(tree):
    t, klib = tree
    text = (klib / ".config").read_text()
    (klib / ".config").write_text(text.replace("CONFIG_DEBUG_FS=y\n", ""))
    p, got = config(tree, defconfig("all"))
    assert p.returncode == 0, p.stdout
    assert got["CFG80211_DEBUGFS"] == "" and got["MAC80211_DEBUGFS"] == ""
    assert got["ATH9K_DEBUGFS"] == "" and got["ATH9K_TX99"] == ""
    header = (t / "include" / "retrofi" / "config.h").read_text()
    assert "/* CONFIG_CFG80211_DEBUGFS off: the target has no CONFIG_DEBUG_FS */" in header
    assert "/* CONFIG_MAC80211_DEBUGFS off: CONFIG_CFG80211_DEBUGFS is off */" in header


def test_an_option_is_off_when_the_target_has_a_facility_it_must_not_have(tree):
    """needs !FACILITY: mt76 carries the source's WED header, whose
    structures match no older kernel that builds WED in (MediaTek SoCs)."""
    t, klib = tree
    p, got = config(tree, "RETROFI_MT76=m\n")
    assert p.returncode == 0, p.stdout
    assert got["MT76_CORE"] == "m" and got["MT7921E"] == "m"
    (klib / ".config").write_text((klib / ".config").read_text()
                                  + "CONFIG_NET_MEDIATEK_SOC_WED=y\n")
    p, got = config(tree, "RETROFI_MT76=m\n")
    assert p.returncode == 0, p.stdout
    assert got["MT76_CORE"] == "" and got["MT7921E"] == ""
    header = (t / "include" / "retrofi" / "config.h").read_text()
    assert "/* CONFIG_MT76_CORE off: the target has CONFIG_NET_MEDIATEK_SOC_WED */" in header


def test_an_option_that_needs_one_of_two_is_on_with_either_and_off_naming_both(tree):
    """needs A|B: the stack's suites build with the tree's kunit.ko
    (RETROFI_KUNIT), or with the target's own KUnit, where the tree's
    kunit.ko is off (needs !KUNIT: its exports would clash)."""
    t, klib = tree
    p, got = config(tree, defconfig("wifi-kunit"))
    assert p.returncode == 0, p.stdout
    assert got["RETROFI_KUNIT"] == "m" and got["CFG80211_KUNIT_TEST"] == "m"
    p, got = config(tree, defconfig("wifi-kunit") + "RETROFI_CONFIG_RETROFI_KUNIT=n\n")
    assert p.returncode == 0, p.stdout
    assert got["CFG80211_KUNIT_TEST"] == "" and got["MAC80211_KUNIT_TEST"] == ""
    header = (t / "include" / "retrofi" / "config.h").read_text()
    assert ("/* CONFIG_CFG80211_KUNIT_TEST off: CONFIG_RETROFI_KUNIT is off and "
            "the target has no CONFIG_KUNIT */") in header
    (klib / ".config").write_text((klib / ".config").read_text() + "CONFIG_KUNIT=y\n")
    p, got = config(tree, defconfig("wifi-kunit"))
    assert p.returncode == 0, p.stdout
    assert got["RETROFI_KUNIT"] == "" and got["CFG80211_KUNIT_TEST"] == "m"
    assert got["MAC80211_KUNIT_TEST"] == "m"
    header = (t / "include" / "retrofi" / "config.h").read_text()
    assert "/* CONFIG_RETROFI_KUNIT off: the target has CONFIG_KUNIT */" in header


def test_a_negated_need_among_alternatives_is_refused(tree):
    t, _ = tree
    opts = t / "config" / "options"
    opts.write_text(opts.read_text().replace("needs RETROFI_KUNIT|KUNIT", "needs RETROFI_KUNIT|!KUNIT", 1))
    p, _ = config(tree, defconfig("all"))
    assert p.returncode != 0
    assert "a facility the target must not have is never one of alternatives" in p.stdout


def test_a_negated_need_of_an_option_is_refused(tree):
    t, _ = tree
    opts = t / "config" / "options"
    opts.write_text(opts.read_text().replace(
        "needs MAC80211_DEBUGFS DEBUG_FS", "needs MAC80211_DEBUGFS !ATH9K_PCI DEBUG_FS", 1))
    p, _ = config(tree, defconfig("all"))
    assert p.returncode != 0
    assert "needs !ATH9K_PCI: a facility the target must not have is never an option" in p.stdout


@pytest.mark.parametrize("line, message", [
    ("RETROFI_CONFIG_ATH9K_PCI_NO_EEPROM=y",
     "RETROFI_CONFIG_ATH9K_PCI_NO_EEPROM=y: the option is fixed at n (config/options says why); "
     "fix: remove the line"),
    ("RETROFI_CONFIG_ATH9K_NOSUCH=y",
     "RETROFI_CONFIG_ATH9K_NOSUCH: no such option in config/options; fix: use an option "
     "config/options lists"),
])
def test_a_defconfig_that_sets_a_fixed_or_unknown_option_is_refused(tree, line, message):
    p, _ = config(tree, f"RETROFI_ATH9K=m\n{line}\n")
    assert p.returncode != 0
    assert message in p.stdout, p.stdout
    assert not (tree[0] / "include" / "retrofi" / "config.mk").exists()


def test_an_option_marked_since_is_off_below_that_series_and_says_so(tree):
    """"since X.Y": off on an older target or at an older API level (a
    shape), with config.h naming the marker, not a missing facility; on at
    X.Y and later; and what needs it goes off with it."""
    t, klib = tree
    opts = t / "config" / "options"
    opts.write_text(opts.read_text().replace(
        "MT7921E                         sel:MT76 needs",
        "MT7921E                         sel:MT76 since 7.4 needs"))
    p, got = config(tree, defconfig("all"))
    assert p.returncode == 0, p.stdout
    assert got["MT76_CORE"] == "m" and got["MT7925E"] == "m" and got["MT7921E"] == ""
    header = (t / "include" / "retrofi" / "config.h").read_text()
    assert "/* CONFIG_MT7921E off: not backported below 7.4 */" in header
    assert "# off: not backported below 7.4" in \
        (t / "include" / "retrofi" / "config.mk").read_text()
    version(klib, 5, 4)
    p, got = config(tree, defconfig("all"))
    assert p.returncode == 0, p.stdout
    assert got["MT76_CORE"] == "" and got["MT7925E"] == "" and got["ATH9K"] == "m"
    header = (t / "include" / "retrofi" / "config.h").read_text()
    assert "/* CONFIG_MT76_CORE off: not backported below 5.10 */" in header
    assert "/* CONFIG_MT76_CONNAC_LIB off: CONFIG_MT76_CORE is off */" in header
    # the API level of a shape counts when it is older than the kernel
    version(klib, 7, 3)
    p = subprocess.run(["sh", str(t / "config" / "config.sh"), str(klib), str(t)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, RETROFI_API_CODE=str(2 * 65536 + 6 * 256 + 21)))
    assert p.returncode == 0, p.stdout
    assert "/* CONFIG_MT76_CORE off: not backported below 5.10 */" in \
        (t / "include" / "retrofi" / "config.h").read_text()
    # a malformed series is refused, naming the option
    opts.write_text(opts.read_text().replace("since 7.4", "since seven"))
    p, _ = config(tree, defconfig("all"))
    assert p.returncode != 0
    assert "option MT7921E: since takes a kernel series X.Y, not \"seven\"" in p.stdout


def test_an_option_that_needs_a_later_option_is_refused(tree):
    t, _ = tree
    opts = t / "config" / "options"
    text = opts.read_text()
    line = re.search(r"^ATH9K_DEBUGFS .*\n", text, re.M).group(0)
    opts.write_text(line + text.replace(line, ""))
    p, _ = config(tree, defconfig("wifi"))
    assert p.returncode != 0
    assert "option ATH9K_DEBUGFS needs MAC80211_DEBUGFS, which config/options lists after " \
           "it; fix: move MAC80211_DEBUGFS above it" in p.stdout, p.stdout


def test_ath11k_and_ath12k_are_off_on_a_target_without_the_mhi_bus_and_say_so(tree):
    """ath11k's PCI glue and ath12k reach their firmware through the target's
    MHI bus (Kconfig selects MHI_BUS): without it they are off, config.h
    naming the missing facility; ath11k's core (QMI helpers only) stays."""
    t, klib = tree
    text = (klib / ".config").read_text()
    assert "CONFIG_MHI_BUS=y\n" in text
    (klib / ".config").write_text(text.replace("CONFIG_MHI_BUS=y\n", ""))
    p, got = config(tree, defconfig("all"))
    assert p.returncode == 0, p.stdout
    assert got["ATH12K"] == "" and got["ATH11K_PCI"] == "" and got["ATH11K"] == "m"
    assert got["IWLWIFI"] == "m" and got["ATH10K_PCI"] == "m"
    header = (t / "include" / "retrofi" / "config.h").read_text()
    assert "/* CONFIG_ATH12K off: the target has no CONFIG_MHI_BUS */" in header
    assert "/* CONFIG_ATH11K_PCI off: the target has no CONFIG_MHI_BUS */" in header
    assert "RETROFI_CONFIG_ATH12K := # off: the target has no CONFIG_MHI_BUS" in \
        (t / "include" / "retrofi" / "config.mk").read_text()
