"""The initramfs stage: one bootable guest userland per target and output tree.

In:  a KernelTree (the target: its modules and headers), a built output
     tree (`make KLIB=<target headers>` done), the guest /init script.
Out: an Initramfs record: <cache>/initramfs/<hash>.cpio.gz, a gzip'd newc
     cpio archive whose name is the sha256 of its content, so it is rebuilt
     only when an input changes.  Its inputs (the built tree's modules and
     headers, the target's modules, the selftest sources, /init, the guest
     config, the userland and this stage's own code) are hashed too: a key
     in <cache>/initramfs/keys/ names the archive they made, written after
     it, so that unchanged inputs reuse it without staging anything again
     (no make install, no selftest build, no depmod).

What goes in:
  - a Debian userland (bookworm): busybox-static, kmod, hostapd,
    wpasupplicant, iw, iproute2, wireless-regdb.  The packages are resolved
    with a private apt configuration (retrofi_userland), downloaded into the
    cache and unpacked with dpkg-deb -x: nothing is installed on this
    machine.  Their shared libraries come from the same packages, found by
    reading each binary's DT_NEEDED (objdump -p) recursively, with the
    dynamic loader.  The resolution is done once and kept in
    <cache>/initramfs/userland/<digest>/ (stamp.json lists the versions).
  - the target's modules: the output tree installed by its real
    `make install INSTALL_MOD_PATH=...` into lib/modules/<kver>/updates/,
    plus only the in-tree modules the guest needs (the dependencies of the
    backport per modinfo, the AEAD/cipher modules mac80211 asks for, ...),
    decompressed.  The target's own copies of the backported modules are
    kept too (compressed, as shipped), so that the guest proves depmod
    prefers updates/ over them.  depmod -b writes the module indexes.
  - the compat selftest modules (tests/compat-selftest), built against the
    target with the output tree's compat headers and Module.symvers, in
    lib/modules/<kver>/extra/: retrofi_selftest at the target's real API
    level, retrofi_selftest_api with the API level forced to 2.6.21 (the
    inline additive shims, the seeds' list helpers among them, are what
    runs), retrofi_selftest_probes_off at the real level with the probes
    forced off (the structural-probed shims' bodies are what runs, even
    where the target has the API).
  - the target's own cfg80211, mac80211 and mac80211_hwsim (the shadowed
    copies above) come with their in-tree dependencies, so that the guest
    can load the kernel's own stack too (retrofi-status's second state).
  - retrofi-status (packaging/retrofi-status) at /usr/sbin, where the
    package installs it.
  - /init (tests/guest/init by default) and /dev/console.

The archive is written by this module (no cpio binary needed): sorted
entries, uid/gid 0, mtime 0, so equal inputs give byte-identical archives.
"""

import dataclasses
import gzip
import hashlib
import io
import json
import lzma
import os
import shutil
import stat
import tempfile
from typing import Tuple

import retrofi_build
import retrofi_census
import retrofi_kernels
import retrofi_toolchain
import retrofi_userland
from retrofi_errors import RetrofiError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUEST_INIT = os.path.join(REPO, "tests", "guest", "init")
SELFTEST_SRC = os.path.join(REPO, "tests", "compat-selftest")
# The package's status command (retrofi_deb installs it in /usr/sbin).
STATUS_SCRIPT = os.path.join(REPO, "packaging", "retrofi-status")


# In-tree modules the guest loads besides the backport's own dependencies:
# the ciphers and AEAD templates mac80211 requests (CCMP: ccm(aes); GCMP,
# GMAC: gcm(aes); BIP: cmac(aes)), which the kernel may have built in.
# A tuple is a module and its successors: the first the target has as a
# module or built in (7.x serves the AES cipher from the built-in "aes",
# the library's wrapper, and GHASH from libgf128hash; no aes_generic or
# ghash_generic there). The guest's init loads them the same way.
GUEST_EXTRA_MODULES = ("ccm", "gcm", "ctr", "cmac", ("ghash_generic", "libgf128hash"),
                       ("aes_generic", "aes"), "libarc4", "rfkill", "seqiv", "aead",
                       "gf128mul")
# The backported stack: the guest loads these from updates/.
STACK_MODULES = ("compat", "cfg80211", "mac80211", "mac80211_hwsim", "ath", "ath9k",
                 "ath9k_hw", "ath9k_common", "ath5k")
# The compat selftest at the real API level, at API level 2.6.21, and at the
# real level with the probes forced off (the structural-probed shims' bodies
# run where the target has the API).
SELFTEST_MODULES = ("retrofi_selftest", "retrofi_selftest_api", "retrofi_selftest_probes_off")
# The target's own stack the guest loads in place of the backport (by path:
# depmod prefers updates/): its in-tree dependencies are staged too.
IN_TREE_STACK = ("cfg80211", "mac80211", "mac80211_hwsim")


@dataclasses.dataclass(frozen=True)
class GuestModules:
    kernelrelease: str
    updates: Tuple[str, ...]       # module names installed from the output tree
    in_tree: Tuple[str, ...]       # the target's modules copied (decompressed)
    shadowed: Tuple[str, ...]      # the target's copies of backported modules (kept .xz)
    builtin: Tuple[str, ...]       # requested modules the target has built in
    selftest: bool


@dataclasses.dataclass(frozen=True)
class Initramfs:
    path: str                      # <cache>/initramfs/<sha256>.cpio.gz
    digest: str
    size: int
    target: str
    kernelrelease: str
    modules: GuestModules
    userland: retrofi_userland.Userland
    reused: bool                   # True: an identical archive was already cached


def log(msg):
    print(f"[initramfs] {msg}", flush=True)


_run = retrofi_userland.run


# ---------------------------------------------------------------- modules

def _modname(filename):
    base = os.path.basename(filename)
    for ext in (".ko.xz", ".ko.zst", ".ko.gz", ".ko"):
        if base.endswith(ext):
            return base[:-len(ext)].replace("-", "_")
    return None


def _module_map(directory):
    """{module name: path} for every module file under directory."""
    found = {}
    for dirpath, _, files in os.walk(directory):
        for f in files:
            name = _modname(f)
            if name:
                found.setdefault(name, os.path.join(dirpath, f))
    return found


def _depends(path):
    out = _run(["modinfo", "-F", "depends", path], f"modinfo {os.path.basename(path)}")
    return [d.replace("-", "_") for d in out.strip().split(",") if d.strip()]


def _builtin(modules_dir):
    names = set()
    p = os.path.join(modules_dir, "modules.builtin")
    if os.path.exists(p):
        for line in open(p):
            n = _modname(line.strip())
            if n:
                names.add(n)
    return names


def install_backport(tree, target, dest, api_level=""):
    """The output tree's own `make install` into dest (a scratch root).

    api_level: the one the tree was built at. `make install` depends on
    `make modules`, and Kbuild rebuilds every object whose command line
    changed: without the same API_LEVEL, CC and the build stage's make
    variables (KCFLAGS...) it would rebuild (and install) another build."""
    env = dict(os.environ)
    argv = ["make", "-C", tree, f"KLIB={target.headers}", f"INSTALL_MOD_PATH={dest}", "install",
            *retrofi_build.settings(target, api_level)]
    argv, env = retrofi_toolchain.wrap(_toolchain_root(target), argv, rw=[tree, dest],
                                       ro=[target.root], env=env)
    out = _run(argv, f"make install of {tree} for target {target.name}", cwd=tree, env=env)
    rebuilt = [l.strip() for l in out.splitlines() if l.strip().startswith(("CC [M]", "LD [M]"))]
    if rebuilt:
        # The cached build now holds objects of other settings: the next
        # build of it remakes them instead of reusing it as complete.
        forgotten = retrofi_build.forget(tree)
        raise RetrofiError(f"make install rebuilt the stack instead of installing the build "
                           f"({rebuilt[0]}, ... {len(rebuilt)} steps)"
                           + ("; the build is no longer taken as complete" if forgotten else ""),
                           where=tree,
                           fix="pass make install the settings of the build "
                               "(retrofi_build.settings(): API_LEVEL=, CC=, KCFLAGS=...)")
    updates = os.path.join(dest, "lib", "modules", target.kernelrelease, "updates")
    if not os.path.isdir(updates) or not _module_map(updates):
        raise RetrofiError(f"make install put no modules into {updates}", where=tree,
                           fix=f"build the tree first: make -C {tree} KLIB={target.headers}")
    return updates


def _toolchain_root(target):
    """Where the target's modules are built: None (this machine) or the
    toolchain root its build used (retrofi_toolchain)."""
    return retrofi_toolchain.for_kernel(target, retrofi_kernels.cache_dir())


def build_selftest(tree, target, workdir, api_level=""):
    """tests/compat-selftest built against the target and the tree's compat.ko:
    the paths of its modules (SELFTEST_MODULES).

    api_level: the API level the tree was built at (a shape target's);
    retrofi_selftest is built at it too, so that it runs the shims the
    stack runs there, and so is retrofi_selftest_probes_off
    (retrofi_selftest_api has its own, fixed level).

    It is built at a fixed place beside the built tree (not in workdir, a
    temporary directory): the module embeds its build path, and a new path
    each time would give a new initramfs for unchanged inputs."""
    src = os.path.join(tree, ".retrofi-selftest")
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(SELFTEST_SRC, src)
    symvers = os.path.join(tree, "Module.symvers")
    if not os.path.exists(symvers):
        raise RetrofiError("the output tree is not built (no Module.symvers)", where=tree,
                           fix=f"make -C {tree} KLIB={target.headers}")
    flags = (f"-I{tree}/include -I{tree}/include/uapi "
             f"-include {tree}/include/retrofi/version.h")
    # A target with KUnit of its own: the tree's build linked the target's
    # <kunit/*.h> ahead of the tree's copies (its Kbuild); the selftest
    # sees the same.
    target_kunit = os.path.join(tree, "include", "retrofi", "target-kunit")
    if os.path.isdir(target_kunit):
        flags = f"-I{target_kunit} " + flags
    argv = ["make", "-C", target.headers, f"M={src}", f"NOSTDINC_FLAGS={flags}",
            f"KBUILD_EXTRA_SYMBOLS={symvers}", "modules"]
    if api_level:
        code = retrofi_census.version_code(api_level, where=f"target {target.name}")
        argv.append(f"RETROFI_SELFTEST_API_CODE={code}")
    if target.cc:
        argv.append(f"CC={target.cc}")
    argv, env = retrofi_toolchain.wrap(_toolchain_root(target), argv, rw=[tree],
                                       ro=[target.root])
    out = _run(argv, f"building the compat selftest for target {target.name}", cwd=src, env=env)
    if "warning:" in out:
        raise RetrofiError(f"the compat selftest builds with warnings:\n{out[-2000:]}", where=src)
    paths = [os.path.join(src, f"{m}.ko") for m in SELFTEST_MODULES]
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        raise RetrofiError(f"the compat selftest build made no {', '.join(missing)}", where=src)
    return paths


def stage_modules(target, tree, stage, workdir, selftest=True,
                  extra=GUEST_EXTRA_MODULES, api_level="", updates_src=None):
    """Put the guest's modules into stage/lib/modules/<kver>; returns GuestModules.

    updates_src: a directory of modules already installed (a package's
    DKMS build in a Debian root) instead of the tree's own `make install`."""
    krel = target.kernelrelease
    scratch = os.path.join(workdir, "install")
    if updates_src is None:
        updates_src = install_backport(tree, target, scratch, api_level)
    backport = _module_map(updates_src)
    in_tree = _module_map(os.path.join(target.modules, "kernel"))
    builtin = _builtin(target.modules)
    moddir = os.path.join(stage, "lib", "modules", krel)
    os.makedirs(moddir, exist_ok=True)
    shutil.copytree(updates_src, os.path.join(moddir, "updates"))
    os.unlink(os.path.join(moddir, "updates", ".retrofi-manifest")) \
        if os.path.exists(os.path.join(moddir, "updates", ".retrofi-manifest")) else None

    wanted, todo, copied, skipped_builtin = set(), list(backport) + list(extra), [], []
    if selftest:
        os.makedirs(os.path.join(moddir, "extra"))
        for st in build_selftest(tree, target, workdir, api_level):
            shutil.copy(st, os.path.join(moddir, "extra", os.path.basename(st)))
            todo += _depends(st)
    for name in backport:
        todo += _depends(backport[name])
    for name in IN_TREE_STACK:
        if name in in_tree and name in backport:
            todo += _depends(in_tree[name])
    for i, name in enumerate(todo):
        if isinstance(name, tuple):
            found = [n for n in name if n in backport or n in builtin or n in in_tree]
            if not found:
                raise RetrofiError(f"none of the modules {', '.join(name)} is built in, in the "
                                   f"target's modules or in the backport", where=target.modules,
                                   fix="check GUEST_EXTRA_MODULES against the target's "
                                       "configuration")
            todo[i] = found[0]
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        if name in backport:
            continue
        if name in builtin:
            skipped_builtin.append(name)
            continue
        if name not in in_tree:
            raise RetrofiError(f"module {name} is neither built in, in the target's modules "
                               f"nor in the backport", where=target.modules,
                               fix="check GUEST_EXTRA_MODULES against the target's configuration")
        src = in_tree[name]
        rel = os.path.relpath(src, target.modules)
        dst = os.path.join(moddir, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if src.endswith(".xz"):
            with lzma.open(src) as fi, open(dst[:-3], "wb") as fo:
                shutil.copyfileobj(fi, fo)
        else:
            shutil.copy(src, dst)
        copied.append(name)
        todo += _depends(src)
    # The target's own copies of the backported modules stay as shipped:
    # never loaded if depmod prefers updates/, which the guest checks.
    shadowed = []
    for name in backport:
        if name in in_tree:
            src = in_tree[name]
            dst = os.path.join(moddir, os.path.relpath(src, target.modules))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(src, dst)
            shadowed.append(name)
    for f in ("modules.builtin", "modules.builtin.modinfo", "modules.order"):
        if os.path.exists(os.path.join(target.modules, f)):
            shutil.copy(os.path.join(target.modules, f), os.path.join(moddir, f))
    # Debug information is most of a module's size: strip the guest's
    # copies (what the kernel's INSTALL_MOD_STRIP=1 does).
    for dirpath, _, files in os.walk(moddir):
        for f in files:
            if f.endswith(".ko"):
                _run(["strip", "--strip-debug", os.path.join(dirpath, f)], f"strip {f}")
    _run(["depmod", "-b", stage, krel], "depmod -b on the guest's module tree")
    return GuestModules(krel, tuple(sorted(backport)), tuple(sorted(copied)),
                        tuple(sorted(shadowed)), tuple(sorted(skipped_builtin)), selftest)


# ---------------------------------------------------------------- the archive

class CpioWriter:
    """newc cpio, deterministic: call add_* in any order, then write()."""

    def __init__(self):
        self.entries = {}

    def add_dir(self, path, mode=0o755):
        path = path.strip("/")
        parts = path.split("/")
        for i in range(1, len(parts) + 1):
            p = "/".join(parts[:i])
            if p and p not in self.entries:
                self.entries[p] = (stat.S_IFDIR | mode, b"", 0)

    def add_file(self, path, data, mode=0o644):
        path = path.strip("/")
        self.add_dir(os.path.dirname(path))
        self.entries[path] = (stat.S_IFREG | mode, data, 0)

    def add_symlink(self, path, target):
        path = path.strip("/")
        self.add_dir(os.path.dirname(path))
        self.entries[path] = (stat.S_IFLNK | 0o777, target.encode(), 0)

    def add_chardev(self, path, major, minor, mode=0o600):
        path = path.strip("/")
        self.add_dir(os.path.dirname(path))
        self.entries[path] = (stat.S_IFCHR | mode, b"", os.makedev(major, minor))

    def write(self, fileobj):
        ino = 1

        def rec(name, mode, data, rdev):
            nonlocal ino
            nb = name.encode() + b"\0"
            hdr = "070701" + "".join(f"{v:08x}" for v in (
                ino, mode, 0, 0, 2 if stat.S_ISDIR(mode) else 1, 0, len(data), 0, 0,
                os.major(rdev), os.minor(rdev), len(nb), 0))
            ino += 1
            fileobj.write(hdr.encode() + nb)
            fileobj.write(b"\0" * ((4 - (110 + len(nb)) % 4) % 4))
            fileobj.write(data)
            fileobj.write(b"\0" * ((4 - len(data) % 4) % 4))

        for name in sorted(self.entries):
            rec(name, *self.entries[name])
        rec("TRAILER!!!", 0, b"", 0)


def _add_tree(cpio, root, rel_root="", dest=""):
    """Add root/rel_root recursively at dest/rel_root (files, dirs, symlinks)."""
    base = os.path.join(root, rel_root)
    for dirpath, dirs, files in os.walk(base):
        dirs.sort()
        for name in sorted(dirs + files):
            full = os.path.join(dirpath, name)
            rel = os.path.join(dest, os.path.relpath(full, root))
            if os.path.islink(full):
                cpio.add_symlink(rel, os.readlink(full))
            elif os.path.isdir(full):
                cpio.add_dir(rel)
            else:
                mode = 0o755 if os.stat(full).st_mode & 0o111 else 0o644
                cpio.add_file(rel, open(full, "rb").read(), mode)


def _add_userland(cpio, ul):
    root = ul.root
    progs = {name: retrofi_userland.find_program(root, name) for name in retrofi_userland.PROGRAMS}
    files = retrofi_userland.library_closure(root, list(progs.values()))
    for rel in sorted(files):
        full = os.path.join(root, rel)
        if os.path.islink(full):
            cpio.add_symlink(rel, os.readlink(full))
        else:
            mode = 0o755 if os.stat(full).st_mode & 0o111 else 0o644
            cpio.add_file(rel, open(full, "rb").read(), mode)
    for rel, src in retrofi_userland.REGDB_FILES.items():
        if not os.path.exists(os.path.join(root, src)):
            raise RetrofiError(f"wireless-regdb did not provide {src}", where=root)
        cpio.add_file(rel, open(os.path.join(root, src), "rb").read())
    # Every busybox applet the real tools do not provide, in /bin.
    applets = _run([os.path.join(root, progs["busybox"]), "--list"], "busybox --list").split()
    taken = {os.path.basename(p) for p in progs.values()} | set(retrofi_userland.KMOD_LINKS)
    for a in applets:
        if a not in taken and not os.path.lexists(os.path.join(root, "bin", a)):
            cpio.add_symlink(f"bin/{a}", "/" + progs["busybox"])
    for link in retrofi_userland.KMOD_LINKS:
        cpio.add_symlink(f"sbin/{link}", "/" + progs["kmod"])
    return progs


# ---------------------------------------------------------------- input keys

# Files of a built output tree that make what the guest gets: the modules
# (make install copies them), what make install and the selftest build read
# (Makefile, Kbuild, Module.symvers, the compat headers the selftest is
# compiled with).  Objects and .cmd files are left out: a rebuild that
# changes anything the guest loads changes a .ko.
_TREE_TOP = ("Makefile", "Kbuild", "Kbuild.cflags", "Module.symvers", "modules.order", "versions")
_TREE_DIRS = ("include", "config", "defconfigs")
_OWN_CODE = ("retrofi_initramfs.py", "retrofi_userland.py", "retrofi_census.py")
KEY_FORMAT = 1


def _hash_file(h, path, name):
    h.update(f"file\0{name}\0".encode())
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    h.update(b"\0")


def _tree_files(tree):
    """(relative path, path) of the tree's files that make the guest's modules."""
    found = []
    for name in _TREE_TOP:
        if os.path.isfile(os.path.join(tree, name)):
            found.append((name, os.path.join(tree, name)))
    for dirpath, dirs, files in os.walk(tree):
        rel_dir = os.path.relpath(dirpath, tree)
        top = rel_dir.split(os.sep)[0]
        if rel_dir == ".":
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            continue
        for f in files:
            if f.endswith(".ko") or top in _TREE_DIRS:
                found.append((os.path.join(rel_dir, f), os.path.join(dirpath, f)))
    return sorted(found)


def input_key(target, tree, init, selftest, config, api_level, ul):
    """sha256 of everything build() puts into the archive, read without
    staging: equal keys, equal archives."""
    h = hashlib.sha256()

    def put(*parts):
        for part in parts:
            h.update(f"{part}\0".encode())

    # Paths by their real path: a cache reached through symlinks (a test's
    # private cache) shares the archives of the cache it links to.
    put("retrofi initramfs inputs", KEY_FORMAT, target.name, target.kernelrelease,
        os.path.realpath(target.headers), os.path.realpath(target.modules), target.cc,
        bool(selftest), api_level,
        ",".join(m if isinstance(m, str) else "|".join(m) for m in GUEST_EXTRA_MODULES),
        ",".join(STACK_MODULES), ul.digest)
    here = os.path.dirname(os.path.abspath(__file__))
    for name in _OWN_CODE:
        _hash_file(h, os.path.join(here, name), name)
    _hash_file(h, init, "init")
    _hash_file(h, STATUS_SCRIPT, "retrofi-status")
    for path in sorted(config or {}):
        data = config[path]
        put("config", path, len(data))
        h.update(data if isinstance(data, bytes) else data.encode())
    if tree is not None:
        put("tree", os.path.realpath(tree))
        for rel, path in _tree_files(tree):
            _hash_file(h, path, rel)
        if selftest:
            for dirpath, dirs, files in os.walk(SELFTEST_SRC):
                dirs.sort()
                for f in sorted(files):
                    path = os.path.join(dirpath, f)
                    _hash_file(h, path, os.path.relpath(path, SELFTEST_SRC))
        # The target's modules, by name, size and mtime (the unpacked
        # package, never written after it is unpacked).
        for dirpath, dirs, files in os.walk(target.modules):
            dirs.sort()
            for f in sorted(files):
                st = os.lstat(os.path.join(dirpath, f))
                put(os.path.relpath(os.path.join(dirpath, f), target.modules),
                    st.st_size, st.st_mtime_ns)
    return h.hexdigest()


def _key_path(outdir, key):
    return os.path.join(outdir, "keys", f"{key}.json")


def _load_key(outdir, key):
    """The record of the archive key made, or None (no key, or its archive gone)."""
    try:
        with open(_key_path(outdir, key)) as f:
            rec = json.load(f)
        mods = GuestModules(**{k: tuple(v) if isinstance(v, list) else v
                               for k, v in rec["modules"].items()})
        path = os.path.join(outdir, rec["archive"])
        digest = rec["digest"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not os.path.isfile(path):
        return None
    return path, digest, mods


def _store_key(outdir, key, path, digest, mods):
    os.makedirs(os.path.join(outdir, "keys"), exist_ok=True)
    final = _key_path(outdir, key)
    tmp = f"{final}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump({"archive": os.path.basename(path), "digest": digest,
                   "modules": dataclasses.asdict(mods)}, f, indent=1, sort_keys=True)
    os.replace(tmp, final)


def _content_digest(cpio):
    h = hashlib.sha256()
    for name in sorted(cpio.entries):
        mode, data, rdev = cpio.entries[name]
        h.update(f"{name}\0{mode:o}\0{rdev}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def build(target, tree, cache=None, init=GUEST_INIT, selftest=True, config=None,
          api_level=""):
    """The initramfs for target with the built output tree installed.

    tree:   the built output tree, or None for a guest without modules.

    init:   the guest's /init script (tests/guest/init; tests pass others).
    config: extra files for the guest, {path: text or bytes} (e.g. etc/retrofi.conf).
    api_level: the API level tree was built at (shape targets), for the selftest.
    """
    cache = cache or retrofi_kernels.cache_dir()
    if not os.path.isfile(init):
        raise RetrofiError("the guest init script is missing", where=init)
    ul = retrofi_userland.unpacked(cache)
    outdir = os.path.join(cache, "initramfs")
    os.makedirs(outdir, exist_ok=True)
    key = input_key(target, tree, init, selftest, config, api_level, ul)
    known = _load_key(outdir, key)
    if known:
        path, digest, mods = known
        size = os.path.getsize(path)
        log(f"reused {path} ({size >> 10} KiB; target {target.name}, inputs unchanged)")
        return Initramfs(path, digest, size, target.name, target.kernelrelease, mods, ul, True)
    cpio = CpioWriter()
    if tree is None:
        # A userland-only guest (the boot stage's own tests).
        mods = GuestModules(target.kernelrelease, (), (), (), (), False)
    else:
        with tempfile.TemporaryDirectory(prefix=".stage-", dir=outdir) as work:
            stage = os.path.join(work, "root")
            os.makedirs(stage)
            mods = stage_modules(target, tree, stage, work, selftest=selftest,
                                 api_level=api_level)
            _add_tree(cpio, stage)
    _add_userland(cpio, ul)
    for d in ("proc", "sys", "dev", "tmp", "run", "var/run", "etc", "root", "mnt"):
        cpio.add_dir(d)
    cpio.add_chardev("dev/console", 5, 1)
    cpio.add_chardev("dev/null", 1, 3, 0o666)
    cpio.add_file("init", open(init, "rb").read(), 0o755)
    cpio.add_file("usr/sbin/retrofi-status", open(STATUS_SCRIPT, "rb").read(), 0o755)
    cpio.add_file("etc/retrofi-target", f"{target.name}\n{target.kernelrelease}\n".encode())
    for path, data in (config or {}).items():
        cpio.add_file(path, data if isinstance(data, bytes) else data.encode())
    digest = _content_digest(cpio)
    path = os.path.join(outdir, f"{digest[:32]}.cpio.gz")
    reused = os.path.exists(path)
    if not reused:
        raw = io.BytesIO()
        cpio.write(raw)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=6, mtime=0, filename="") as gz:
                gz.write(raw.getvalue())
        os.replace(tmp, path)
    _store_key(outdir, key, path, digest, mods)
    size = os.path.getsize(path)
    log(f"{'reused' if reused else 'wrote'} {path} ({size >> 10} KiB; target {target.name}, "
        f"{len(mods.updates)} backported + {len(mods.in_tree)} in-tree modules)")
    return Initramfs(path, digest, size, target.name, target.kernelrelease, mods, ul, reused)
