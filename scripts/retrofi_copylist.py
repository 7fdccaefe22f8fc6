"""The copy list and the source's series: which files of a source tree the
output tree takes.

One job: read drivers/copy-list (its format is in its header) into
CopyEntry records, keep the entries of a source's kernel series (sections
[since X.Y] / [before X.Y]), and resolve them against a source tree; and
name the drivers/out-tree-since-X.Y/ overlays of the build glue. The
generate stage (retrofi_generate) copies what this selects.
"""

import fnmatch
import os
import re
from dataclasses import dataclass
from typing import Optional, Tuple

from retrofi_errors import RetrofiError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class CopyEntry:
    kind: str                 # "file" or "dir"
    path: str                 # relative to the source root
    patterns: Tuple[str, ...]  # dir only: include globs
    excludes: Tuple[str, ...]  # dir only: exclude globs
    line: int                 # line number in the copy list
    since: Optional[Tuple[int, int]] = None   # section [since X.Y]
    before: Optional[Tuple[int, int]] = None  # section [before X.Y]

    def applies(self, series):
        """Whether this entry is part of a source of kernel series (X, Y)."""
        return ((self.since is None or series >= self.since)
                and (self.before is None or series < self.before))


# ----------------------------------------------------------- source series

_SERIES_RE = re.compile(r"^(\d+)\.(\d+)$")


def parse_series(text, where):
    """"7.3" -> (7, 3); anything else is an error naming where."""
    m = _SERIES_RE.match(text.strip())
    if not m:
        raise RetrofiError(f"{text.strip()!r} is not a kernel series", where=where,
                           fix='write it like "7.3"')
    return int(m.group(1)), int(m.group(2))


def tree_series(path):
    """The kernel series (X, Y) of an extracted tree, from its top Makefile
    (VERSION, PATCHLEVEL), or None."""
    try:
        with open(os.path.join(path, "Makefile"), encoding="utf-8", errors="replace") as f:
            head = f.read(4096)
    except OSError:
        return None
    v = re.search(r"^VERSION\s*=\s*(\d+)\s*$", head, re.M)
    p = re.search(r"^PATCHLEVEL\s*=\s*(\d+)\s*$", head, re.M)
    return (int(v.group(1)), int(p.group(1))) if v and p else None


def source_series(source):
    """The kernel series (X, Y) of a source tree: from its package name
    (linux-source-X.Y), else from its version, else from its Makefile."""
    m = (re.match(r"^linux-source-(\d+)\.(\d+)$", source.package)
         or re.match(r"^(\d+)\.(\d+)", source.version))
    if not m and tree_series(source.path):
        return tree_series(source.path)
    if not m:
        raise RetrofiError(f"cannot tell the kernel series of {source.package} "
                           f"{source.version}", where=source.path,
                           fix="use a Debian linux-source-X.Y package")
    return int(m.group(1)), int(m.group(2))


def series_text(series):
    return f"{series[0]}.{series[1]}"


# ------------------------------------------------------------- copy list


_SECTION_RE = re.compile(r"^\[\s*(?:(all)|(since|before)\s+(\S+))\s*\]$")


def parse_copy_list(path, series=None):
    """Parse drivers/copy-list (format in its header) into CopyEntry records:
    with series (X, Y), only the entries of that source's sections."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise RetrofiError(f"cannot read the copy list: {e.strerror}",
                           where=path, fix="restore drivers/copy-list")
    entries = []
    seen = set()
    since = before = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{path}:{n}"
        if line.startswith("["):
            m = _SECTION_RE.match(line)
            if not m:
                raise RetrofiError(f"malformed section {line!r}", where=where,
                                   fix="write [all], [since X.Y] or [before X.Y]")
            since = before = None
            if m.group(2) == "since":
                since = parse_series(m.group(3), where)
            elif m.group(2) == "before":
                before = parse_series(m.group(3), where)
            continue
        words = line.split()
        kind, rest = words[0], words[1:]
        if kind not in ("file", "dir", "target") or not rest:
            raise RetrofiError(f"malformed line {raw.strip()!r}", where=where,
                               fix="write 'file PATH', 'target PATH' or "
                                   "'dir PATH GLOB... [!GLOB...]'")
        p = rest[0].rstrip("/")
        if p.startswith("/") or ".." in p.split("/"):
            raise RetrofiError(f"path {p!r} must be relative to the source "
                               "root and stay inside it", where=where)
        if kind in ("file", "target") and len(rest) != 1:
            raise RetrofiError(f"a '{kind}' line takes exactly one path",
                               where=where)
        pats = tuple(w for w in rest[1:] if not w.startswith("!"))
        excl = tuple(w[1:] for w in rest[1:] if w.startswith("!"))
        if kind == "dir" and not pats:
            raise RetrofiError(f"'dir {p}' needs at least one glob "
                               "(e.g. '*.c *.h')", where=where)
        entry = CopyEntry(kind, p, pats, excl, n, since, before)
        if series is not None and not entry.applies(series):
            continue
        key = (kind, p) if series is not None else (kind, p, since, before)
        if key in seen:
            raise RetrofiError(f"{kind} {p} is listed twice"
                               + (f" for source {series_text(series)}"
                                  if series else " in one section"),
                               where=where)
        seen.add(key)
        entries.append(entry)
    if not entries:
        raise RetrofiError("the copy list names no files", where=path)
    return entries


def resolve_copy_list(entries, src_root, list_path="drivers/copy-list",
                      missing_out=None):
    """Return the sorted relative paths the copy list selects from src_root.

    A missing file or directory, or a glob that matches nothing, is an error
    naming the line; all problems are reported at once. With missing_out (a
    list), the problems are appended there instead (refresh reports them)."""
    files = set()
    missing = []
    for e in entries:
        full = os.path.join(src_root, e.path)
        if e.kind == "target":
            continue            # the target kernel's: never copied
        if e.kind == "file":
            if not os.path.isfile(full):
                missing.append(f"{list_path}:{e.line}: file {e.path}")
                continue
            files.add(e.path)
            continue
        if not os.path.isdir(full):
            missing.append(f"{list_path}:{e.line}: dir {e.path}")
            continue
        names = sorted(n for n in os.listdir(full)
                       if os.path.isfile(os.path.join(full, n)))
        for pat in e.patterns:
            if not any(fnmatch.fnmatchcase(n, pat) for n in names):
                missing.append(f"{list_path}:{e.line}: dir {e.path}: "
                               f"nothing matches {pat}")
        for n in names:
            if (any(fnmatch.fnmatchcase(n, p) for p in e.patterns)
                    and not any(fnmatch.fnmatchcase(n, x)
                                for x in e.excludes)):
                files.add(f"{e.path}/{n}")
    if missing and missing_out is not None:
        missing_out.extend(missing)
    elif missing:
        raise RetrofiError(
            "the source tree lacks what the copy list names: "
            + "\n  ".join(missing),
            where=src_root,
            fix="use a source package that has these paths, or update "
                "drivers/copy-list")
    return sorted(files)


# A directory drivers/out-tree-since-X.Y/ holds the build glue files that
# differ for sources of series X.Y and newer (the object lists of a
# Makefile upstream changed); each replaces the file of the same path.
OVERLAY_PREFIX = "out-tree-since-"


def out_tree_overlays(repo):
    """The series of the drivers/out-tree-since-X.Y/ overlays, oldest first."""
    found = []
    drivers = os.path.join(repo, "drivers")
    for n in sorted(os.listdir(drivers)) if os.path.isdir(drivers) else ():
        if n.startswith(OVERLAY_PREFIX) and os.path.isdir(os.path.join(drivers, n)):
            found.append(parse_series(n[len(OVERLAY_PREFIX):], os.path.join(drivers, n)))
    return sorted(found)


def target_headers(source, repo=REPO):
    """The headers the copy list declares the target kernel's for this
    source ('target PATH' lines): included by copied files, never copied."""
    return [e.path for e in parse_copy_list(os.path.join(repo, "drivers", "copy-list"),
                                            source_series(source)) if e.kind == "target"]


def copied_files(source, repo=REPO, missing_out=None):
    """The source-relative paths the copy list selects for this source."""
    copy_list = os.path.join(repo, "drivers", "copy-list")
    return resolve_copy_list(parse_copy_list(copy_list, source_series(source)),
                             source.path, os.path.relpath(copy_list, repo),
                             missing_out)
