"""The pins: the matrix's kernel packages resolved in Debian's archive (the
newest headers with a matching image, and the headers' own linux-headers and
linux-kbuild dependencies), and the lock file that records them beside the
matrix file (kernel-matrix.lock).

In:  a matrix item (the source or a real target) and a PrivateApt of its suites.
Out: a lock entry: the item's spec digest and the pinned packages (name,
     version, filename, size, sha256).
"""

import fnmatch
import hashlib
import json
import os
import re

import retrofi_apt
import retrofi_debversion
import retrofi_matrix
from retrofi_errors import RetrofiError

LOCK_VERSION = 1

# Dependencies of a headers package that are part of the headers tree.
FOLLOW_DEPENDS = re.compile(r"^linux-(headers|kbuild)-")
# Dependencies of an image package that hold the kernel and its modules
# (Debian's 7.x linux-image-X is a metapackage of linux-binary-X, the
# kernel, and linux-modules-X; linux-base-X holds System.map and config).
IMAGE_DEPENDS = re.compile(r"^linux-(binary|modules|base)-\d")


# ---------------------------------------------------------------- lock file

lock_path = retrofi_matrix.lock_path      # kernel-matrix.yaml -> kernel-matrix.lock


def spec_digest(item):
    if item.key.startswith("source"):
        spec = {"package": item.package, "suites": list(item.suites)}
    else:
        spec = {"suites": list(item.suites), "abi": item.abi, "flavour": item.flavour,
                "headers": item.headers, "image": item.image}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def load_lock(path):
    if not os.path.exists(path):
        return {}
    try:
        data = json.load(open(path))
    except (OSError, ValueError) as e:
        raise RetrofiError(f"cannot read the lock file: {e}", where=path,
                           fix="restore it from git or delete it and run `make kernels-update`")
    if not isinstance(data, dict) or data.get("version") != LOCK_VERSION or \
            not isinstance(data.get("entries"), dict):
        raise RetrofiError("the lock file has an unknown format", where=path,
                           fix="restore it from git or delete it and run `make kernels-update`")
    return data["entries"]


def save_lock(path, entries):
    text = json.dumps({"version": LOCK_VERSION,
                       "comment": "retrofi pins: written by `make kernels`/`make kernels-update`; commit it",
                       "entries": entries}, indent=2, sort_keys=True) + "\n"
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def entry_digest(entry):
    return hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()[:16]


# ---------------------------------------------------------------- resolving

def newest(pkgs):
    return max(pkgs, key=lambda p: retrofi_debversion.sort_key(p.version))


def _series_key(package):
    m = re.match(r"^linux-source-(\d+)\.(\d+)$", package)
    return (int(m.group(1)), int(m.group(2))) if m else (-1, -1)


def resolve_source(apt, source):
    """The newest version of the source's package; for a pattern
    (linux-source-*), of the newest linux-source-X.Y the suites serve."""
    apt.update()
    if "*" in source.package:
        names = [n for n in apt.pkgnames("linux-source-")
                 if fnmatch.fnmatchcase(n, source.package) and _series_key(n) != (-1, -1)]
        pkgs = []
        if names:
            pkgs = apt.versions(max(names, key=_series_key))
    else:
        pkgs = apt.versions(source.package)
    if not pkgs:
        raise RetrofiError(f"package {source.package} not found in suites {', '.join(source.suites)}",
                           where=f"kernel-matrix.yaml: {source.key}",
                           fix="check the package name and suites (apt-cache policy "
                               f"{source.package} on a machine with those suites)")
    p = newest(pkgs)
    return {"spec": spec_digest(source), "packages": [p.pin()]}


def _closure(apt, root, follow=FOLLOW_DEPENDS):
    """root plus the packages it depends on whose names match follow
    (default: the linux-headers/linux-kbuild ones)."""
    out, todo, seen = [root], [root], {root.name}
    while todo:
        pkg = todo.pop()
        for alts in retrofi_apt.parse_depends(pkg.depends):
            for name, op, ver in alts:
                if not follow.match(name) or name in seen:
                    continue
                cands = [c for c in apt.versions(name)
                         if op is None or retrofi_debversion.satisfies(c.version, op, ver)]
                if not cands:
                    raise RetrofiError(f"{pkg.name}={pkg.version} depends on {name}"
                                       f"{f' ({op} {ver})' if op else ''}, which is not in "
                                       f"suites {', '.join(apt.suites)}",
                                       fix="add the suite that carries it to the target's suites")
                dep = newest(cands)
                seen.add(name)
                out.append(dep)
                todo.append(dep)
                break
    return out


def resolve_family(apt, family):
    """Every ABI and flavour of a family the suites serve: {key: entry}, one
    build-only row each, its newest headers and their closure (no image)."""
    apt.update()
    rows = {}
    for flavour in family.flavours:
        glob_row = family.target(flavour)
        prefix = glob_row.headers.split("{", 1)[0].format(flavour=flavour)
        for name in apt.pkgnames(prefix):
            abi = glob_row.abi_from_headers(name)
            pkgs = apt.versions(name) if abi else []
            if not pkgs:
                continue
            headers = newest(pkgs)
            row = family.target(flavour, abi, headers.version)
            rows[row.key] = {"spec": spec_digest(row), "family": family.name,
                             "flavour": flavour, "abi": abi, "version": headers.version,
                             "packages": sorted((p.pin() for p in _closure(apt, headers)),
                                                key=lambda p: p["name"])}
    if not rows:
        raise RetrofiError(f"no {family.headers} for abi {family.abi} and flavours "
                           f"{', '.join(family.flavours)} in suites {', '.join(family.suites)}",
                           where=f"kernel-matrix.yaml: family '{family.name}'",
                           fix="check abi:, flavours: and suites: against the archive")
    return rows


def resolve_target(apt, target):
    if target.family:
        # A build-only row: its family narrowed to its own ABI and flavour.
        one = retrofi_matrix.Family(name=target.family, suites=target.suites, abi=target.abi,
                                    flavours=(target.flavour,), headers=target.headers,
                                    cc=target.cc)
        return resolve_family(apt, one)[target.key]
    apt.update()
    prefix = target.headers.split("{", 1)[0].format(flavour=target.flavour)
    candidates = []
    for name in apt.pkgnames(prefix):
        abi = target.abi_from_headers(name)
        if abi is None:
            continue
        images = {p.version: p for p in apt.versions(target.image_for(abi))}
        for h in apt.versions(name):
            if h.version in images:
                candidates.append((abi, h, images[h.version]))
    if not candidates:
        raise RetrofiError(f"no {target.headers_glob()} with a matching {target.image_for(target.abi)} "
                           f"in suites {', '.join(target.suites)}",
                           where=f"kernel-matrix.yaml: target '{target.name}'",
                           fix="check abi:, flavour: and suites: against the archive")
    abi, headers, image = max(candidates, key=lambda c: retrofi_debversion.sort_key(c[1].version))
    pkgs = _closure(apt, headers) + _closure(apt, image, IMAGE_DEPENDS)
    return {"spec": spec_digest(target), "abi": abi, "version": headers.version,
            "packages": sorted((p.pin() for p in pkgs), key=lambda p: p["name"])}
