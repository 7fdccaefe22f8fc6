"""The driver selection knob of the package: RETROFI_DEFCONFIG in
/etc/default/retrofi makes dkms build one of the output tree's defconfigs
instead of the whole stack, and dkms.conf lists only the modules that
selection builds (dkms fails on a listed module the build did not make).
dkms.conf is sourced by bash as dkms does (safe_source: '. dkms.conf'),
beside the output tree's real Kbuild files, config/ and defconfigs (the
long-term source's, without the vendor drivers: test_dkms_modules.py has
those), for a kernel without headers (the list is then what the
defconfig selects on any kernel); RETROFI_DEFAULTS points it at a file of
the test's own.  The real dkms build of the small selection is
the end-to-end test's (scripts/retrofi_e2e.py)."""

import os
import subprocess

import pytest

import retrofi_dkmsconf
from conftest import REPO, STACK_MODULES, out_tree_kbuild
from test_generate import write

WHOLE = sorted(os.path.basename(m)[:-3] for m in STACK_MODULES)
WHERE = {os.path.basename(m)[:-3]: os.path.dirname(m) for m in STACK_MODULES}


def conf_tree(tree):
    """tree (a path): dkms.conf of a version 1.0 source beside the output
    tree's Kbuild files, config/ and defconfigs, as dkms copies it."""
    class S:
        version = "1.0"
    write(str(tree / "dkms.conf"), retrofi_dkmsconf.dkms_conf(S, "retrofi").decode())
    out_tree_kbuild(str(tree))
    return tree


def _source(tmp_path, defaults):
    """(BUILT_MODULE_NAME, MAKE[0], stderr) of dkms.conf sourced by bash."""
    tree = conf_tree(tmp_path / "retrofi-1.0")
    env = dict(os.environ, kernelver="6.1.0-57-amd64", kernel_source_dir="/nonexistent")
    if defaults is not None:
        write(str(tmp_path / "default"), defaults)
        env["RETROFI_DEFAULTS"] = str(tmp_path / "default")
    else:
        env["RETROFI_DEFAULTS"] = str(tmp_path / "absent")
    p = subprocess.run(["bash", "-c", '. "$1" >/dev/null; echo "${BUILT_MODULE_NAME[*]}";'
                        ' echo "${MAKE[0]}"; echo "${DEST_MODULE_LOCATION[*]}"', "-",
                        str(tree / "dkms.conf")], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, check=True)
    names, make, dest = p.stdout.splitlines()
    names, dest = names.split(), dest.split()
    assert dest == [f"/updates/{WHERE[n]}" for n in names]
    return sorted(names), make, dest, p.stderr


def test_without_the_defaults_file_dkms_builds_the_whole_stack(tmp_path):
    names, make, dest, err = _source(tmp_path, None)
    assert names == WHOLE and err == ""
    assert "make KLIB=/nonexistent defconfig-wifi && make -j" in make


def test_the_defaults_file_selects_hwsim_and_only_its_modules_are_listed(tmp_path):
    names, make, dest, err = _source(tmp_path, "# small\nRETROFI_DEFCONFIG=hwsim\n")
    assert names == sorted(["compat", "cfg80211", "mac80211", "mac80211_hwsim"]) and err == ""
    assert "defconfig-hwsim && " in make
    assert sorted(dest) == ["/updates/compat", "/updates/drivers/net/wireless/virtual",
                            "/updates/net/mac80211", "/updates/net/wireless"]


@pytest.mark.parametrize("name,expected", [
    ("ath9k", sorted(["compat", "cfg80211", "mac80211", "ath", "ath9k", "ath9k_hw", "ath9k_common"])),
    ("ath5k", sorted(["compat", "cfg80211", "mac80211", "ath", "ath5k"])),
    ("all", WHOLE),
])
def test_each_defconfig_lists_the_modules_it_builds(tmp_path, name, expected):
    names, make, _, err = _source(tmp_path, f'RETROFI_DEFCONFIG="{name}"\n')
    assert names == expected and f"defconfig-{name} && " in make and err == ""


def test_an_unknown_defconfig_is_named_with_the_fix(tmp_path):
    names, make, _, err = _source(tmp_path, "RETROFI_DEFCONFIG=tiny\n")
    lines = err.splitlines()
    assert lines[0] == (f"retrofi: error: {tmp_path}/default: RETROFI_DEFCONFIG=tiny: "
                        "no such defconfig"), err
    assert lines[1] == "  fix: name one of: all ath5k ath9k hwsim wifi", err
    # The build's first step then stops on the output tree's own error
    # (the list is the default's: nothing is built).
    assert "defconfig-tiny && " in make and names == WHOLE


@pytest.mark.parametrize("prelude,signs", [
    # dkms 3.0 and newer: their own signing (the readonly list of its
    # framework's signing variables is set in the dkms process).
    ('readonly dkms_framework_signing_variables="sign_file mok_signing_key mok_certificate"', False),
    # dkms 2.8 (bullseye) with the administrator's own sign_tool.
    ('sign_tool=/etc/dkms/sign_helper.sh', False),
    # dkms 2.8 as installed: it signs nothing, so the tree's script does.
    ('', True)])
def test_the_tree_signs_only_where_dkms_signs_nothing(tmp_path, prelude, signs):
    tree = conf_tree(tmp_path / "retrofi-1.0")
    env = dict(os.environ, kernelver="5.10.0-46-amd64", arch="x86_64",
               kernel_source_dir="/nonexistent", RETROFI_DEFAULTS=str(tmp_path / "absent"))
    p = subprocess.run(["bash", "-c", prelude + '\n. "$1" >/dev/null 2>&1; echo "${POST_BUILD:-}"',
                        "-", str(tree / "dkms.conf")], env=env, stdout=subprocess.PIPE,
                       text=True, check=True)
    assert p.stdout.strip() == ("config/dkms-sign.sh 5.10.0-46-amd64 x86_64" if signs else "")
    if signs:
        # dkms runs it directly from its copy of the tree: it must be executable.
        script = os.path.join(REPO, "drivers", "out-tree", "config", "dkms-sign.sh")
        assert os.access(script, os.X_OK)
