"""The toolchain root: the compiler a target's kernel was built with, and
the tools its headers' Makefile runs, from that kernel's Debian release,
unpacked into the cache (never installed on this machine); the build stage
runs make for such a target inside it.

Why: Debian 13 (trixie) built its kernels with gcc-14, whose flags an
older gcc refuses, and the headers' prebuilt host programs (modpost,
objtool, fixdep, resolve_btfids) need trixie's C library.  A bookworm
machine has neither; the root brings both, from Debian's archive, through
the project's private apt configuration (retrofi_apt: signatures and
hashes checked).

In:  a toolchain name (the matrix's `toolchain:`), e.g. "trixie".
Out: a Root: <cache>/toolchain/<suite>-<cc>-<key>/root, the packages of
     TOOLCHAINS[name] and their dependency closure unpacked with
     dpkg-deb -x, key = hash of the resolved package versions (content: a
     new gcc-14 in the archive is a new root), stamp.json written last
     and only after the compiler has run inside the root.  The resolution
     (network) is done once per package list and suite and recorded in
     <cache>/toolchain/<name>.json; a later run reuses it and its root
     without the network.  Delete that file to move to the archive's
     newest versions.

Running in it (command()): `unshare --mount --propagation private` gives
the build a mount namespace of its own; inside it the paths the build
needs (the build copy, read-write; the target's unpacked packages,
read-only) are bind-mounted into the root at the same absolute paths (so
the headers' relative -common include and Kbuild's recorded paths hold),
with /proc, /dev and a private /tmp, and the command runs under chroot.
The mounts live only in that namespace: they vanish with its last
process, however it ends (killed included), and never appear on the host.
"""

import collections
import dataclasses
import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from typing import Tuple

import retrofi_apt
import retrofi_fs
import retrofi_pins
from retrofi_errors import RetrofiError


@dataclasses.dataclass(frozen=True)
class Spec:
    suite: str
    cc: str
    packages: Tuple[str, ...]


# The packages of a module build's root: the C library, the compiler
# (its dependencies bring cpp, binutils, libgcc's include directory), make,
# the shell and text tools Kbuild's and the output tree's Makefiles call
# (sh, sed, grep, awk, find, cmp, sort, sha256sum...), pahole for module
# BTF (Debian's kernels have CONFIG_DEBUG_INFO_BTF_MODULES), and the
# libraries of the headers' resolve_btfids (libelf, zlib).
TOOLCHAINS = {
    "trixie": Spec(suite="trixie", cc="gcc-14",
                   packages=("libc6", "libc-bin", "gcc-14", "make", "dash", "bash",
                             "coreutils", "sed", "grep", "mawk", "findutils", "diffutils",
                             "dwarves", "libelf1t64", "zlib1g", "kmod", "perl-base")),
}

# Dependencies not followed: maintainer-script helpers (no maintainer
# script runs in a root made with dpkg-deb -x).
SKIP = frozenset({"debconf", "debconf-2.0", "cdebconf", "install-info", "dpkg",
                  "debianutils", "init-system-helpers", "usrmerge", "usr-is-merged",
                  "base-files"})

# Links a real installation makes in maintainer scripts or by the /usr
# merge: (path in the root, target), made when the path is absent.
LINKS = (("bin", "usr/bin"), ("sbin", "usr/sbin"), ("lib", "usr/lib"), ("lib64", "usr/lib64"),
         ("usr/bin/sh", "dash"), ("usr/bin/awk", "mawk"))

# The mount points every command in the root gets.
SYSTEM_DIRS = ("proc", "dev", "tmp")


@dataclasses.dataclass(frozen=True)
class Root:
    name: str                      # TOOLCHAINS key
    path: str                      # the root directory
    cc: str
    packages: Tuple[Tuple[str, str], ...]   # (name, version), sorted
    key: str


def log(msg):
    print(f"[toolchain] {msg}", flush=True)


def spec_for(name, where="kernel-matrix.yaml"):
    try:
        return TOOLCHAINS[name]
    except KeyError:
        raise RetrofiError(f"unknown toolchain {name!r}", where=where,
                           fix=f"use one of: {', '.join(sorted(TOOLCHAINS))} "
                               f"(scripts/retrofi_toolchain.py TOOLCHAINS)")


def spec_digest(spec):
    return hashlib.sha256(json.dumps(dataclasses.asdict(spec), sort_keys=True)
                          .encode()).hexdigest()[:16]


def content_key(pkgs):
    """The root's key: its package versions (and the links made in it)."""
    text = json.dumps([sorted((p.name, p.version) for p in pkgs), list(LINKS)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def resolve(apt, packages, skip=SKIP):
    """The packages and their Depends/Pre-Depends closure in apt's suites,
    newest versions: for each relation, an alternative already chosen,
    else the first one the suites serve.  A relation none of whose
    alternatives is served (or skipped) is an error naming who needs it.
    Versioned relations are not compared: one suite, its newest versions."""
    chosen, todo = {}, collections.deque((name, None) for name in packages)
    while todo:
        name, needed_by = todo.popleft()       # breadth first: the listed packages first
        if name in chosen:
            continue
        cands = apt.versions(name)
        if not cands:
            raise RetrofiError(f"package {name}" + (f" (needed by {needed_by})" if needed_by else "")
                               + f" is not served by {', '.join(apt.suites)}",
                               where="retrofi_toolchain.TOOLCHAINS",
                               fix="check the package name against the suite")
        pkg = retrofi_pins.newest(cands)
        chosen[name] = pkg
        for alts in retrofi_apt.parse_depends(pkg.depends):
            names = [a[0] for a in alts]
            if any(n in chosen or n in skip for n in names):
                continue
            for n in names:
                if apt.versions(n):
                    todo.append((n, name))
                    break
            else:
                raise RetrofiError(f"{name} depends on {' | '.join(names)}, which "
                                   f"{', '.join(apt.suites)} does not serve",
                                   where=f"{name}={pkg.version}",
                                   fix="add the package that provides it to TOOLCHAINS or SKIP "
                                       "in scripts/retrofi_toolchain.py")
    return [chosen[n] for n in sorted(chosen)]


def _root_dir(cache, spec, key):
    return os.path.join(cache, "toolchain", f"{spec.suite}-{spec.cc}-{key}")


def _load(final, name, spec, key):
    stamp = os.path.join(final, "stamp.json")
    if not os.path.exists(stamp):
        return None
    with open(stamp) as f:
        data = json.load(f)
    return Root(name, os.path.join(final, "root"), spec.cc,
                tuple(map(tuple, data["packages"])), key)


def root(cache, name, apt_factory=None, fetch=None):
    """The toolchain root named name, made once (keyed by its package
    versions) and reused.  apt_factory(cache, suites) and fetch(apt, pkg,
    debs_dir) -> .deb path are replaceable for tests."""
    spec = spec_for(name)
    parent = os.path.join(cache, "toolchain")
    pointer = os.path.join(parent, f"{name}.json")
    digest = spec_digest(spec)
    try:
        with open(pointer) as f:
            recorded = json.load(f)
        if recorded.get("spec") == digest:
            found = _load(_root_dir(cache, spec, recorded["key"]), name, spec, recorded["key"])
            if found:
                return found
    except (OSError, ValueError, KeyError):
        pass
    os.makedirs(parent, exist_ok=True)
    apt = (apt_factory or retrofi_apt.PrivateApt)(cache, [spec.suite])
    log(f"resolving the {name} toolchain ({spec.cc}) in {spec.suite}")
    apt.update()
    pkgs = resolve(apt, spec.packages)
    key = content_key(pkgs)
    final = _root_dir(cache, spec, key)
    if not os.path.exists(os.path.join(final, "stamp.json")):
        _make(cache, spec, pkgs, final, apt, fetch or retrofi_apt.fetch_verified)
    _write_json(pointer, {"spec": digest, "key": key,
                          "packages": [[p.name, p.version] for p in pkgs]})
    return _load(final, name, spec, key)



def _make(cache, spec, pkgs, final, apt, fetch):
    parent = os.path.dirname(final)
    debs = os.path.join(parent, "debs")
    os.makedirs(debs, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".tmp-{os.path.basename(final)}-", dir=parent)
    try:
        rootdir = os.path.join(tmp, "root")
        os.makedirs(rootdir)
        for i, p in enumerate(pkgs, 1):
            deb = fetch(apt, p, debs)
            _run(["dpkg-deb", "-x", deb, rootdir], f"unpacking {p.deb_name}")
        log(f"{len(pkgs)} packages unpacked")
        for path, target in LINKS:
            full = os.path.join(rootdir, path)
            if not os.path.lexists(full) and \
                    os.path.lexists(os.path.join(os.path.dirname(full), target)):
                os.symlink(target, full)
        for d in SYSTEM_DIRS:
            os.makedirs(os.path.join(rootdir, d), exist_ok=True)
        _prove(rootdir, spec.cc)
        _write_json(os.path.join(tmp, "stamp.json"),
                    {"suite": spec.suite, "cc": spec.cc,
                     "packages": [[p.name, p.version] for p in pkgs]})
        retrofi_fs.publish_once(tmp, final)      # or another run's, the same
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    log(f"{spec.suite} {spec.cc} root: {final}")


def _prove(rootdir, cc):
    """The root works before it is published: its compiler finds its own
    include directory, and make and pahole run."""
    script = (f"{cc} -print-file-name=include && make --version | head -1 "
              f"&& pahole --version && sh -c 'echo x | sed s/x/y/ | awk 1 | grep -q y'")
    p = subprocess.run(command(rootdir, ["sh", "-c", script]), text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    inc = (p.stdout.splitlines() or [""])[0].strip()
    if p.returncode != 0 or not os.path.isdir(rootdir + inc):
        raise RetrofiError(f"the toolchain root does not work: {p.stdout.strip()[-800:]}",
                           where=rootdir,
                           fix="add the missing package to TOOLCHAINS in "
                               "scripts/retrofi_toolchain.py (the root is not kept)")


def command(rootdir, argv, rw=(), ro=(), env=None):
    """argv run inside the root, in a mount namespace of its own, with rw
    and ro bind-mounted at their own absolute paths.  Needs root (CI runs
    as root) and util-linux's unshare."""
    binds = [(os.path.abspath(p), "rw") for p in rw] + [(os.path.abspath(p), "ro") for p in ro]
    # The system directories first: a bind under /tmp (a scratch
    # directory) goes on top of the private /tmp.
    lines = ["set -e", 'R="$1"; shift',
             'mount -t proc proc "$R/proc"', 'mount --rbind /dev "$R/dev"',
             'mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"']
    # Mount points under a top directory the root lacks (/work) are made
    # in a tmpfs there: the cached root gets one empty directory, not one
    # per build.
    tops = sorted({p.split("/")[1] for p, _ in binds} - set(SYSTEM_DIRS))
    for top in tops:
        q = shlex.quote("/" + top)
        lines.append(f'if [ ! -e "$R"{q} ]; then mkdir "$R"{q}; fi; '
                     f'if [ -z "$(ls -A "$R"{q})" ]; then mount -t tmpfs tmpfs "$R"{q}; fi')
    # A writable bind not made yet is a directory the command is to fill
    # (make install's INSTALL_MOD_PATH): made on this machine first, as the
    # command itself would make it there.
    for path, mode in binds:
        q = shlex.quote(path)
        if mode == "rw":
            lines.append(f'mkdir -p {q}')
        lines.append(f'mkdir -p "$R"{q}; mount --bind {q} "$R"{q}')
        if mode == "ro":
            lines.append(f'mount -o remount,bind,ro "$R"{q}')
    lines += ['exec chroot "$R" /usr/bin/env -i ' + " ".join(
                  shlex.quote(f"{k}={v}") for k, v in sorted(_env(env).items())) + ' "$@"']
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            "\n".join(lines), "retrofi-toolchain", rootdir] + list(argv)


def _env(env):
    """The environment inside the root: a clean one (the host's PATH and
    library paths mean nothing there), keeping make's jobserver."""
    env = dict(os.environ if env is None else env)
    kept = {k: env[k] for k in ("MAKEFLAGS", "MFLAGS", "TERM") if k in env}
    kept.update(PATH="/usr/bin:/usr/sbin", LC_ALL="C.UTF-8", HOME="/tmp")
    return kept


# The headers' prebuilt host programs that every module build runs.
HOST_TOOLS = ("tools/objtool/objtool", "scripts/mod/modpost", "scripts/basic/fixdep")


def host_lacks(kernel):
    """What this machine lacks to build for kernel itself: the compiler
    its row names (its kernel's flags are that compiler's; an older one
    refuses them), and a C library new enough for the headers' prebuilt
    host programs.  [] when it lacks nothing."""
    missing = []
    if kernel.cc and not shutil.which(kernel.cc):
        missing.append(f"the compiler {kernel.cc} (the kernel was built with it; an older "
                       f"compiler refuses the flags in its headers' Makefile)")
    for tool in HOST_TOOLS:
        path = os.path.join(kernel.headers, tool)
        if not os.access(path, os.X_OK):
            continue
        st = os.stat(path)
        glibc = _glibc_missing(path, st.st_ino, st.st_mtime_ns)
        if glibc:
            missing.append(f"a C library with {glibc} for the headers' {tool} (this "
                           f"machine has glibc {'.'.join(_libc_version())})")
            break
    return missing


@functools.lru_cache(maxsize=None)
def _glibc_missing(path, ino, mtime_ns):
    """The GLIBC_x.y version the host program at path (this file version:
    ino, mtime_ns) cannot find here, or "". Asked once per process: the
    build, the install and the selftest build of a row all ask it."""
    try:
        p = subprocess.run([path], capture_output=True, text=True, timeout=30,
                           env=dict(os.environ, SRCARCH="x86"))   # objtool's wrapper needs it
    except (OSError, subprocess.TimeoutExpired):
        return ""
    m = re.search(r"version `(GLIBC_[0-9.]+)' not found", p.stderr or "")
    return m.group(1) if m else ""


def _libc_version():
    import platform
    return platform.libc_ver()[1].split(".") or ["?"]


def for_kernel(kernel, cache, make_root=None):
    """The Root to build for kernel in: None when this machine builds for
    it itself; its row's toolchain root when it cannot; a RetrofiError
    naming what is missing when neither (no toolchain: in the row, or no
    way to run a root here).  make_root(cache, name) replaces root() in tests."""
    missing = host_lacks(kernel)
    if not missing:
        return None
    toolchain = getattr(kernel, "toolchain", "")
    why = usable() if toolchain else ""
    if toolchain and not why:
        return (make_root or root)(cache, toolchain)
    what = f"target {kernel.name} cannot be built on this machine: it needs " + " and ".join(missing)
    if toolchain:
        raise RetrofiError(what + f", and its row's toolchain root ({toolchain}) cannot be "
                                  f"used here: {why}", where=kernel.headers,
                           fix="run the build as root on a machine with util-linux's unshare "
                               "(CI does), or leave the row out of TARGETS")
    raise RetrofiError(what, where=kernel.headers,
                       fix="name the Debian release that built the kernel in its row "
                           f"(toolchain: {' or '.join(sorted(TOOLCHAINS))}; kernel-matrix.yaml), "
                           "build on that release (or a newer one), or leave it out of TARGETS")


def wrap(tc_root, argv, rw=(), ro=(), env=None):
    """(argv, env) to run argv in tc_root (a Root, or None: on this machine)."""
    if tc_root is None:
        return argv, env
    return command(tc_root.path, argv, rw=rw, ro=ro, env=env), None


def usable():
    """Why command() cannot run here, or "" when it can."""
    if os.geteuid() != 0:
        return "a toolchain root needs root (mount namespaces and chroot)"
    for tool in ("unshare", "chroot", "dpkg-deb", "mount"):
        if not shutil.which(tool):
            return f"{tool} is missing"
    return ""


def _run(argv, what):
    try:
        p = subprocess.run(argv, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except FileNotFoundError:
        raise RetrofiError(f"{argv[0]} not found (needed for {what})",
                           fix="run scripts/bootstrap (as root) to install the host tools")
    if p.returncode != 0:
        raise RetrofiError(f"{what} failed (exit {p.returncode}): {p.stdout.strip()[-800:]}",
                           where=argv[-1])
    return p.stdout


def _write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2)
    os.replace(tmp, path)
