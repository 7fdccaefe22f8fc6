"""A pinned Debian package in the cache: downloaded and checked against the
lock file (debs/), and unpacked into a tree (source/, targets/). Used by
the kernels stage (retrofi_kernels), which decides what to fetch.

A .deb is renamed into debs/ only once its size and sha256 match its pin;
a tree is renamed into place only once complete, with a stamp.json naming
the pin it was unpacked from.  Nothing is installed: dpkg-deb -x only.
"""

import contextlib
import errno
import glob
import json
import os
import re
import shutil
import subprocess
import threading

import retrofi_apt
import retrofi_fs
import retrofi_pins
from retrofi_errors import RetrofiError

UNPACK_FACTOR = 5     # unpacked kernel packages take about this many times their .deb size
DOWNLOADS = []        # the packages this process downloaded, in order


def log(msg):
    print(f"[kernels] {msg}", flush=True)


def check_free(path, need, what):
    st = os.statvfs(path)
    free = st.f_bavail * st.f_frsize
    if free < need:
        raise RetrofiError(f"not enough free space for {what}: {free >> 20} MiB free, "
                           f"{need >> 20} MiB needed", where=path,
                           fix="free some space or set RETROFI_CACHE to a larger disk")


# ---------------------------------------------------------------- downloading

def _verified_stamp(path):
    st = os.stat(path)
    return f"{st.st_size} {int(st.st_mtime_ns)}"


def deb_ok(path, pin):
    """Whether a cached .deb is complete and is the pinned file."""
    if not os.path.exists(path):
        return False
    if os.path.getsize(path) != pin["size"]:
        return False
    mark = path + ".sha256"
    try:
        digest, stamp = open(mark).read().split(" ", 1)
        if digest == pin["sha256"] and stamp.strip() == _verified_stamp(path):
            return True
    except (OSError, ValueError):
        pass
    if retrofi_apt.sha256_file(path) != pin["sha256"]:
        return False
    with open(mark, "w") as f:
        f.write(f"{pin['sha256']} {_verified_stamp(path)}\n")
    return True


class _Progress(threading.Thread):
    """Prints the growth of a download every few seconds."""

    def __init__(self, directory, name, total):
        super().__init__(daemon=True)
        self.directory, self.name, self.total = directory, name, total
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(5):
            size = 0
            for f in glob.glob(os.path.join(self.directory, "*")):
                with contextlib.suppress(OSError):
                    size += os.path.getsize(f)
            log(f"  {self.name}: {size >> 20}/{self.total >> 20} MiB")


def ensure_deb(cache, apt, pin):
    """The path of the pinned .deb in the cache, downloading it if needed.

    apt: a PrivateApt, or a function that makes one (only when a download
    is needed)."""
    debs = os.path.join(cache, "debs")
    os.makedirs(debs, exist_ok=True)
    path = os.path.join(debs, os.path.basename(pin["filename"]))
    why = "not in the cache"
    if os.path.exists(path):
        if deb_ok(path, pin):
            return path
        log(f"{os.path.basename(path)}: corrupt or truncated in the cache "
            f"(sha256 or size differs from kernel-matrix.lock); fetching it again")
        why = "the cached copy was corrupt or truncated"
        os.unlink(path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path + ".sha256")
    check_free(debs, pin["size"] + (16 << 20), f"downloading {pin['name']}")
    tmp = os.path.join(debs, f".partial-{pin['name']}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    if callable(apt):
        apt = apt()
    log(f"downloading {pin['name']} {pin['version']} ({pin['size'] >> 20} MiB)")
    progress = _Progress(tmp, pin["name"], pin["size"])
    progress.start()
    try:
        try:
            got = apt.download(pin, tmp)
        except RetrofiError as e:
            raise type(e)(f"cannot download {pin['name']} {pin['version']} ({why}): {e.what}",
                          where=e.where, fix=e.fix, code=e.code)
        if os.path.getsize(got) != pin["size"] or retrofi_apt.sha256_file(got) != pin["sha256"]:
            raise RetrofiError(f"downloaded {os.path.basename(got)} does not match the sha256 "
                               f"in the lock file", where="kernel-matrix.lock",
                               fix="the archive changed a published file: run `make kernels-update`")
        os.replace(got, path)
        DOWNLOADS.append(pin["name"])
    finally:
        progress.done.set()
        shutil.rmtree(tmp, ignore_errors=True)
    deb_ok(path, pin)
    return path


# ---------------------------------------------------------------- unpacking

def _clean_stale(parent):
    for d in glob.glob(os.path.join(parent, ".tmp-*")) + glob.glob(os.path.join(parent, "*.old")):
        shutil.rmtree(d, ignore_errors=True)


def stamp_ok(directory, digest):
    try:
        return json.load(open(os.path.join(directory, "stamp.json")))["entry"] == digest
    except (OSError, ValueError, KeyError):
        return False


def source_ok(directory, entry):
    """Whether an unpacked source tree is the pinned package: the entry's
    digest, or the same package name and version (the archive never
    publishes two contents under one name and version), so that two matrix
    entries pinning one package (a pattern and a name) share the tree."""
    if stamp_ok(directory, retrofi_pins.entry_digest(entry)):
        return True
    pin = entry["packages"][0]
    try:
        stamp = json.load(open(os.path.join(directory, "stamp.json")))
        return (stamp["package"], stamp["version"]) == (pin["name"], pin["version"])
    except (OSError, ValueError, KeyError):
        return False


def _publish(tmp, final, digest, extra):
    with open(os.path.join(tmp, "stamp.json"), "w") as f:
        json.dump(dict(extra, entry=digest), f, indent=2, sort_keys=True)
    old = retrofi_fs.swap_into_place(tmp, final)
    if old:
        shutil.rmtree(old, ignore_errors=True)


def _dpkg_x(deb, root):
    p = subprocess.run(["dpkg-deb", "-x", deb, root], stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        if "No space left" in p.stderr:
            raise OSError(errno.ENOSPC, "No space left on device", root)
        raise RetrofiError(f"dpkg-deb -x failed: {p.stderr.strip()}", where=deb,
                           fix="delete the file from the cache and run again")


def fix_headers(root):
    """Make an unpacked (not installed) headers tree usable where it lies.

    Debian's -<flavour> headers Makefile includes its -common tree by the
    absolute /usr/src path it would have when installed; point it at the
    sibling directory instead.  From 7.x it also sets KBUILD_OUTPUT to its
    own installed path: point that at where it lies.
    """
    for mk in glob.glob(os.path.join(root, "usr/src/linux-headers-*/Makefile")):
        text = open(mk).read()
        fixed = re.sub(r"^include /usr/src/(linux-headers-[^/\s]+)/Makefile$",
                       r"include $(dir $(lastword $(MAKEFILE_LIST)))../\1/Makefile", text, flags=re.M)
        fixed = re.sub(r"^KBUILD_OUTPUT\s*:?=\s*/usr/src/linux-headers-[^/\s]+/?$",
                       "KBUILD_OUTPUT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))",
                       fixed, flags=re.M)
        if fixed != text:
            with open(mk, "w") as f:
                f.write(fixed)


def unpack_target(cache, target, entry, debs):
    parent = os.path.join(cache, "targets")
    os.makedirs(parent, exist_ok=True)
    final = os.path.join(parent, target.name)
    digest = retrofi_pins.entry_digest(entry)
    if stamp_ok(final, digest):
        return final
    _clean_stale(parent)
    need = sum(p["size"] for p in entry["packages"]) * UNPACK_FACTOR
    check_free(parent, need, f"unpacking target {target.name}")
    tmp = os.path.join(parent, f".tmp-{target.name}-{os.getpid()}")
    log(f"unpacking target {target.name} ({len(debs)} packages)")
    try:
        os.makedirs(tmp)
        for deb in debs:
            _dpkg_x(deb, os.path.join(tmp, "root"))
        fix_headers(os.path.join(tmp, "root"))
        _publish(tmp, final, digest, {"target": target.name, "abi": entry["abi"],
                                      "version": entry["version"]})
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def unpack_source(cache, source, entry, deb):
    pin = entry["packages"][0]
    parent = os.path.join(cache, "source")
    os.makedirs(parent, exist_ok=True)
    final = os.path.join(parent, f"{pin['name']}_{pin['version']}")
    digest = retrofi_pins.entry_digest(entry)
    if source_ok(final, entry):
        return final
    _clean_stale(parent)
    check_free(parent, pin["size"] * 12, f"unpacking {pin['name']}")
    tmp = os.path.join(parent, f".tmp-{pin['name']}-{os.getpid()}")
    log(f"unpacking {pin['name']} {pin['version']}")
    try:
        os.makedirs(tmp)
        pkgroot = os.path.join(tmp, "pkg")
        _dpkg_x(deb, pkgroot)
        tarballs = glob.glob(os.path.join(pkgroot, "usr/src/linux-source-*.tar.*"))
        if len(tarballs) != 1:
            raise RetrofiError(f"expected one usr/src/linux-source-*.tar.* in the package, found {len(tarballs)}",
                               where=deb, fix="check that source.package is a Debian linux-source package")
        mtime = int(os.stat(tarballs[0]).st_mtime)
        log(f"  extracting {os.path.basename(tarballs[0])} "
            f"({os.path.getsize(tarballs[0]) >> 20} MiB compressed)")
        p = subprocess.run(["tar", "-C", tmp, "-xf", tarballs[0]], stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            if "No space left" in p.stderr:
                raise OSError(errno.ENOSPC, "No space left on device", tmp)
            raise RetrofiError(f"extracting the source tarball failed: {p.stderr.strip()[-300:]}", where=deb)
        shutil.rmtree(pkgroot)
        trees = [d for d in os.listdir(tmp) if d.startswith("linux-source-")]
        if len(trees) != 1:
            raise RetrofiError(f"the source tarball holds {trees!r}, expected one linux-source-* tree", where=deb)
        _publish(tmp, final, digest, {"package": pin["name"], "version": pin["version"],
                                      "tree": trees[0], "mtime": mtime})
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final
