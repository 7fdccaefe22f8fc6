"""Shared fixtures: the scripts on sys.path, the repository, the cache."""

import os
import re
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))

PYTHON = "/usr/bin/python3"

# The matrix runs of the tests report firmware from the cache only: a cold
# cache would otherwise download every firmware package in each row
# (test_firmware.py fetches through apt on purpose, with small packages).
os.environ.setdefault("RETROFI_FIRMWARE_OFFLINE", "1")
CLI = os.path.join(REPO, "scripts", "retrofi.py")


def pytest_configure(config):
    config.addinivalue_line("markers", "network: needs Debian's archive (package lists or downloads)")
    config.addinivalue_line("markers", "root: needs root (mounts a tmpfs)")


# Disk: a whole `make check` writes some 14 GB of farms, trees and
# packages under pytest's base directory, and pytest keeps the last three
# runs.  A passed test's tmp_path is removed as soon as it passed, and a
# run that passed leaves nothing behind; what failed stays for reading.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed:
        item._retrofi_keep_tmp = True


@pytest.fixture(autouse=True)
def _drop_passed_tmp_path(request):
    yield
    path = getattr(request.node, "funcargs", {}).get("tmp_path")
    if path is None or getattr(request.node, "_retrofi_keep_tmp", False):
        return
    shutil.rmtree(path, ignore_errors=True)


def pytest_sessionfinish(session, exitstatus):
    factory = getattr(session.config, "_tmp_path_factory", None)
    if exitstatus != 0 or factory is None or factory._basetemp is None:
        return
    shutil.rmtree(factory._basetemp, ignore_errors=True)


NO_ROOT = "RETROFI_TEST_NO_ROOT"


def require_root(what):
    """A root-only test (it mounts a tmpfs): not root is a failure, unless
    RETROFI_TEST_NO_ROOT=1 says to skip such tests (then an explicit
    skip, never a silent one)."""
    if os.geteuid() == 0:
        return
    if os.environ.get(NO_ROOT) == "1":
        pytest.skip(f"{NO_ROOT}=1: not run (needs root to {what})")
    pytest.fail(f"needs root to {what}; run the tests as root, or set {NO_ROOT}=1 "
                f"to skip the root-only tests explicitly", pytrace=False)


# The modules of the output tree (defconfig-wifi), relative to the tree.
STACK_MODULES = ["compat/compat.ko", "net/wireless/cfg80211.ko", "net/mac80211/mac80211.ko",
                 "drivers/net/wireless/virtual/mac80211_hwsim.ko",
                 "drivers/net/wireless/ath/ath.ko", "drivers/net/wireless/ath/ath9k/ath9k.ko",
                 "drivers/net/wireless/ath/ath9k/ath9k_hw.ko",
                 "drivers/net/wireless/ath/ath9k/ath9k_common.ko",
                 "drivers/net/wireless/ath/ath5k/ath5k.ko"]


def oldest_default_real(matrix_path=os.path.join(REPO, "kernel-matrix.yaml")):
    """The oldest real target that `make matrix` runs by default: the one
    whose kernel exercises the most of the compat layer."""
    import functools
    import retrofi_debversion
    import retrofi_matrix
    m = retrofi_matrix.load(matrix_path)
    reals = [t for t in m.select() if t.kind == "real"]
    return min(reals, key=functools.cmp_to_key(lambda a, b: retrofi_debversion.compare(a.name, b.name)))


def lts_source(matrix_path=os.path.join(REPO, "kernel-matrix.yaml")):
    """The long-term source's name (lts: true): the tests that keep its
    stack building on its targets select it (SOURCE=, with_source())."""
    import retrofi_matrix
    (name,) = [s.name for s in retrofi_matrix.load(matrix_path).all_sources() if s.lts]
    return name


def lts_matrix(matrix_path=os.path.join(REPO, "kernel-matrix.yaml")):
    """The matrix with the long-term source selected."""
    import retrofi_matrix
    return retrofi_matrix.load(matrix_path).with_source(lts_source(matrix_path))


@pytest.fixture(scope="session")
def fetched():
    """The source and default targets, fetched into the cache (as `make kernels`)."""
    import retrofi_kernels
    import retrofi_matrix
    return retrofi_kernels.fetch(retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml")))


def modinfo(path, field):
    return subprocess.run(["modinfo", "-F", field, path], stdout=subprocess.PIPE, text=True,
                          check=True).stdout.strip()


def assert_stack_built(p, tree, kernelrelease):
    """A make run p built the whole stack in tree for kernelrelease: no
    error, no warning, every module there for that kernel and depending on
    compat.ko."""
    assert p.returncode == 0, p.stdout[-5000:]
    assert [line for line in p.stdout.splitlines() if "warning:" in line] == []
    assert_stack_modules(tree, kernelrelease)


def assert_stack_build_result(b, kernelrelease):
    """A retrofi_build.build() result (make KLIB=... in the content-keyed
    copy of the tree, shared by every test building the same tree for the
    same kernel and settings): no error, no warning in its log, every
    module there for that kernel and depending on compat.ko."""
    log = open(b.log, errors="replace").read()
    assert b.ok, b.summary() + "\n" + log[-5000:]
    assert "\n$ make -C " + b.tree + " " in "\n" + log, "the log is the make run's"
    assert [line for line in log.splitlines() if "warning:" in line] == [] == list(b.warnings)
    assert_stack_modules(b.tree, kernelrelease)


def shared_build(tree, kt, log_dir, **kw):
    """The whole stack built from tree for kt through the build stage's
    content-keyed cache: a test building what another test (or a matrix
    run of the suite) already built reuses that build instead of compiling
    it again."""
    import retrofi_build
    return retrofi_build.build(tree, kt, os.path.join(str(log_dir), f"build-{kt.name}.log"), **kw)


def assert_stack_modules(tree, kernelrelease):
    """Every stack module in tree, built for kernelrelease, each depending
    on compat.ko."""
    for ko in STACK_MODULES:
        path = os.path.join(tree, ko)
        assert os.path.isfile(path), ko
        assert modinfo(path, "vermagic").startswith(kernelrelease + " "), ko
        if not ko.startswith("compat/"):
            assert "compat" in modinfo(path, "depends").split(","), ko


def private_cache(dst):
    """A cache of its own (for RETROFI_CACHE) whose entries link to the shared
    cache's, except the KVM verdicts (<cache>/accel) and the stored boots
    (<cache>/boot): a test acting out a machine (a stand-in QEMU) writes
    its verdicts and boots there, never into the shared cache, and finds
    none that an earlier run stored."""
    import retrofi_kernels
    real = retrofi_kernels.cache_dir()
    # The content-keyed stages' directories are shared even before their
    # first use (what the test builds, later tests reuse).
    for n in ("build", "initramfs", "kbuild"):
        os.makedirs(os.path.join(real, n), exist_ok=True)
    os.makedirs(dst)
    for n in os.listdir(real):
        if n not in ("accel", "boot") and not n.startswith("."):
            os.symlink(os.path.join(real, n), os.path.join(dst, n))
    return str(dst)


def headers_compiler(kt):
    """The compiler kt's headers name (Debian: .kernelvariables)."""
    text = open(os.path.join(kt.headers, ".kernelvariables")).read()
    m = re.search(r"\)(gcc-\d+)\s*$", text, re.M)
    assert m, f"{kt.headers}/.kernelvariables names no gcc-NN"
    return m.group(1)


def path_without(bindir, name):
    """A PATH like this one, without the program name: a directory of
    symlinks to everything else on PATH."""
    bindir.mkdir()
    for d in os.environ["PATH"].split(":"):
        if os.path.isdir(d):
            for n in os.listdir(d):
                if n != name and not (bindir / n).exists():
                    os.symlink(os.path.join(d, n), bindir / n)
    return str(bindir)


@pytest.fixture
def repo():
    return REPO


def run_cli(*args, env=None, cwd=None):
    """Run the retrofi CLI as a user would; returns the CompletedProcess."""
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([PYTHON, CLI, *args], env=e, cwd=cwd or REPO, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def cli():
    return run_cli


def out_tree_kbuild(path, overlays=()):
    """The output tree's Kbuild files (compat/Kbuild included), config/ and
    defconfigs/ as the repository has them, copied to path (a str): what
    decides which modules a build selects (retrofi_selection).  overlays:
    directories of drivers/ (out-tree-since-X.Y) copied on top, in order."""
    import shutil
    for src in [os.path.join(REPO, "drivers", "out-tree"), *overlays]:
        for root, _, files in os.walk(src):
            for f in files:
                rel = os.path.relpath(os.path.join(root, f), src)
                if f == "Kbuild" or rel.startswith(("config/", "defconfigs/")):
                    os.makedirs(os.path.dirname(os.path.join(path, rel)), exist_ok=True)
                    shutil.copyfile(os.path.join(root, f), os.path.join(path, rel))
    os.makedirs(os.path.join(path, "compat"), exist_ok=True)
    shutil.copyfile(os.path.join(REPO, "compat", "Kbuild"), os.path.join(path, "compat", "Kbuild"))
    return path


def selected_drivers_config_mk(path, defconfig="wifi"):
    """The config.mk lines config.sh writes for the options that obj- lines
    of the Kbuild files under path read and that config/options sets to a
    driver selection (NAME sel:DRIVER): m where defconfigs/<defconfig>
    selects RETROFI_DRIVER=m, else empty. Other options are left out (a
    stub tree that needs one says so itself)."""
    import re
    read = set()
    for root, _, files in os.walk(path):
        if "Kbuild" in files:
            with open(os.path.join(root, "Kbuild")) as f:
                read.update(re.findall(r"^obj-\$\(RETROFI_CONFIG_(\w+)\)", f.read(), re.M))
    with open(os.path.join(path, "defconfigs", defconfig)) as f:
        chosen = set(re.findall(r"^RETROFI_(\w+)=m\s*$", f.read(), re.M))
    lines = []
    with open(os.path.join(path, "config", "options")) as f:
        for m in re.finditer(r"^(\w+)\s+sel:(\w+)", f.read(), re.M):
            if m.group(1) in read:
                on = m.group(2) in chosen
                # unselected: empty, with no reason (as config.sh writes it)
                lines.append(f"RETROFI_CONFIG_{m.group(1)} :=" + (" m" if on else ""))
    return "".join(l + "\n" for l in lines)


def wifi_tree(path):
    """out_tree_kbuild() with the include/retrofi/config.mk of its driver
    options (no build): the wifi defconfig's modules."""
    out_tree_kbuild(path)
    os.makedirs(os.path.join(path, "include", "retrofi"))
    with open(os.path.join(path, "include", "retrofi", "config.mk"), "w") as f:
        f.write(selected_drivers_config_mk(path))
    return path
