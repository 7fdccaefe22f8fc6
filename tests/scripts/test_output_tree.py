"""The generated output tree builds the whole stack with `make KLIB=...`
against the identity target (6.12), with compat.ko first in every module's
dependencies, and refuses targets it cannot serve with one clear message.
The tree is the long-term source's (SOURCE=6.12): its build for 6.12 is the
one the fault campaign finishes, so these tests add none of their own."""

import os
import shutil
import subprocess

import pytest

import retrofi_build
import retrofi_generate
import retrofi_kernels
import retrofi_run
from conftest import (REPO, STACK_MODULES, assert_stack_build_result, headers_compiler,
                      lts_matrix, modinfo, oldest_default_real, path_without, shared_build)
from faultcheck import assert_one_error, saw, tree_state

MODULES = STACK_MODULES


@pytest.fixture(scope="module")
def tree(fetched, tmp_path_factory):
    s = retrofi_kernels.fetch(lts_matrix(), ["6.12"]).source
    out = tmp_path_factory.mktemp("out")
    r = retrofi_generate.generate(s, str(out))
    return r.out_path


def make(tree, *args, env=None):
    return subprocess.run(["make", "-C", tree, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env)


def refused(tree, *args, what, fix=None, case=None, env=None):
    """make in tree ends in one clear error (what, and a fix line) and
    writes nothing in the tree; case: the fault table's test id, to which
    the error line is reported."""
    before = tree_state(tree)
    p = make(tree, *args, env=env)
    line = assert_one_error(p, what, fix=fix)
    if case:
        saw(case, line)
    assert tree_state(tree) == before, "the refused make wrote in the tree"
    return p


@pytest.fixture(scope="module")
def built(fetched, tree, tmp_path_factory):
    """The whole stack built against 6.12 with the defconfig a matrix row
    builds there (wifi-kunit: the wifi selection and the tree's KUnit):
    `make -C <copy of tree> KLIB=...` by the build stage, whose cache is
    keyed by the tree's content (the matrix runs of this suite build the
    same tree)."""
    kt = fetched.targets["6.12"]
    return shared_build(tree, kt, tmp_path_factory.mktemp("build"),
                        defconfig=retrofi_run.run_defconfig(tree, kt))


def module_root(kt, dst):
    """A copy of the target's modules tree to install into (modules hardlinked)."""
    os.makedirs(dst / "lib" / "modules")
    subprocess.run(["cp", "-al", kt.modules, str(dst / "lib" / "modules")], check=True)
    return dst / "lib" / "modules" / kt.kernelrelease


def modules_dep(moddir):
    deps = {}
    for line in (moddir / "modules.dep").read_text().splitlines():
        mod, _, rest = line.partition(":")
        deps[mod] = rest.split()
    return deps


@pytest.mark.network
def test_stack_builds_on_identity_target_without_warnings(fetched, built):
    t = fetched.targets["6.12"]
    assert_stack_build_result(built, t.kernelrelease)
    assert modinfo(os.path.join(built.tree, "compat/compat.ko"), "version")


@pytest.mark.network
def test_output_tree_needs_nothing_from_the_repository(fetched, tmp_path):
    # A fresh tree: a build writes KLIB paths into it (probes.h), which is fine.
    tree = retrofi_generate.generate(fetched.source, str(tmp_path)).out_path
    for root, _, files in os.walk(tree):
        for f in files:
            if f.endswith((".c", ".h", "Makefile", "Kbuild", ".sh", ".list")):
                text = open(os.path.join(root, f), errors="replace").read()
                assert REPO not in text and retrofi_kernels.cache_dir() not in text, f


@pytest.mark.network
def test_missing_klib_is_one_clear_error(tree, tmp_path):
    refused(tree, f"KLIB={tmp_path}/nope", what=f"{tmp_path}/nope: no kernel build tree",
            fix="KLIB=", case="test_output_tree.py::test_missing_klib_is_one_clear_error")
    assert not os.path.exists(tmp_path / "nope")


@pytest.mark.network
def test_built_in_cfg80211_target_is_refused(fetched, tree, tmp_path):
    kt = fetched.targets["6.1"]
    shutil.copytree(os.path.join(kt.root, "usr"), tmp_path / "usr", symlinks=True)
    klib = tmp_path / os.path.relpath(kt.headers, kt.root)
    config = klib / ".config"
    config.write_text(config.read_text().replace("CONFIG_CFG80211=m", "CONFIG_CFG80211=y"))
    refused(tree, f"KLIB={klib}", what=f"{klib}: the target kernel has cfg80211 built in "
            "(CONFIG_CFG80211=y)", fix="CONFIG_CFG80211=m",
            case="test_output_tree.py::test_built_in_cfg80211_target_is_refused")


@pytest.mark.network
def test_bad_api_level_is_refused(fetched, tree):
    refused(tree, f"KLIB={fetched.targets['6.12'].headers}", "API_LEVEL=two.six",
            what="API_LEVEL=two.six is not a kernel version", fix="API_LEVEL=2.6.26",
            case="test_output_tree.py::test_bad_api_level_is_refused")


@pytest.mark.network
def test_a_compiler_the_headers_name_but_the_host_lacks_is_named_with_the_fix(fetched, tree, tmp_path):
    """Debian's 5.10 headers name gcc-10, which a bookworm host lacks: the
    probe step (the build's first) says which compiler, that it is not
    installed, and the fix, and writes nothing; with CC= the check passes.
    No build: the probe fails at once."""
    kt = fetched.targets[oldest_default_real().name]
    cc = headers_compiler(kt)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, PATH=path_without(tmp_path / "bin", cc), TMPDIR=str(tmp))
    p = refused(tree, f"KLIB={kt.headers}", "probes", env=env,
                what=f"{kt.headers}: {cc} is not installed: the compiler the target's headers name "
                     f"(CC={cc} in their Makefile)", fix=f"install {cc}",
                case="test_output_tree.py::test_a_compiler_the_headers_name_but_the_host_lacks_"
                     "is_named_with_the_fix")
    assert f"make CC={kt.cc}" in p.stdout, "the fix names the compiler the host has"
    assert os.listdir(tmp) == [], "the probe left nothing behind"
    # The fix: CC= a compiler the host has.
    assert kt.cc and kt.cc != cc
    check = subprocess.run(["sh", os.path.join(tree, "compat", "probe.sh"), "--check-cc", kt.headers,
                            f"CC={kt.cc}"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=env)
    assert (check.returncode, check.stdout) == (0, ""), check.stdout


@pytest.mark.network
def test_install_puts_the_stack_in_updates_and_depmod_prefers_it(fetched, built, tmp_path):
    kt = fetched.targets["6.12"]
    moddir = module_root(kt, tmp_path / "root")
    (moddir / "updates" / "other").mkdir(parents=True)
    (moddir / "updates" / "other" / "keep.ko").write_bytes(b"not ours")
    # With the build's settings (the build stage's make variables).
    p = make(built.tree, f"KLIB={kt.headers}", f"INSTALL_MOD_PATH={tmp_path / 'root'}",
             *retrofi_build.make_vars(), "install")
    assert p.returncode == 0, p.stdout[-3000:]
    assert "  CC [M]  " not in p.stdout, "install builds nothing in a built tree"
    deps = modules_dep(moddir)
    for ko in MODULES:
        assert f"updates/{ko}" in deps, ko
        if not ko.startswith("compat/"):
            assert "updates/compat/compat.ko" in deps[f"updates/{ko}"], ko
    # In-tree users of cfg80211 now resolve to the backport, never the in-tree copy.
    htc = deps["kernel/drivers/net/wireless/ath/ath9k/ath9k_htc.ko.xz"]
    assert "updates/net/wireless/cfg80211.ko" in htc
    assert not any(d.startswith("kernel/net/wireless/cfg80211") for d in htc)
    assert os.path.exists(moddir / "kernel" / "net" / "wireless" / "cfg80211.ko.xz")

    p = make(built.tree, f"KLIB={kt.headers}", f"INSTALL_MOD_PATH={tmp_path / 'root'}", "uninstall")
    assert p.returncode == 0, p.stdout[-3000:]
    left = sorted(str(f.relative_to(moddir / "updates")) for f in (moddir / "updates").rglob("*"))
    assert left == ["other", "other/keep.ko"]
    deps = modules_dep(moddir)
    assert not any(m.startswith("updates/") and m != "updates/other/keep.ko" for m in deps)
    assert "kernel/net/wireless/cfg80211.ko.xz" in deps["kernel/drivers/net/wireless/ath/ath9k/ath9k_htc.ko.xz"]


@pytest.mark.network
def test_uninstall_without_install_is_refused(fetched, tree, tmp_path):
    kt = fetched.targets["6.12"]
    moddir = module_root(kt, tmp_path / "root")
    before = tree_state(moddir)
    refused(tree, f"KLIB={kt.headers}", f"INSTALL_MOD_PATH={tmp_path / 'root'}", "uninstall",
            what="nothing installed by retrofi", fix="INSTALL_MOD_PATH")
    assert tree_state(moddir) == before


@pytest.mark.network
def test_install_signs_modules_with_the_given_key(fetched, built, tmp_path):
    kt = fetched.targets["6.12"]
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=retrofi test key/", "-keyout", str(key), "-out", str(cert)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    module_root(kt, tmp_path / "root")
    p = make(built.tree, f"KLIB={kt.headers}", f"INSTALL_MOD_PATH={tmp_path / 'root'}",
             f"SIGN_KEY={key}", f"SIGN_CERT={cert}", *retrofi_build.make_vars(), "install")
    assert "  CC [M]  " not in p.stdout, "install builds nothing in a built tree"
    assert p.returncode == 0, p.stdout[-3000:]
    moddir = tmp_path / "root" / "lib" / "modules" / kt.kernelrelease
    for ko in MODULES:
        assert modinfo(str(moddir / "updates" / ko), "signer") == "retrofi test key", ko
    # The built tree stays unsigned: signing happens on the installed copies.
    assert modinfo(os.path.join(built.tree, MODULES[1]), "signer") == ""


@pytest.mark.network
def test_missing_sign_key_is_refused(fetched, tree, tmp_path):
    kt = fetched.targets["6.12"]
    refused(tree, f"KLIB={kt.headers}", f"INSTALL_MOD_PATH={tmp_path}", f"SIGN_KEY={tmp_path}/nokey",
            f"SIGN_CERT={tmp_path}/nocert", "install", what="file missing", fix="PEM")
    assert os.listdir(tmp_path) == []


@pytest.mark.network
def test_defconfig_selects_the_drivers_built(fetched, tree, tmp_path):
    kt = fetched.targets["6.12"]
    p = make(tree, "list-defconfigs")
    # The 6.12 source's tree: the vendor drivers' defconfigs (drivers,
    # all-stack) come with the 7.2 overlay, which a 6.12 source lacks
    # (test_all_options lists the default source's).
    assert [l.split()[0] for l in p.stdout.splitlines() if l.startswith("defconfig-")] == \
        ["defconfig-all", "defconfig-ath5k", "defconfig-ath9k", "defconfig-hwsim",
         "defconfig-wifi"]
    # `make defconfig-hwsim`, then `make KLIB=...`, in the build stage's
    # content-keyed copy of the tree (its own, beside the wifi build's).
    b = shared_build(tree, kt, tmp_path, defconfig="hwsim")
    log = open(b.log).read()
    assert b.ok, log[-3000:]
    assert f"$ make -C {b.tree} defconfig-hwsim\n" in log
    assert "drivers selected by defconfig-hwsim: mac80211_hwsim" in log
    order = open(os.path.join(b.tree, "modules.order")).read()
    built_now = sorted(os.path.basename(l.strip()).replace(".o", ".ko").replace(".koko", ".ko")
                       for l in order.splitlines())
    assert built_now == ["cfg80211.ko", "compat.ko", "mac80211.ko", "mac80211_hwsim.ko"]
    assert sorted(os.path.basename(m) for m in b.modules) == built_now


@pytest.mark.network
def test_unknown_defconfig_is_refused(tree):
    p = refused(tree, "defconfig-nosuch", what="unknown defconfig 'nosuch'", fix="defconfig-hwsim",
                case="test_output_tree.py::test_unknown_defconfig_is_refused")
    assert "defconfig-hwsim" in p.stdout


@pytest.mark.network
def test_too_old_kernel_is_refused(fetched, tree, tmp_path):
    kt = fetched.targets["6.1"]
    shutil.copytree(os.path.join(kt.root, "usr"), tmp_path / "usr", symlinks=True)
    klib = tmp_path / os.path.relpath(kt.headers, kt.root)
    version_h = klib / "include" / "generated" / "uapi" / "linux" / "version.h"
    text = version_h.read_text()
    old = str((5 << 16) + (4 << 8) + 0)
    version_h.write_text("\n".join(
        f"#define LINUX_VERSION_CODE {old}" if l.startswith("#define LINUX_VERSION_CODE") else l
        for l in text.splitlines()) + "\n")
    refused(tree, f"KLIB={klib}", what=f"{klib}: kernel 5.4 is older than 5.10, the oldest this "
            "tree supports", fix="API_LEVEL=", case="test_output_tree.py::test_too_old_kernel_is_refused")


@pytest.mark.network
def test_unconfigured_headers_are_refused(tree, tmp_path):
    (tmp_path / "Makefile").write_text("all:\n")
    refused(tree, f"KLIB={tmp_path}", what=f"{tmp_path}: not a configured kernel build tree",
            fix="KLIB=", case="test_output_tree.py::test_unconfigured_headers_are_refused")
    assert os.listdir(tmp_path) == ["Makefile"]


@pytest.mark.network
def test_layout_assertion_stops_a_build_where_built_in_code_would_misread(fetched, tmp_path):
    kt = fetched.targets["6.12"]
    tree = retrofi_generate.generate(fetched.source, str(tmp_path)).out_path
    assert make(tree, f"KLIB={kt.headers}", "probes").returncode == 0
    probes = os.path.join(tree, "include", "retrofi", "probes.h")
    text = open(probes).read()
    assert "#define RETROFI_TARGET_OFFSETOF_wiphy_wext " in text

    def compile_main():
        return subprocess.run(["make", "-C", kt.headers, f"M={tree}", "compat/main.o"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    p = compile_main()
    assert p.returncode == 0 and os.path.exists(os.path.join(tree, "compat", "main.o")), p.stdout[-3000:]
    # The target's built-in wext code reading wiphy->wext somewhere else:
    lines = [("#define RETROFI_TARGET_OFFSETOF_wiphy_wext 8"
              if l.startswith("#define RETROFI_TARGET_OFFSETOF_wiphy_wext ") else l)
             for l in text.splitlines()]
    open(probes, "w").write("\n".join(lines) + "\n")
    p = compile_main()
    assert p.returncode != 0
    assert "struct wiphy.wext is not where the built-in code of the target reads it" in p.stdout
