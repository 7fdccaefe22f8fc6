"""The kernels stage: resolve, pin, download, verify and unpack the source
kernel and the targets' Debian packages into the cache.

In:  a Matrix (retrofi_matrix), the names of the selected targets.
Out: a Kernels record: a SourceTree and one KernelTree per real target.
A package's download, check and unpacking are retrofi_debs's; this module
decides what to fetch and makes the records.

Cache layout (<cache> = $RETROFI_CACHE or <repo>/.cache):
    .lock                    flock: one run at a time per cache
    apt/<suites>/            private apt config, lists and state
    debs/<file>.deb          downloaded packages, checked against the lock's sha256
    debs/<file>.deb.sha256   the verified digest, with size and mtime, for quick re-checks
    source/<pkg>_<ver>/      the unpacked source tree (+ stamp.json)
    targets/<name>/          dpkg -x of the target's headers and image (+ stamp.json)

Nothing is installed into this machine: packages are unpacked with dpkg-deb -x.
Every directory appears by rename() only once complete; a killed run leaves
temporary directories that the next run removes and never mistakes for done.
"""

import contextlib
import dataclasses
import errno
import fcntl
import json
import os
import re
import time

import retrofi_apt
import retrofi_debs
import retrofi_pins
from retrofi_errors import RetrofiError

# Free space the lists of one suite set need, before anything is downloaded.
MIN_FREE_FOR_LISTS = 200 << 20
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclasses.dataclass(frozen=True)
class SourceTree:
    package: str
    version: str
    path: str          # the extracted linux-source tree
    mtime: int         # a fixed timestamp from the package, for reproducible output


@dataclasses.dataclass(frozen=True)
class KernelTree:
    name: str
    abi: str
    version: str
    root: str          # dpkg -x root of the headers and image packages
    headers: str       # KLIB: the configured headers tree
    kernelrelease: str
    image: str         # the bootable kernel (vmlinuz)
    modules: str       # root/lib/modules/<kernelrelease>
    cc: str            # compiler override ("" = the headers' own)
    toolchain: str = ""  # the row's toolchain root, for when this machine cannot build for it


@dataclasses.dataclass(frozen=True)
class Kernels:
    source: SourceTree
    targets: dict      # name -> KernelTree
    sources: dict = dataclasses.field(default_factory=dict)  # source key -> SourceTree
    # name -> retrofi_apt.NotServed: targets whose packages the archive
    # lists but does not serve; their rows fail with it, the others run.
    unavailable: dict = dataclasses.field(default_factory=dict)

    def target(self, name):
        """The fetched tree of a target; its NotServed error if the archive
        did not serve it."""
        if name in self.unavailable:
            raise self.unavailable[name]
        return self.targets[name]

    def source_for(self, matrix, target):
        """The source tree of the output tree a target builds."""
        return self.sources.get(matrix.source_of(target).key, self.source)

    def kernel_source_for(self, matrix, target):
        """The source tree a build target's kernel is built from."""
        return self.sources.get(matrix.kernel_source_of(target).key, self.source)


def log(msg):
    print(f"[kernels] {msg}", flush=True)


# ---------------------------------------------------------------- cache

def cache_dir():
    return os.path.abspath(os.environ.get("RETROFI_CACHE") or os.path.join(REPO, ".cache"))


def check_writable(path):
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, f".write-probe-{os.getpid()}")
        with open(probe, "w") as f:
            f.write("x")
        os.unlink(probe)
    except OSError as e:
        raise RetrofiError(f"cache directory is not writable ({e.strerror})", where=path,
                           fix="make it writable or set RETROFI_CACHE to a writable directory")


@contextlib.contextmanager
def cache_lock(path):
    """One run at a time per cache; a second run waits and says so."""
    check_writable(path)
    fd = os.open(os.path.join(path, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another retrofi run that holds {path}/.lock")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def disk_errors(where):
    """Turn a full disk in the middle of the work into one clear error."""
    try:
        yield
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            raise RetrofiError("the disk is full", where=where,
                               fix="free some space or set RETROFI_CACHE to a larger disk")
        if e.errno in (errno.EACCES, errno.EROFS, errno.EPERM):
            raise RetrofiError(f"cannot write ({e.strerror})", where=e.filename or where,
                               fix="make the cache writable or set RETROFI_CACHE")
        raise


def _source_record(directory):
    stamp = json.load(open(os.path.join(directory, "stamp.json")))
    return SourceTree(package=stamp["package"], version=stamp["version"],
                      path=os.path.join(directory, stamp["tree"]), mtime=stamp["mtime"])


def _headers_record(root, target, entry, flavour_headers):
    """A build-only row's KernelTree: headers, no image, no modules."""
    try:
        krel = open(os.path.join(flavour_headers, "include/config/kernel.release")).read().strip()
    except OSError:
        raise RetrofiError(f"the headers of row {target.name} are not a configured tree "
                           f"(no include/config/kernel.release)", where=flavour_headers,
                           fix="run `make kernels-update`; check the family's headers: pattern")
    return KernelTree(name=target.name, abi=entry["abi"], version=entry["version"], root=root,
                      headers=flavour_headers, kernelrelease=krel, image="", modules="",
                      cc=target.cc, toolchain=target.toolchain)


def _target_record(directory, target, entry):
    root = os.path.join(directory, "root")
    flavour_headers = os.path.join(root, "usr/src", target.headers_for(entry["abi"]))
    if target.kind == "build-only":
        return _headers_record(root, target, entry, flavour_headers)
    # Debian before 13 ships lib/modules/<release> and boot/vmlinuz-<release>;
    # from 13 (merged /usr) usr/lib/modules/<release>, with the kernel in it
    # as vmlinuz.
    mods = "lib/modules"
    if not os.path.isdir(os.path.join(root, mods)) and os.path.isdir(os.path.join(root, "usr", mods)):
        mods = os.path.join("usr", mods)
    releases = sorted(os.listdir(os.path.join(root, mods))) \
        if os.path.isdir(os.path.join(root, mods)) else []
    if len(releases) != 1:
        raise RetrofiError(f"the image package of target {target.name} holds {len(releases)} "
                           f"module trees under {mods}, expected 1",
                           where=root, fix="check the target's image: package pattern")
    krel = releases[0]
    image = os.path.join(root, "boot", f"vmlinuz-{krel}")
    if not os.path.exists(image) and os.path.exists(os.path.join(root, mods, krel, "vmlinuz")):
        image = os.path.join(root, mods, krel, "vmlinuz")
    if not os.path.exists(image):
        raise RetrofiError(f"the image package of target {target.name} has no kernel "
                           f"(boot/vmlinuz-{krel})", where=root,
                           fix="point image: at a package that ships the kernel, e.g. linux-image-{abi}-{flavour}-unsigned")
    if not os.path.exists(os.path.join(flavour_headers, ".config")):
        raise RetrofiError(f"the headers of target {target.name} are not a configured tree (no .config)",
                           where=flavour_headers, fix="check the target's headers: package pattern")
    return KernelTree(name=target.name, abi=entry["abi"], version=entry["version"], root=root,
                      headers=flavour_headers, kernelrelease=krel, image=image,
                      modules=os.path.join(root, mods, krel), cc=target.cc,
                      toolchain=target.toolchain)


# ---------------------------------------------------------------- the stage

def _items(matrix, names):
    """The real targets behind the selected names (a build target's kernel is
    built from the source, by retrofi_kbuild, not fetched)."""
    targets = []
    for t in matrix.select(names):
        real = matrix.real_target(t)
        if real.kind in ("real", "build-only") and real not in targets:
            targets.append(real)
    return targets


def _source_items(matrix, names):
    """The selected source and those the selected targets name."""
    out = [matrix.source]
    for t in matrix.select(names):
        base = matrix.real_target(t)
        for s in (matrix.source_of(t), matrix.kernel_source_of(base)):
            if s not in out:
                out.append(s)
    return out


def update(matrix, names=None, cache=None):
    """Re-resolve the pins of the source and the named (default: all) targets."""
    cache = cache or cache_dir()
    lpath = retrofi_pins.lock_path(matrix.path)
    families = [f for f in matrix.families if not names or f.name in names]
    names = [n for n in names or [t.name for t in matrix.targets if t.kind != "build-only"]
             if n not in {f.name for f in matrix.families}]
    with cache_lock(cache), disk_errors(cache):
        retrofi_debs.check_free(cache, MIN_FREE_FOR_LISTS, "the package lists")
        entries = retrofi_pins.load_lock(lpath)
        new = dict(entries)
        apts = {}

        def apt_for(suites):
            if suites not in apts:
                apts[suites] = retrofi_apt.PrivateApt(cache, suites)
            return apts[suites]

        for src in matrix.all_sources():
            log(f"resolving source {src.name or src.package} ({src.package})")
            new[src.key] = retrofi_pins.resolve_source(apt_for(src.suites), src)
        for t in _items(matrix, names) if names else []:
            log(f"resolving target {t.name}")
            new[t.key] = retrofi_pins.resolve_target(apt_for(t.suites), t)
        if len(families) == len(matrix.families):
            # The rows of a family no longer in the matrix go with it.
            known = {f.name for f in matrix.families}
            for key in [k for k, e in new.items() if e.get("family") not in (None, *known)]:
                log(f"pin {key}: {_describe(new[key])} -> (its family left the matrix)")
                del new[key]
        for f in families:
            # Every ABI and flavour the archive serves now, and no other.
            log(f"resolving family {f.name}")
            rows = retrofi_pins.resolve_family(apt_for(f.suites), f)
            for key in [k for k, e in new.items() if e.get("family") == f.name]:
                if key not in rows:
                    log(f"pin {key}: {_describe(new[key])} -> (no longer served)")
                del new[key]
            new.update(rows)
            log(f"family {f.name}: {len(rows)} rows ("
                + ", ".join(sorted({e['abi'] for e in rows.values()},
                                   key=retrofi_debversion_key)) + ")")
        for key in sorted(new):
            old, cur = entries.get(key), new[key]
            if old != cur:
                was = _describe(old) if old else "(none)"
                log(f"pin {key}: {was} -> {_describe(cur)}")
        if new == entries:
            log("pins unchanged")
        retrofi_pins.save_lock(lpath, new)
    return new


def retrofi_debversion_key(abi):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", abi)]


def _describe(entry):
    if "abi" in entry:
        return f"{entry['abi']} {entry['version']}"
    p = entry["packages"][0]
    return f"{p['name']} {p['version']}"


def fetch(matrix, names=None, cache=None, with_source=True):
    """Make the source and the selected targets present and verified in the cache."""
    cache = cache or cache_dir()
    lpath = retrofi_pins.lock_path(matrix.path)
    started = time.monotonic()
    with cache_lock(cache), disk_errors(cache):
        entries = retrofi_pins.load_lock(lpath)
        srcs = _source_items(matrix, names) if with_source else []
        items = srcs + _items(matrix, names)
        apts = {}

        def apt_for(suites):
            if suites not in apts:
                retrofi_debs.check_free(cache, MIN_FREE_FOR_LISTS, "the package lists")
                apts[suites] = retrofi_apt.PrivateApt(cache, suites)
            return apts[suites]

        changed = False
        for item in items:
            entry = entries.get(item.key)
            if entry is None or entry.get("spec") != retrofi_pins.spec_digest(item):
                why = "not pinned yet" if entry is None else "its matrix entry changed"
                log(f"resolving {item.key} ({why})")
                resolver = (retrofi_pins.resolve_source if item.key.startswith("source")
                            else retrofi_pins.resolve_target)
                entries[item.key] = resolver(apt_for(item.suites), item)
                changed = True
        if changed:
            retrofi_pins.save_lock(lpath, entries)
            log(f"pins written to {os.path.relpath(lpath)}")

        work = 0
        downloads = len(retrofi_debs.DOWNLOADS)
        source = None
        sources = {}
        # Every pinned .deb is present and complete (a cheap size and stamp
        # check; hashed when unknown): one that is missing, truncated or
        # corrupt is fetched again even when its tree is unpacked, so that
        # `kernels --verify` finds nothing wrong after a `kernels` run.
        for src in srcs:
            entry = entries[src.key]
            directory = os.path.join(cache, "source", f"{entry['packages'][0]['name']}_"
                                                      f"{entry['packages'][0]['version']}")
            deb = retrofi_debs.ensure_deb(cache, lambda s=src.suites: apt_for(s), entry["packages"][0])
            if not retrofi_debs.source_ok(directory, entry):
                retrofi_debs.unpack_source(cache, src, entry, deb)
                work += 1
            sources[src.key] = _source_record(directory)
        if with_source:
            source = sources[matrix.source.key]
        targets = {}
        unavailable = {}
        for t in _items(matrix, names):
            entry = entries[t.key]
            directory = os.path.join(cache, "targets", t.name)
            try:
                debs = [retrofi_debs.ensure_deb(cache, lambda s=t.suites: apt_for(s), p)
                        for p in entry["packages"]]
            except retrofi_apt.NotServed as e:
                unavailable[t.name] = e
                log(f"target {t.name} cannot be fetched: {e.what}")
                continue
            if not retrofi_debs.stamp_ok(directory, retrofi_pins.entry_digest(entry)):
                retrofi_debs.unpack_target(cache, t, entry, debs)
                work += 1
            targets[t.name] = _target_record(directory, t, entry)
        elapsed = time.monotonic() - started
        fetched = len(retrofi_debs.DOWNLOADS) - downloads
        if work == 0 and fetched == 0 and not unavailable:
            log(f"all {len(items)} kernels present, unpacked trees match the lock file; "
                f"nothing to do ({elapsed:.1f} s)")
        else:
            log(f"{work} of {len(items)} kernels unpacked, {fetched} package(s) downloaded "
                f"({elapsed:.0f} s)")
        if unavailable:
            log(f"{len(unavailable)} target(s) the archive does not serve: "
                + ", ".join(unavailable))
    return Kernels(source=source, targets=targets, sources=sources, unavailable=unavailable)


def verify(matrix, names=None, cache=None):
    """Re-check every cached .deb of the selection against the lock (sha256)."""
    cache = cache or cache_dir()
    entries = retrofi_pins.load_lock(retrofi_pins.lock_path(matrix.path))
    bad = []
    for item in _source_items(matrix, names) + _items(matrix, names):
        entry = entries.get(item.key)
        if not entry:
            bad.append(f"{item.key}: not pinned")
            continue
        for pin in entry["packages"]:
            path = os.path.join(cache, "debs", os.path.basename(pin["filename"]))
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path + ".sha256")
            if not os.path.exists(path):
                bad.append(f"{os.path.basename(path)}: missing")
            elif not retrofi_debs.deb_ok(path, pin):
                bad.append(f"{os.path.basename(path)}: sha256 mismatch")
    return bad
