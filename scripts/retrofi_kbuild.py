"""The kernel build stage: a target kernel built here from a linux-source tree.

In:  the SourceTree (retrofi_kernels: the unpacked Debian linux-source-X
     package), a config fragment kept in the repository
     (kernel-configs/*.config), the cache.
Out: a KernelTree like a Debian target's: the bzImage, a configured build
     tree usable as KLIB by the build stage (`make O=` output: .config,
     include/generated, Module.symvers, and a Makefile that points at the
     source), and lib/modules/<kernelrelease>/ with the in-tree modules and
     modules.builtin that the initramfs stage reads.

Configuration: `make x86_64_defconfig`, the fragment merged on top
(scripts/kconfig/merge_config.sh -m), `make olddefconfig`; every option the
fragment sets must come out with the value it wrote, else the build stops
naming the options Kconfig changed (a dependency the fragment missed).

The build runs as an ordinary process (nice 10, at most -j2 here), with all
its output under <cache>/kbuild/<name>-<key>/ (obj/ the object tree, root/
the modules_install root); the source tree is only read.  The key is the
source package's version, the fragment's bytes, the compiler's identity and
the make flags, so any of them changing gives a new directory.  stamp.json
is written last: a directory without it is an unfinished build, which the
next run resumes (make remakes what is out of date); a warm run with the
stamp does nothing.
"""

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import time

import retrofi_kernels
import retrofi_progress
import retrofi_userland
from retrofi_errors import RetrofiError

KBUILD_VERSION = 1
ARCH = "x86_64"
BASE_DEFCONFIG = "x86_64_defconfig"
# Flags that shape the output (part of the key); -j is not one of them.
MAKE_FLAGS = ("ARCH=x86_64", "LOCALVERSION=", "KBUILD_BUILD_USER=retrofi",
              "KBUILD_BUILD_HOST=retrofi", "KBUILD_BUILD_TIMESTAMP=@0")
NICE = 10
# Host tools a kernel build needs that a machine set up for out-of-tree
# builds lacks (Kconfig's lexer and parser, objtool's libelf).  They are
# taken from Debian's archive with the private apt configuration and
# unpacked into the cache (retrofi_userland.unpacked), never installed.
TOOL_PACKAGES = ("flex", "bison", "m4", "libelf-dev")
TOOL_SUITES = ("bookworm",)
CONFIG_LINE = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
UNSET_LINE = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


@dataclasses.dataclass(frozen=True)
class KernelBuild:
    name: str
    key: str
    directory: str     # <cache>/kbuild/<name>-<key>
    obj: str           # the O= object tree: KLIB
    kernelrelease: str
    image: str         # obj/arch/x86/boot/bzImage
    modules: str       # root/lib/modules/<kernelrelease>
    seconds: float     # this run's build time (0 when warm)
    reused: bool


def log(msg):
    print(f"[kbuild] {msg}", flush=True)


def parse_fragment(path):
    """The fragment's options: {CONFIG_X: value}, "n" for `is not set`.
    Every other non-comment, non-blank line is an error naming the line."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise RetrofiError(f"cannot read the config fragment: {e.strerror}", where=path,
                           fix="name a file under kernel-configs/ in kernel-matrix.yaml")
    opts = {}
    for n, line in enumerate(lines, 1):
        s = line.strip()
        m = CONFIG_LINE.match(s) or UNSET_LINE.match(s)
        if m:
            name = m.group(1)
            value = m.group(2) if m.re is CONFIG_LINE else "n"
            if name in opts:
                raise RetrofiError(f"{name} is set twice", where=f"{path}:{n}",
                                   fix="keep one line per option")
            opts[name] = value
        elif s and not s.startswith("#"):
            raise RetrofiError(f"not a config line: {line!r}", where=f"{path}:{n}",
                               fix="write CONFIG_X=value or '# CONFIG_X is not set'")
    if not opts:
        raise RetrofiError("the config fragment sets no option", where=path)
    return opts


def read_config(path):
    """A .config as {CONFIG_X: value}; unset options are absent."""
    opts = {}
    with open(path) as f:
        for line in f:
            m = CONFIG_LINE.match(line.strip())
            if m:
                opts[m.group(1)] = m.group(2)
    return opts


def config_mismatches(fragment, config):
    """(option, wanted, got) for every fragment option .config does not honour."""
    out = []
    for name, want in sorted(fragment.items()):
        got = config.get(name, "n")
        if want != got:
            out.append((name, want, got))
    return out


def compiler_identity(cc="gcc"):
    try:
        p = subprocess.run([cc, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    except FileNotFoundError:
        raise RetrofiError(f"{cc} not found (needed to build the kernel)",
                           fix="run scripts/bootstrap (as root) to install the host tools")
    return p.stdout.splitlines()[0] if p.stdout else cc


def build_key(source, fragment_path, cc="gcc", tools=()):
    # The options, not the bytes: a comment edited does not rebuild the kernel.
    frag = json.dumps(sorted(parse_fragment(fragment_path).items())).encode()
    ident = {"v": KBUILD_VERSION, "package": source.package, "version": source.version,
             "fragment": hashlib.sha256(frag).hexdigest(), "base": BASE_DEFCONFIG,
             "cc": compiler_identity(cc), "make": list(MAKE_FLAGS),
             "tools": [list(t) for t in tools]}
    blob = json.dumps(ident, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16], ident


@contextlib.contextmanager
def _lock(directory):
    os.makedirs(directory, exist_ok=True)
    fd = os.open(os.path.join(directory, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another retrofi run that is building {directory}")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def host_tools(cache):
    """(environment, make arguments) that put the unpacked tools in use."""
    u = retrofi_userland.unpacked(cache, packages=TOOL_PACKAGES, suites=TOOL_SUITES,
                                  what="the kernel build tools")
    usr = os.path.join(u.root, "usr")
    env = dict(os.environ, LC_ALL="C",
               PATH=os.path.join(usr, "bin") + os.pathsep + os.environ.get("PATH", ""),
               M4=os.path.join(usr, "bin", "m4"),
               BISON_PKGDATADIR=os.path.join(usr, "share", "bison"))
    args = (f"HOSTCFLAGS=-I{os.path.join(usr, 'include')}",
            f"HOSTLDFLAGS=-L{os.path.join(usr, 'lib', 'x86_64-linux-gnu')}")
    return env, args, u.packages


_TOOLS = {"env": None, "args": ()}


# Progress of the long step (retrofi_progress): objects compiled so far.
COMPILED_RE = re.compile(rb"^  CC ", re.M)


def _compiled(log_path, start):
    def read(_seconds):
        n = retrofi_progress.count_since(log_path, start, COMPILED_RE)
        return f"{n} objects compiled" if n else None
    return read


def _make(src, obj, targets, logf, jobs=2, extra=(), progress=None):
    argv = ["nice", "-n", str(NICE), "make", "-C", src, f"O={obj}", f"-j{jobs}",
            *MAKE_FLAGS, *_TOOLS["args"], *extra, *targets]
    logf.write(f"$ {' '.join(argv)}\n")
    logf.flush()
    ticking = retrofi_progress.ticker(f"[kbuild] {progress}:",
                                      _compiled(logf.name, logf.tell())) \
        if progress else contextlib.nullcontext()
    with ticking:
        p = subprocess.run(argv, stdout=logf, stderr=subprocess.STDOUT, env=_TOOLS["env"])
    if p.returncode != 0:
        raise RetrofiError(f"make {' '.join(targets)} failed (exit {p.returncode})",
                           where=logf.name, fix="read the end of the kernel build log")


def configure(src, obj, fragment_path, logf):
    """x86_64_defconfig + fragment + olddefconfig in obj; checks the result."""
    frag = parse_fragment(fragment_path)
    _make(src, obj, [BASE_DEFCONFIG], logf, jobs=1)
    merge = os.path.join(os.path.abspath(src), "scripts", "kconfig", "merge_config.sh")
    env = dict(_TOOLS["env"] or os.environ, ARCH=ARCH)
    p = subprocess.run(["sh", merge, "-m", "-O", obj, os.path.join(obj, ".config"),
                        fragment_path], stdout=logf, stderr=subprocess.STDOUT, env=env, cwd=obj)
    if p.returncode != 0:
        raise RetrofiError(f"merge_config.sh failed (exit {p.returncode})", where=logf.name)
    _make(src, obj, ["olddefconfig"], logf, jobs=1)
    bad = config_mismatches(frag, read_config(os.path.join(obj, ".config")))
    if bad:
        raise RetrofiError(
            "Kconfig did not keep what the fragment sets: "
            + ", ".join(f"{n}={w} came out {g}" for n, w, g in bad),
            where=fragment_path,
            fix="add the options these depend on to the fragment (or drop the lines)")


def _check_source(src):
    for leftover in (".config", "include/config/auto.conf"):
        if os.path.exists(os.path.join(src, leftover)):
            raise RetrofiError(f"the source tree is configured ({leftover} exists); "
                               "an O= build needs a clean source", where=src,
                               fix="remove the source from the cache and run make kernels")


def build(source, name, fragment_path, cache=None, jobs=2, log_path=None):
    """Build (or reuse) the kernel; returns a KernelBuild."""
    cache = cache or retrofi_kernels.cache_dir()
    env, args, tools = host_tools(cache)
    _TOOLS.update(env=env, args=args)
    key, ident = build_key(source, fragment_path, tools=tools)
    directory = os.path.join(cache, "kbuild", f"{name}-{key}")
    obj = os.path.join(directory, "obj")
    stamp = os.path.join(directory, "stamp.json")
    with _lock(directory):
        if os.path.exists(stamp):
            with open(stamp) as f:
                s = json.load(f)
            log(f"{name}: kernel {s['kernelrelease']} already built ({directory})")
            return _result(name, key, directory, s["kernelrelease"], 0.0, True)
        src = source.path
        _check_source(src)
        os.makedirs(obj, exist_ok=True)
        log_path = log_path or os.path.join(directory, "build.log")
        started = time.monotonic()
        with open(log_path, "a") as logf:
            log(f"{name}: building {source.package} {source.version} with "
                f"{os.path.relpath(fragment_path)} in {obj} (-j{jobs}); log: {log_path}")
            configure(src, obj, fragment_path, logf)
            _make(src, obj, ["bzImage", "modules"], logf, jobs=jobs, progress=name)
            krel = subprocess.run(["make", "-s", "-C", src, f"O={obj}", *MAKE_FLAGS,
                                   "kernelrelease"], stdout=subprocess.PIPE, text=True,
                                  stderr=logf, env=env).stdout.strip()
            root = os.path.join(directory, "root")
            shutil.rmtree(root, ignore_errors=True)
            _make(src, obj, ["modules_install"], logf, jobs=1,
                  extra=(f"INSTALL_MOD_PATH={root}", "INSTALL_MOD_STRIP=1", "DEPMOD=true"))
        seconds = time.monotonic() - started
        moddir = os.path.join(root, "lib", "modules", krel)
        for link in ("build", "source"):
            p = os.path.join(moddir, link)
            if os.path.islink(p) or os.path.exists(p):
                os.remove(p)
        os.symlink(obj, os.path.join(moddir, "build"))
        tmp = stamp + ".tmp"
        with open(tmp, "w") as f:
            json.dump(dict(ident, kernelrelease=krel, seconds=round(seconds, 1)), f,
                      indent=2, sort_keys=True)
            f.write("\n")
        os.replace(tmp, stamp)
        log(f"{name}: kernel {krel} built in {seconds:.0f} s")
        return _result(name, key, directory, krel, seconds, False)


def _result(name, key, directory, krel, seconds, reused):
    obj = os.path.join(directory, "obj")
    return KernelBuild(name=name, key=key, directory=directory, obj=obj, kernelrelease=krel,
                       image=os.path.join(obj, "arch", "x86", "boot", "bzImage"),
                       modules=os.path.join(directory, "root", "lib", "modules", krel),
                       seconds=seconds, reused=reused)


def kernel_tree(kb, source):
    """The KernelTree the build, initramfs and boot stages take."""
    return retrofi_kernels.KernelTree(name=kb.name, abi=kb.kernelrelease,
                                      version=f"{source.version}+{kb.key}",
                                      root=kb.directory, headers=kb.obj,
                                      kernelrelease=kb.kernelrelease, image=kb.image,
                                      modules=kb.modules, cc="")


def add_built(matrix, selected, kernels, cache=None, jobs=2):
    """Build (or reuse) the kernel of every build target the selection runs
    on, itself or as a shape's base, into kernels.targets."""
    for t in selected:
        base = matrix.real_target(t)
        if base.kind != "build" or base.name in kernels.targets:
            continue
        source = kernels.kernel_source_for(matrix, base) if kernels.source else None
        if source is None:
            raise RetrofiError(f"target {base.name} is built from the source package, "
                               "which was not fetched", where=matrix.path)
        kb = build(source, base.name, base.config, cache=cache, jobs=jobs)
        kernels.targets[base.name] = kernel_tree(kb, source)


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="build a kernel from the cached linux-source tree")
    ap.add_argument("--name", required=True)
    ap.add_argument("--fragment", required=True)
    ap.add_argument("--source", required=True, help="the unpacked linux-source tree")
    ap.add_argument("--version", required=True, help="the source package's version")
    ap.add_argument("--package", default="linux-source-6.12")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--log")
    a = ap.parse_args(argv)
    src = retrofi_kernels.SourceTree(package=a.package, version=a.version, path=a.source, mtime=0)
    try:
        kb = build(src, a.name, os.path.abspath(a.fragment), jobs=a.jobs, log_path=a.log)
    except RetrofiError as e:
        print(e.format(), flush=True)
        return e.code
    print(json.dumps(dataclasses.asdict(kb), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
