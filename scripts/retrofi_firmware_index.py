"""Which firmware files Debian's firmware packages ship, suite by suite.

One job: for a Debian release, the suites a user of it can install
firmware from (its own first, then newer ones: LADDERS), and for each
suite the files under lib/firmware of the wireless firmware packages
(PACKAGES) that suite serves.

Packages come through the project's private apt configuration
(retrofi_apt.PrivateApt, with the non-free firmware component added;
signature and hash checks on).  A package's file list (dpkg-deb -c) is
cached under <cache>/firmware/index/<sha256 of the .deb>.json, keyed by
the content the archive's index names, and the .deb itself is dropped
once listed.  A warm run reads the cached apt lists and indexes and needs
no network; refresh=True runs `apt-get update` first.
"""

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile

import retrofi_apt
import retrofi_debversion
import retrofi_fs
from retrofi_errors import RetrofiError

# The packages that ship firmware for wireless drivers (the stack's and
# the older ones a kernel's own modules ask for).
# A package a suite does not serve is simply absent from that suite
# (firmware-mediatek and firmware-intel-misc were split out of
# firmware-misc-nonfree after bookworm; carl9170's and ath9k_htc's free
# firmware are in main).
PACKAGES = ("firmware-iwlwifi", "firmware-misc-nonfree", "firmware-realtek",
            "firmware-atheros", "firmware-mediatek", "firmware-intel-misc",
            "firmware-brcm80211", "firmware-libertas", "firmware-ipw2x00",
            "firmware-ti-connectivity", "firmware-zd1211",
            "firmware-ath9k-htc", "firmware-carl9170", "firmware-linux-free",
            "wireless-regdb")
INDEX_FORMAT = 2

# release -> the suites to look in: the release, its backports, the next
# release and its backports (firmware packages are Architecture: all and
# depend on nothing, so a newer suite's installs on an older release).
# bullseye's backports are no longer served by Debian's mirrors (archived).
LADDERS = {
    "bullseye": ("bullseye", "bookworm", "bookworm-backports"),
    "bookworm": ("bookworm", "bookworm-backports", "trixie", "trixie-backports"),
    "trixie": ("trixie", "trixie-backports"),
}


def components(suite):
    """The archive components holding firmware in suite: non-free up to
    bullseye, non-free-firmware from bookworm on (plus main for the free
    firmware)."""
    return ("main", "non-free") if suite.split("-")[0] == "bullseye" else \
        ("main", "non-free-firmware")


def ladder(release):
    if release not in LADDERS:
        raise RetrofiError(f"unknown Debian release '{release}'", where="RELEASE",
                           fix=f"use one of {', '.join(sorted(LADDERS))}")
    return LADDERS[release]


@dataclasses.dataclass(frozen=True)
class Shipped:
    """One package version of a suite and the firmware names it ships
    (relative to lib/firmware, as the archive names them: compressed ones
    keep their .xz/.zst)."""
    package: str
    version: str
    suite: str
    files: frozenset


def parse_listing(text):
    """The names under lib/firmware/ in `dpkg-deb -c` output: regular
    files and symlinks (the kernel follows a link), no directories."""
    names = set()
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 6 or parts[0].startswith("d"):
            continue
        path = parts[5]
        if parts[0].startswith("l"):
            path = path.split(" -> ", 1)[0]
        m = re.match(r"^\.?/(?:usr/)?lib/firmware/(.+)$", path)
        if m:
            names.add(m.group(1))
    return names


def parse_alternatives(script):
    """The names under lib/firmware/ a maintainer script installs with
    update-alternatives (wireless-regdb's regulatory.db is one: the
    package ships regulatory.db-debian, its postinst links the name the
    kernel asks for)."""
    text = re.sub(r"\\\n", " ", script or "")
    names = set()
    for m in re.finditer(r"--(?:install|slave)\s+(\S+)\s+\S+\s+\S+", text):
        f = re.match(r"^(?:/usr)?/lib/firmware/(.+)$", m.group(1))
        if f:
            names.add(f.group(1))
    return names


def _index_dir(cache):
    d = os.path.join(cache, "firmware", "index")
    os.makedirs(d, exist_ok=True)
    return d


def _cached(cache, pkg):
    path = os.path.join(_index_dir(cache), f"{pkg.sha256}.json")
    try:
        data = json.load(open(path))
    except (OSError, ValueError):
        return None
    if data.get("package") != pkg.name or data.get("version") != pkg.version or \
            data.get("format") != INDEX_FORMAT:
        return None
    return frozenset(data["files"])


def _list_deb(apt, pkg, cache):
    """Download pkg (apt's checks, then its sha256 again), list it, cache
    the list by the .deb's sha256 and drop the .deb."""
    tmp = tempfile.mkdtemp(prefix=".fw-", dir=_index_dir(cache))
    try:
        deb = retrofi_apt.fetch_verified(apt, pkg, tmp)
        p = subprocess.run(["dpkg-deb", "-c", deb], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RetrofiError(f"dpkg-deb -c failed: {p.stderr.strip()}", where=deb,
                               fix="retry; the download is checked against the archive's sha256")
        files = parse_listing(p.stdout)
        # A package without a postinst makes dpkg-deb -I fail: no alternatives.
        post = subprocess.run(["dpkg-deb", "-I", deb, "postinst"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
        if post.returncode == 0:
            files |= parse_alternatives(post.stdout)
        files = sorted(files)
        out = os.path.join(_index_dir(cache), f"{pkg.sha256}.json")
        with open(out + ".tmp", "w") as f:
            json.dump({"format": INDEX_FORMAT, "package": pkg.name, "version": pkg.version,
                       "files": files}, f)
        os.replace(out + ".tmp", out)
        return frozenset(files)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _lists_present(apt):
    want = [s.replace("/", "_") for s in apt.suites]
    have = os.listdir(os.path.join(apt.root, "lists")) if os.path.isdir(
        os.path.join(apt.root, "lists")) else []
    return all(any(f"_dists_{s}_{c}_binary-" in h and h.endswith("_Packages") for h in have)
               for s in want for c in apt.components)


def _newest(apt, cache, packages):
    """[retrofi_apt.Package] the newest version of each of packages the
    suite's lists name.  apt-cache reads all of a suite's lists (main's
    are large), so the answer is kept under <cache>/firmware/suites/,
    keyed by the signed InRelease files the lists came with."""
    h = hashlib.sha256(repr((apt.components, tuple(packages))).encode())
    lists = os.path.join(apt.root, "lists")
    for f in sorted(os.listdir(lists)):
        if f.endswith("_InRelease"):
            h.update(f.encode() + open(os.path.join(lists, f), "rb").read())
    path = os.path.join(cache, "firmware", "suites", f"{h.hexdigest()}.json")
    try:
        return [retrofi_apt.Package(**p) for p in json.load(open(path))]
    except (OSError, ValueError, TypeError):
        pass
    found = []
    for name in packages:
        versions = apt.versions(name)
        if versions:
            found.append(max(versions, key=lambda p: retrofi_debversion.sort_key(p.version)))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump([dataclasses.asdict(p) for p in found], f)
    os.replace(path + ".tmp", path)
    return found


def suite_packages(cache, suite, refresh=False, say=print, packages=PACKAGES, offline=False):
    """[Shipped] of the firmware packages suite serves (newest version of
    each).  Network only when the suite's lists or a package's index are
    not in the cache yet, or refresh is set; offline: never, an index not
    in the cache is an error."""
    apt = retrofi_apt.PrivateApt(cache, [suite], components=components(suite))
    lockdir = os.path.join(cache, "firmware")
    os.makedirs(lockdir, exist_ok=True)
    with retrofi_fs.dir_lock(lockdir, shared=False):
        if offline and (refresh or not _lists_present(apt)):
            raise _not_cached(suite, apt.root)
        if refresh or not _lists_present(apt):
            say(f"[firmware] apt-get update for {suite} ({' '.join(apt.components)})")
            apt.update()
        else:
            apt.write_config()
        shipped = []
        for pkg in _newest(apt, cache, packages):
            name = pkg.name
            files = _cached(cache, pkg)
            if files is None and offline:
                raise _not_cached(suite, f"{pkg.name} {pkg.version}")
            if files is None:
                say(f"[firmware] {suite}: listing {name} {pkg.version} ({pkg.size // 1024} KiB)")
                files = _list_deb(apt, pkg, cache)
            shipped.append(Shipped(name, pkg.version, suite, files))
    return shipped


def _not_cached(suite, where):
    return RetrofiError(f"the firmware index of {suite} is not in the cache, and this run "
                        f"does not fetch (RETROFI_FIRMWARE_OFFLINE=1)", where=where,
                        fix="run `make firmware-report KLIB=...` once with the network, "
                            "or unset RETROFI_FIRMWARE_OFFLINE")


def release_packages(cache, release, refresh=False, say=print, packages=PACKAGES,
                     offline=False):
    """{suite: [Shipped]} for every suite of the release's ladder, in order."""
    return {s: suite_packages(cache, s, refresh, say, packages, offline)
            for s in ladder(release)}
