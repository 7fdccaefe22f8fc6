"""Debian packages unpacked into the cache, never installed on this machine:
the guest's userland (busybox, kmod, hostapd, wpa_supplicant, iw, iproute2,
wireless-regdb and the shared libraries they need), and the host tools a
kernel build lacks (retrofi_kbuild).

In:  package names and the suites to resolve them in.
Out: a Userland record: <cache>/initramfs/userland/<digest>/root, the
     packages unpacked with dpkg-deb -x, and stamp.json naming their
     versions.  The resolution is done once per package list and suites.
     For the guest: the files (relative to the root) its programs need to
     run, found by reading each ELF's PT_INTERP and DT_NEEDED recursively.
"""

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from typing import Tuple

import retrofi_apt
import retrofi_fs
import retrofi_kernels
import retrofi_pins
from retrofi_errors import RetrofiError

USERLAND_SUITES = ("bookworm",)
USERLAND_PACKAGES = ("busybox-static", "kmod", "hostapd", "wpasupplicant", "iw",
                     "iproute2", "wireless-regdb")
# Dependencies followed when resolving the userland: shared libraries only
# (maintainer-script helpers such as debconf or adduser are not needed).
LIBRARY_PACKAGE = re.compile(r"^(lib|zlib1g$)")
# The programs the guest runs, by name; found in the unpacked packages.
PROGRAMS = ("busybox", "kmod", "hostapd", "hostapd_cli", "wpa_supplicant", "wpa_cli",
            "iw", "ip")
KMOD_LINKS = ("modprobe", "insmod", "rmmod", "lsmod", "modinfo", "depmod")
# Debian ships both signatures as alternatives; the upstream one is signed by
# the key cfg80211 itself trusts (net/wireless/certs/sforshee.hex).
REGDB_FILES = {"lib/firmware/regulatory.db": "lib/firmware/regulatory.db-upstream",
               "lib/firmware/regulatory.db.p7s": "lib/firmware/regulatory.db.p7s-upstream"}
LIB_DIRS = ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib64", "lib", "usr/lib")


@dataclasses.dataclass(frozen=True)
class Userland:
    root: str                      # the unpacked packages
    packages: Tuple[Tuple[str, str], ...]   # (name, version), sorted
    digest: str



def log(msg):
    print(f"[userland] {msg}", flush=True)


def run(argv, what, cwd=None, env=None):
    """Run a host tool; a missing tool or a failure is one RetrofiError."""
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
    except FileNotFoundError:
        raise RetrofiError(f"{argv[0]} not found (needed for {what})",
                           fix="run scripts/bootstrap (as root) to install the host tools")
    if p.returncode != 0:
        raise RetrofiError(f"{what} failed (exit {p.returncode}):\n{p.stdout[-3000:]}",
                           where=cwd or argv[0])
    return p.stdout



def _resolve_userland(apt, packages):
    """The packages and their shared-library dependency closure."""
    apt.update()
    chosen, todo = {}, list(packages)
    while todo:
        name = todo.pop()
        if name in chosen:
            continue
        cands = apt.versions(name)
        if not cands:
            raise RetrofiError(f"package {name} not found in suites {', '.join(apt.suites)}",
                               where="retrofi_userland.USERLAND_PACKAGES",
                               fix="check the package name against the suite")
        pkg = retrofi_pins.newest(cands)
        chosen[name] = pkg
        for alts in retrofi_apt.parse_depends(pkg.depends):
            # The first alternative that is a library package.
            for dep, _, _ in alts:
                if LIBRARY_PACKAGE.match(dep):
                    todo.append(dep)
                    break
    return [chosen[n] for n in sorted(chosen)]


def unpacked(cache=None, packages=USERLAND_PACKAGES, suites=USERLAND_SUITES,
             what="the guest userland"):
    """The packages unpacked (what: for the log), resolved and downloaded
    once per package list and suites."""
    cache = cache or retrofi_kernels.cache_dir()
    key = hashlib.sha256(json.dumps([list(packages), list(suites)]).encode()).hexdigest()[:16]
    parent = os.path.join(cache, "initramfs", "userland")
    final = os.path.join(parent, key)
    stamp = os.path.join(final, "stamp.json")
    if os.path.exists(stamp):
        data = json.load(open(stamp))
        return Userland(os.path.join(final, "root"), tuple(map(tuple, data["packages"])), key)
    os.makedirs(parent, exist_ok=True)
    apt = retrofi_apt.PrivateApt(cache, list(suites))
    log(f"resolving {what} in {', '.join(suites)}: {' '.join(packages)}")
    pkgs = _resolve_userland(apt, packages)
    debs = os.path.join(cache, "initramfs", "debs")
    os.makedirs(debs, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=parent)
    try:
        for p in pkgs:
            path = retrofi_apt.fetch_verified(apt, p, debs)
            run(["dpkg-deb", "-x", path, os.path.join(tmp, "root")], f"unpacking {p.deb_name}")
        with open(os.path.join(tmp, "stamp.json"), "w") as f:
            json.dump({"packages": [[p.name, p.version] for p in pkgs],
                       "suites": list(suites)}, f, indent=2)
        retrofi_fs.publish_once(tmp, final)      # or a parallel target's, the same
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    log(f"{what}: {len(pkgs)} packages unpacked into {final}")
    return unpacked(cache, packages, suites, what)


def find_program(root, name):
    for d in ("usr/sbin", "usr/bin", "sbin", "bin"):
        p = os.path.join(root, d, name)
        if os.path.lexists(p):
            return os.path.join(d, name)
    raise RetrofiError(f"program {name} is not in the guest userland packages", where=root,
                       fix="add the package that ships it to USERLAND_PACKAGES")


def _real(root, rel):
    """rel (inside root) with symlinks resolved inside root."""
    path = rel
    for _ in range(40):
        full = os.path.join(root, path)
        if not os.path.islink(full):
            return path
        target = os.readlink(full)
        if target.startswith("/"):
            path = target.lstrip("/")
        else:
            path = os.path.normpath(os.path.join(os.path.dirname(path), target))
    raise RetrofiError(f"symlink loop at {rel}", where=root)


def _elf_interp(data):
    """The PT_INTERP path of a 64-bit little-endian ELF image, or ""."""
    if data[4] != 2 or data[5] != 1:
        return ""
    phoff = int.from_bytes(data[0x20:0x28], "little")
    phentsize = int.from_bytes(data[0x36:0x38], "little")
    phnum = int.from_bytes(data[0x38:0x3a], "little")
    for i in range(phnum):
        ph = data[phoff + i * phentsize:phoff + (i + 1) * phentsize]
        if int.from_bytes(ph[0:4], "little") == 3:          # PT_INTERP
            off = int.from_bytes(ph[8:16], "little")
            size = int.from_bytes(ph[32:40], "little")
            return data[off:off + size].rstrip(b"\0").decode()
    return ""


def _elf_needs(path):
    """(interpreter, [DT_NEEDED]) of an ELF file: PT_INTERP and objdump -p."""
    out = run(["objdump", "-p", path], f"objdump -p {os.path.basename(path)}")
    needed = re.findall(r"^\s*NEEDED\s+(\S+)", out, re.M)
    with open(path, "rb") as f:
        interp = _elf_interp(f.read())
    return interp.lstrip("/"), needed


def library_closure(root, programs):
    """Every file (relative to root) the programs need to run, symlinks included."""
    files, todo, seen = set(), list(programs), set()
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        files.add(rel)
        real = _real(root, rel)
        files.add(real)
        if not os.path.isfile(os.path.join(root, real)):
            raise RetrofiError(f"{rel} is missing from the guest userland", where=root)
        with open(os.path.join(root, real), "rb") as f:
            if f.read(4) != b"\x7fELF":
                continue
        interp, needed = _elf_needs(os.path.join(root, real))
        if interp:
            todo.append(interp)
        for lib in needed:
            for d in LIB_DIRS:
                cand = os.path.join(d, lib)
                if os.path.lexists(os.path.join(root, cand)):
                    todo.append(cand)
                    break
            else:
                raise RetrofiError(f"{real} needs {lib}, which no unpacked package provides",
                                   where=root, fix="add its library package to USERLAND_PACKAGES")
    return files
