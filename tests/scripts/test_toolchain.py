"""The toolchain root: a Debian release's compiler and tools unpacked into
the cache, keyed by their versions, in which a row this machine cannot
build for is built; commands run in it see their paths at their own
places and leave no mount behind."""

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import time

import pytest

import retrofi_apt
import retrofi_build
import retrofi_kernels
import retrofi_matrix
import retrofi_toolchain
from conftest import REPO, require_root
from retrofi_errors import RetrofiError


# ---------------------------------------------------------------- fakes

class FakeApt:
    """A suite as a dict: name -> (version, depends)."""

    def __init__(self, served, suites=("trixie",)):
        self.served = served
        self.suites = tuple(suites)
        self.updates = 0

    def update(self):
        self.updates += 1

    def versions(self, name):
        if name not in self.served:
            return []
        version, depends = self.served[name]
        return [retrofi_apt.Package(name=name, version=version,
                                    filename=f"pool/main/{name}_{version}_amd64.deb",
                                    size=1, sha256="", depends=depends)]


SUITE = {
    "gcc-14": ("14.2.0-19", "cpp-14 (= 14.2.0-19), libc6 (>= 2.38), binutils (>= 2.44) | binutils-gold"),
    "cpp-14": ("14.2.0-19", "libc6 (>= 2.38), libmpc3"),
    "libc6": ("2.41-12", "libgcc-s1"),
    "libgcc-s1": ("14.2.0-19", "libc6 (>= 2.35)"),
    "libmpc3": ("1.3.1-1+b3", "libc6"),
    "binutils": ("2.44-3", "binutils-common (= 2.44-3), debconf (>= 0.5) | debconf-2.0"),
    "binutils-common": ("2.44-3", ""),
    "binutils-gold": ("2.44-3", ""),
    "make": ("4.4.1-2", "libc6"),
}


def kernel_tree(tmp_path, cc="", toolchain=""):
    headers = tmp_path / "root/usr/src/linux-headers-7.3.4+deb13-amd64"
    headers.mkdir(parents=True, exist_ok=True)
    return retrofi_kernels.KernelTree(name="7.3", abi="7.3.4+deb13", version="7.3.4-1~bpo13+1",
                                      root=str(tmp_path / "root"), headers=str(headers),
                                      kernelrelease="7.3.4+deb13-amd64", image="", modules="",
                                      cc=cc, toolchain=toolchain)


# ---------------------------------------------------------------- resolution

def test_the_closure_follows_every_dependency_and_the_first_served_alternative():
    pkgs = retrofi_toolchain.resolve(FakeApt(SUITE), ["gcc-14", "make"])
    assert [p.name for p in pkgs] == ["binutils", "binutils-common", "cpp-14", "gcc-14",
                                      "libc6", "libgcc-s1", "libmpc3", "make"]
    # binutils | binutils-gold: the first; debconf | debconf-2.0: skipped
    # (no maintainer script runs in an unpacked root).
    assert "binutils-gold" not in [p.name for p in pkgs]


def test_an_alternative_already_chosen_satisfies_a_relation():
    suite = dict(SUITE, make=("4.4.1-2", "binutils-gold | binutils"))
    pkgs = retrofi_toolchain.resolve(FakeApt(suite), ["binutils", "make"])
    assert "binutils-gold" not in [p.name for p in pkgs]


def test_a_dependency_the_suite_does_not_serve_is_an_error_naming_who_needs_it():
    suite = dict(SUITE, libmpc3=("1.3.1-1+b3", "libc6, libgone9 | libgone10"))
    with pytest.raises(RetrofiError) as e:
        retrofi_toolchain.resolve(FakeApt(suite), ["gcc-14"])
    assert "libmpc3 depends on libgone9 | libgone10" in str(e.value)
    assert "TOOLCHAINS or SKIP" in e.value.fix


def test_a_listed_package_the_suite_does_not_serve_is_an_error():
    with pytest.raises(RetrofiError, match="package gcc-99 is not served by trixie"):
        retrofi_toolchain.resolve(FakeApt(SUITE), ["gcc-99"])


def test_the_root_key_moves_with_any_package_version():
    pkgs = retrofi_toolchain.resolve(FakeApt(SUITE), ["gcc-14"])
    key = retrofi_toolchain.content_key(pkgs)
    assert retrofi_toolchain.content_key(list(reversed(pkgs))) == key
    newer = [dataclasses.replace(p, version="2.41-13") if p.name == "libc6" else p for p in pkgs]
    assert retrofi_toolchain.content_key(newer) != key


# ---------------------------------------------------------------- the root in the cache

def _deb(debs, name, version):
    """A real .deb holding usr/share/<name>/version."""
    out = debs / f"{name}_{version}_amd64.deb"
    if out.exists():
        return str(out)
    d = debs / f"{name}-{version}"
    (d / "DEBIAN").mkdir(parents=True)
    (d / "DEBIAN/control").write_text(f"Package: {name}\nVersion: {version}\nArchitecture: amd64\n"
                                      f"Maintainer: t <t@t>\nDescription: t\n")
    (d / "usr/share" / name).mkdir(parents=True)
    (d / "usr/share" / name / "version").write_text(version)
    out = debs / f"{name}_{version}_amd64.deb"
    subprocess.run(["dpkg-deb", "-b", "-Zgzip", str(d), str(out)], check=True, capture_output=True)
    return str(out)


def test_a_root_is_made_once_per_package_versions_and_reused_without_the_network(tmp_path, monkeypatch):
    spec = retrofi_toolchain.Spec(suite="trixie", cc="gcc-14", packages=("gcc-14", "make"))
    monkeypatch.setitem(retrofi_toolchain.TOOLCHAINS, "fake", spec)
    proved = []
    monkeypatch.setattr(retrofi_toolchain, "_prove", lambda rootdir, cc: proved.append(rootdir))
    debs = tmp_path / "debs"
    debs.mkdir()
    suite = dict(SUITE)
    apt = FakeApt(suite)
    fetched = []

    def fetch(_apt, pkg, _debs):
        fetched.append((pkg.name, pkg.version))
        return _deb(debs, pkg.name, pkg.version)

    cache = str(tmp_path / "cache")
    first = retrofi_toolchain.root(cache, "fake", apt_factory=lambda c, s: apt, fetch=fetch)
    assert open(os.path.join(first.path, "usr/share/gcc-14/version")).read() == "14.2.0-19"
    assert os.path.basename(os.path.dirname(first.path)) == f"trixie-gcc-14-{first.key}"
    assert not os.path.lexists(os.path.join(first.path, "lib64")), "a link to nothing"
    assert ("libc6", "2.41-12") in first.packages and len(proved) == 1

    def offline(c, s):
        raise AssertionError("the network was asked for a root the cache has")
    assert retrofi_toolchain.root(cache, "fake", apt_factory=offline, fetch=fetch) == first

    # A new version in the archive, once the recorded resolution is dropped:
    # a new root beside the old one.
    os.unlink(os.path.join(cache, "toolchain", "fake.json"))
    suite["libc6"] = ("2.41-13", "libgcc-s1")
    second = retrofi_toolchain.root(cache, "fake", apt_factory=lambda c, s: FakeApt(suite),
                                    fetch=fetch)
    assert second.key != first.key and os.path.isdir(first.path)
    assert ("libc6", "2.41-13") in second.packages
    assert fetched.count(("libc6", "2.41-13")) == 1 and len(fetched) == 2 * len(first.packages)
    assert not [d for d in os.listdir(os.path.join(cache, "toolchain")) if d.startswith(".tmp")]


def test_a_root_whose_compiler_fails_is_not_kept(tmp_path, monkeypatch):
    spec = retrofi_toolchain.Spec(suite="trixie", cc="gcc-14", packages=("make",))
    monkeypatch.setitem(retrofi_toolchain.TOOLCHAINS, "fake", spec)

    def broken(rootdir, cc):
        raise RetrofiError("the toolchain root does not work: gcc-14: not found", where=rootdir)
    monkeypatch.setattr(retrofi_toolchain, "_prove", broken)
    debs = tmp_path / "debs"
    debs.mkdir()
    cache = tmp_path / "cache"
    with pytest.raises(RetrofiError, match="does not work"):
        retrofi_toolchain.root(str(cache), "fake", apt_factory=lambda c, s: FakeApt(SUITE),
                               fetch=lambda a, p, d: _deb(debs, p.name, p.version))
    assert os.listdir(cache / "toolchain") == ["debs"]


# ---------------------------------------------------------------- which rows use it

def test_a_row_this_machine_builds_itself_gets_no_root(tmp_path):
    def never(cache, name):
        raise AssertionError("a root was made for a row this machine builds")
    k = kernel_tree(tmp_path, cc="sh", toolchain="trixie")
    assert retrofi_toolchain.for_kernel(k, str(tmp_path), make_root=never) is None


def test_a_row_without_its_compiler_is_built_in_its_toolchain_root(tmp_path, monkeypatch):
    monkeypatch.setattr(retrofi_toolchain, "usable", lambda: "")
    made = []
    k = kernel_tree(tmp_path, cc="gcc-no-such-version", toolchain="trixie")
    retrofi_toolchain.for_kernel(k, "/c", make_root=lambda cache, name: made.append((cache, name)))
    assert made == [("/c", "trixie")]


def test_a_row_without_its_compiler_or_a_toolchain_is_refused_before_any_work(tmp_path):
    k = kernel_tree(tmp_path, cc="gcc-no-such-version")
    with pytest.raises(RetrofiError) as e:
        retrofi_toolchain.for_kernel(k, str(tmp_path), make_root=None)
    assert "target 7.3 cannot be built on this machine: it needs the compiler " \
           "gcc-no-such-version" in e.value.what
    assert "toolchain: trixie" in e.value.fix


def test_a_row_whose_root_cannot_run_here_is_refused_saying_why(tmp_path, monkeypatch):
    monkeypatch.setattr(retrofi_toolchain, "usable",
                        lambda: "a toolchain root needs root (mount namespaces and chroot)")
    k = kernel_tree(tmp_path, cc="gcc-no-such-version", toolchain="trixie")
    with pytest.raises(RetrofiError, match=r"toolchain root \(trixie\) cannot be used here: "
                                           r"a toolchain root needs root"):
        retrofi_toolchain.for_kernel(k, str(tmp_path), make_root=None)


def test_a_build_in_a_root_has_its_own_build_key(tmp_path):
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "a.c").write_text("x")
    k = kernel_tree(tmp_path)
    assert retrofi_build.build_key(str(tree), k) == retrofi_build.build_key(str(tree), k, "", "wifi", "")
    assert retrofi_build.build_key(str(tree), k, "", "wifi", "abc") != retrofi_build.build_key(str(tree), k)


# ---------------------------------------------------------------- the matrix

def test_the_matrix_carries_a_rows_toolchain_to_its_family_rows():
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    rows = {t.name: t for t in m.targets}
    assert rows["7.3"].toolchain == "trixie"
    assert rows["7.3.4+deb13-amd64"].toolchain == "trixie"
    assert rows["6.12"].toolchain == ""


def test_an_unknown_toolchain_in_the_matrix_is_an_error_at_its_line(tmp_path):
    text = open(os.path.join(REPO, "kernel-matrix.yaml")).read()
    bad = text.replace("    toolchain: trixie\n    boot_timeout", "    toolchain: sid\n    boot_timeout", 1)
    assert bad != text
    (tmp_path / "kernel-matrix.yaml").write_text(bad)
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.load(str(tmp_path / "kernel-matrix.yaml"))
    line = bad[:bad.index("toolchain: sid")].count("\n") + 1
    assert f":{line}" in str(e.value) and "unknown toolchain 'sid'" in str(e.value)
    assert "trixie" in str(e.value)


# ---------------------------------------------------------------- running in a root

def _mini_root(path):
    """A root of the host's sh, env, cat, sleep and their libraries."""
    progs = {"sh": shutil.which("dash") or shutil.which("sh"), "env": shutil.which("env"),
             "cat": shutil.which("cat"), "sleep": shutil.which("sleep"),
             "touch": shutil.which("touch")}
    for name, prog in progs.items():
        os.makedirs(path / "usr/bin", exist_ok=True)
        shutil.copy(prog, path / "usr/bin" / name)
        out = subprocess.run(["ldd", prog], capture_output=True, text=True).stdout
        for lib in [w for w in out.split() if w.startswith("/")]:
            dest = path / lib.lstrip("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(lib, dest)
    for d in retrofi_toolchain.SYSTEM_DIRS:
        (path / d).mkdir()
    return str(path)


def _mounts_of(path):
    return [l for l in open("/proc/self/mountinfo") if path in l]


@pytest.mark.root
def test_a_command_in_a_root_sees_its_binds_at_their_own_paths_and_leaves_no_mount(tmp_path):
    require_root("mount in a private namespace")
    root = _mini_root(tmp_path / "root")
    data, work = tmp_path / "data", tmp_path / "work"
    data.mkdir()
    work.mkdir()
    (data / "in").write_text("headers\n")
    script = (f"cat {data}/in > {work}/out; "
              f"if touch {data}/written 2>/dev/null; then echo data-writable; fi; "
              f"echo $PATH")
    before = sorted(os.listdir(root))
    p = subprocess.run(retrofi_toolchain.command(root, ["sh", "-c", script], rw=[work], ro=[data],
                                                 env={"PATH": "/host/only", "MAKEFLAGS": " -j2"}),
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (work / "out").read_text() == "headers\n"
    assert "data-writable" not in p.stdout and not (data / "written").exists()
    assert p.stdout.strip() == "/usr/bin:/usr/sbin"
    assert _mounts_of(root) == []
    # The mount points were made in the private /tmp, not in the root.
    assert sorted(os.listdir(root)) == before and os.listdir(os.path.join(root, "tmp")) == []


@pytest.mark.root
def test_a_killed_command_leaves_no_mount_behind(tmp_path):
    require_root("mount in a private namespace")
    root = _mini_root(tmp_path / "root")
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.Popen(retrofi_toolchain.command(root, ["sh", "-c", f"touch {work}/up; sleep 60"],
                                                      rw=[work]))
    try:
        for _ in range(100):
            if (work / "up").exists():
                break
            time.sleep(0.1)
        assert (work / "up").exists()
        assert _mounts_of(root) == [], "the build's mounts are visible on the host"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert _mounts_of(root) == []
    assert not any(root in l for l in open("/proc/1/mountinfo"))


# ---------------------------------------------------------------- a real build in the root

@pytest.mark.network
@pytest.mark.root
def test_a_module_builds_in_the_toolchain_root_for_a_kernel_this_machine_cannot_build(tmp_path):
    """Against the headers of a row naming a toolchain (Debian 13's 7.x,
    built with gcc-14, its host programs needing glibc 2.38): on a
    bookworm machine the build runs in trixie's root, made once in the
    shared cache (content-keyed) and reused by this test's private cache."""
    require_root("build in a toolchain root")
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    # A build-only row: its headers only, no image to download.
    row = [t for t in m.targets if t.toolchain and t.kind == "build-only" and t.flavour == "amd64"][-1]
    kernel = retrofi_kernels.fetch(m, names=[row.name], with_source=False).targets[row.name]
    if not retrofi_toolchain.host_lacks(kernel):
        pytest.skip(f"this machine builds for {row.name} itself: no root to prove")
    shared = os.path.join(retrofi_kernels.cache_dir(), "toolchain")
    os.makedirs(shared, exist_ok=True)
    cache = tmp_path / "cache"
    cache.mkdir()
    os.symlink(shared, cache / "toolchain")
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "Makefile").write_text("all:\n\t$(MAKE) -C $(KLIB) M=$(CURDIR) modules\n")
    (tree / "Kbuild").write_text("obj-m += tiny.o\n")
    (tree / "tiny.c").write_text('#include <linux/module.h>\nMODULE_LICENSE("GPL");\n'
                                 'MODULE_DESCRIPTION("built in a toolchain root");\n'
                                 "static int __init t_init(void) { return 0; }\n"
                                 "module_init(t_init);\n")
    result = retrofi_build.build(str(tree), kernel, str(tmp_path / "b.log"), cache=str(cache), jobs=2)
    log = open(result.log).read()
    assert result.ok, result.summary() + "\n" + log[-3000:]
    assert result.modules == ("tiny.ko",) and "# in the toolchain root " in log
    # The module says it was built by the kernel's own compiler.
    comment = subprocess.run(["readelf", "-p", ".comment", os.path.join(result.tree, "tiny.ko")],
                             capture_output=True, text=True).stdout
    assert "(Debian 14." in comment, comment
    assert _mounts_of(result.tree) == []


@pytest.mark.root
def test_a_writable_bind_not_made_yet_is_made_for_the_command_to_fill(tmp_path):
    # As make install's INSTALL_MOD_PATH: the command creates what it writes.
    require_root("mount in a private namespace")
    root = _mini_root(tmp_path / "root")
    dest = tmp_path / "stage" / "install"
    p = subprocess.run(retrofi_toolchain.command(root, ["sh", "-c", f"echo ko > {dest}/m.ko"],
                                                 rw=[dest]),
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (dest / "m.ko").read_text() == "ko\n"
    assert _mounts_of(root) == []


# ---------------------------------------------------------------- the output tree's compiler check

PROBE = os.path.join(REPO, "compat", "probe.sh")


def check_cc(tmp_path, named, installed):
    """compat/probe.sh --check-cc against headers whose Makefile names the
    compiler `named`, with a PATH whose only compilers are `installed`
    ({command: the major its -dumpversion prints}): (exit status, output)."""
    klib, bindir = tmp_path / "klib", tmp_path / "bin"
    for d in (klib, bindir):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir()
    (klib / "Makefile").write_text(f"CC = {named}\ninclude $(M)/Kbuild\ncc.i: ;@:\n")
    for tool in ("make", "sed", "mktemp", "ls", "grep", "sort", "tail", "head", "rm", "tr",
                 "awk", "cut", "cat"):
        os.symlink(shutil.which(tool), bindir / tool)
    for cc, major in installed.items():
        (bindir / cc).write_text(f"#!/bin/sh\necho {major}.2.0\n")
        (bindir / cc).chmod(0o755)
    p = subprocess.run(["/bin/sh", PROBE, "--check-cc", str(klib)], capture_output=True,
                       text=True, env=dict(os.environ, PATH=str(bindir)))
    return p.returncode, p.stdout + p.stderr


def test_the_missing_compiler_fix_never_offers_an_older_gcc_and_names_the_release_that_has_one(tmp_path):
    """Debian 13's headers name x86_64-linux-gnu-gcc-14; on a bookworm host
    gcc-12 refuses their -fmin-function-alignment=16, so offering
    `make CC=gcc-12` points the wrong way: the fix says no installed
    compiler is new enough and names the release that has one."""
    rc, out = check_cc(tmp_path, "x86_64-linux-gnu-gcc-14", {"gcc-12": 12, "gcc": 12})
    assert rc == 1
    error, fix = out.splitlines()
    assert error.endswith(": x86_64-linux-gnu-gcc-14 is not installed: the compiler the target's "
                          "headers name (CC=x86_64-linux-gnu-gcc-14 in their Makefile)"), error
    assert "CC=gcc-12" not in fix and "CC=gcc " not in fix, fix
    assert fix.startswith("  fix: no installed compiler is gcc-14 or newer "
                          "(installed: gcc-12, gcc 12; "), fix
    assert "Debian 13 (trixie) has it" in fix and "trixie's toolchain root" in fix, fix


def test_the_missing_compiler_fix_offers_the_oldest_installed_gcc_at_least_as_new(tmp_path):
    rc, out = check_cc(tmp_path, "x86_64-linux-gnu-gcc-14",
                       {"gcc-12": 12, "gcc-15": 15, "gcc-16": 16, "gcc": 12})
    assert rc == 1 and "make CC=gcc-15 (DKMS: RETROFI_CC=gcc-15 dkms ...)" in out, out
    # 5.10's headers name gcc-10; bookworm's gcc-12 builds them.
    rc, out = check_cc(tmp_path, "gcc-10", {"gcc-12": 12, "gcc": 12})
    assert rc == 1 and "at least as new: make CC=gcc-12 " in out, out
    # The plain gcc counts by its version.
    rc, out = check_cc(tmp_path, "gcc-10", {"gcc": 12})
    assert rc == 1 and "make CC=gcc " in out, out
    rc, out = check_cc(tmp_path, "gcc-12", {"gcc-12": 12})
    assert (rc, out) == (0, "")


def test_the_release_the_missing_compiler_fix_names_is_the_toolchain_roots():
    """probe.sh's table of releases agrees with the toolchain roots the
    matrix builds in (retrofi_toolchain.TOOLCHAINS): each root's compiler
    is named with its release."""
    for name, spec in retrofi_toolchain.TOOLCHAINS.items():
        major = spec.cc.split("-")[-1]
        release = subprocess.run(
            ["/bin/sh", "-c", 'eval "$(sed -n "/^release_with() {/,/^}/p" "$0")"; release_with "$1"',
             PROBE, major], capture_output=True, text=True).stdout.strip()
        assert release.endswith(f"({name})"), (spec.cc, release)
