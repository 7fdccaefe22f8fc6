"""The served-ABI bounds of the compat layer's APIs: which ABIs the archive
serves have each API the census records, measured from their own headers,
and whether each record's "since" agrees.

A record's since is the release that introduced its API: exact ("6.14")
or, where the release is not verified, a bound "LOW..HIGH" (the API is
newer than LOW and HIGH has it; retrofi_census.since_bounds()). Its guard
stands at the high end: a shim guessed high is compiled where the kernel
may already have the API (an additive shim is renamed with LINUX_BACKPORT,
a probed one stands aside where the probe finds it), while one guessed
low leaves a kernel with neither.

  markers(path)         compat/bounds.list: per record, the headers and the
                        pattern that show its API in a target's own headers
  served(matrix)        the -common headers package of every ABI in
                        kernel-matrix.lock (rt flavours' -common-rt too)
  measure(...)          which markers each package's headers match (one
                        pass over the .deb, nothing unpacked to disk)
  generate(matrix)      the table: served ABIs x APIs present, fetched
                        through the kernels stage's cache and pins
  write/read(path)      compat/api-bounds.txt, committed
  check(cat, table, marks)   what is wrong with the records, one string each

Presence is a grep, not a compile: only the -common headers package is
needed (about 10 MiB per ABI, one pass in seconds), where compile probes
would need every ABI's full headers, kbuild and compiler. Each pattern
matches a definition with comments removed, and check() requires every
marker to match the newest ABI served (which has every API the compat
layer shims), so a pattern that matches nothing fails there.
"""

import fnmatch
import hashlib
import json
import os
import re
import subprocess
import tarfile

import retrofi_api_census
import retrofi_census
import retrofi_debversion
from retrofi_errors import RetrofiError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKERS = os.path.join(REPO, "compat", "bounds.list")
TABLE = os.path.join(REPO, "compat", "api-bounds.txt")
HEADER_LINE = ("# retrofi served-ABI bounds: written by `make api-bounds` from the -common "
               "headers of every ABI in kernel-matrix.lock; do not edit")
COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


class Marker:
    def __init__(self, name, headers, pattern, where, backported=""):
        self.name, self.headers, self.pattern, self.where = name, headers, pattern, where
        self.backported = backported
        try:
            self.regex = re.compile(pattern, re.M)
        except re.error as e:
            raise RetrofiError(f"marker {name}: bad pattern: {e}", where=where,
                               fix="write a Python regular expression")

    @property
    def digest(self):
        text = f"{','.join(self.headers)}|{self.pattern}"
        return hashlib.sha256(text.encode()).hexdigest()[:8]

    def wants(self, rel):
        """Whether a header (a path under include/) is one of the marker's."""
        return any(fnmatch.fnmatchcase(rel, g) for g in self.headers)


def markers(path=MARKERS):
    """The markers of a bounds.list, by name."""
    out = {}
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        raise RetrofiError(f"cannot read the marker list: {e.strerror}", where=path,
                           fix="restore compat/bounds.list from git")
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}:{n}"
        fields = [f.strip() for f in line.split(" | ", 3)]
        backported = ""
        if len(fields) == 4:
            if not fields[3].startswith("backported: ") or len(fields[3]) < 20:
                raise RetrofiError("a marker's fourth field is 'backported: <why the shim is "
                                   "harmless there>'", where=where,
                                   fix="say why, or drop the field")
            backported = fields.pop()[len("backported: "):]
        if len(fields) != 3 or not all(fields):
            raise RetrofiError("a marker is 'name | headers | pattern'", where=where,
                               fix="give the record's name, its headers under include/ and "
                                   "a pattern")
        name, headers, pattern = fields
        if name in out:
            raise RetrofiError(f"marker {name} given twice", where=where,
                               fix="one marker per census record")
        out[name] = Marker(name, tuple(h.strip() for h in headers.split(",")), pattern, where,
                           backported)
    return out


# ---------------------------------------------------------------- served ABIs

class Served:
    """One -common headers package of an ABI in the lock."""

    def __init__(self, label, upstream, pin, suites):
        self.label, self.upstream, self.pin, self.suites = label, upstream, pin, suites


def upstream_of(debian_version):
    """The upstream release of a Debian kernel version: "6.12.118-1~deb12u1"
    -> "6.12.118"."""
    m = re.match(r"^(\d+\.\d+(?:\.\d+)?)", debian_version)
    if not m:
        raise RetrofiError(f"'{debian_version}' is not a Debian kernel version",
                           where="kernel-matrix.lock", fix="run `make kernels-update`")
    return m.group(1)


def served(matrix, entries):
    """Every distinct -common headers package the lock pins (for the real
    and build-only targets), oldest first."""
    seen = {}
    for t in matrix.targets:
        if t.kind not in ("real", "build-only"):
            continue
        entry = entries.get(t.key)
        if not entry or "abi" not in entry:
            continue
        for p in entry["packages"]:
            m = re.match(r"^linux-headers-(.+)-common(-rt)?$", p["name"])
            if m and p["name"] not in seen:
                label = m.group(1) + (" rt" if m.group(2) else "")
                seen[p["name"]] = Served(label, upstream_of(p["version"]), p, tuple(t.suites))
    return sorted(seen.values(), key=lambda s: (retrofi_debversion.sort_key(s.pin["version"]),
                                                s.label))


def measure(deb, marks):
    """The names of the markers that the headers in a -common .deb match:
    one streaming pass over its data, reading only the markers' headers."""
    found = set()
    globs = sorted({g for mk in marks.values() for g in mk.headers})
    any_header = re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs))
    proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                m = re.match(r"^\.?/?usr/src/linux-headers-[^/]+/include/(.+)$", member.name)
                if not m or not member.isfile() or not any_header.match(m.group(1)):
                    continue
                wanted = [mk for mk in marks.values()
                          if mk.name not in found and mk.wants(m.group(1))]
                if not wanted:
                    continue
                raw = tar.extractfile(member).read().decode("utf-8", "replace")
                text = COMMENT_RE.sub(" ", raw)
                found |= {mk.name for mk in wanted if mk.regex.search(text)}
    except tarfile.TarError as e:
        raise RetrofiError(f"cannot read the headers package: {e}", where=deb,
                           fix="run `make kernels-verify`, or delete the file to fetch it again")
    finally:
        proc.stdout.close()
        err = proc.stderr.read().decode(errors="replace")
        if proc.wait() != 0:
            raise RetrofiError(f"dpkg-deb --fsys-tarfile failed: {err.strip()}", where=deb,
                               fix="run `make kernels-verify`, or delete the file to fetch "
                                   "it again")
    return found


def _memo_path(cache, pin):
    return os.path.join(cache, "api-bounds", f"{pin['sha256'][:32]}.json")


def _memo_read(cache, pin, marks):
    """What an earlier run measured in the pinned package, when it measured
    every marker as it is now: (set of names, or "unserved"), or None."""
    try:
        memo = json.load(open(_memo_path(cache, pin)))
    except (OSError, ValueError):
        return None
    if memo.get("unserved"):
        return "unserved"
    seen = memo.get("markers", {})
    if any(mk.digest not in seen for mk in marks.values()):
        return None
    return {n for n, mk in marks.items() if seen[mk.digest]}


def _memo_write(cache, pin, marks, found):
    path = _memo_path(cache, pin)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    memo = ({"unserved": True} if found == "unserved" else
            {"markers": {mk.digest: mk.name in found for mk in marks.values()}})
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(memo, f)
    os.replace(tmp, path)


def generate(matrix, marks, cache=None, log=print, fresh=False):
    """The table {"abis": [(label, upstream)], "apis": {name: (digest,
    [labels])}} of every served ABI, its -common package fetched into the
    cache through the kernels stage's pins and private apt. What a package
    holds is remembered in the cache under its pin's sha256 and each
    marker's digest (a package the archive no longer serves, too), so a
    second run reads only what changed; fresh: measure everything again."""
    import retrofi_apt
    import retrofi_debs
    import retrofi_kernels
    import retrofi_pins
    cache = cache or retrofi_kernels.cache_dir()
    entries = retrofi_pins.load_lock(retrofi_pins.lock_path(matrix.path))
    abis = served(matrix, entries)
    if not abis:
        raise RetrofiError("the lock pins no target", where=retrofi_pins.lock_path(matrix.path),
                           fix="run `make kernels-update`")
    apts = {}

    def apt_for(suites):
        if suites not in apts:
            apts[suites] = retrofi_apt.PrivateApt(cache, suites)
        return apts[suites]

    present, debs = {}, {}
    with retrofi_kernels.cache_lock(cache), retrofi_kernels.disk_errors(cache):
        for a in abis:
            memo = None if fresh else _memo_read(cache, a.pin, marks)
            if memo == "unserved":
                log(f"[api-bounds] {a.label}: not served (remembered), left out")
                continue
            if memo is not None:
                present[a.label] = memo
                continue
            try:
                debs[a.label] = retrofi_debs.ensure_deb(cache, lambda s=a.suites: apt_for(s),
                                                        a.pin)
            except retrofi_apt.NotServed as e:
                # Listed but gone from the pool (as the matrix's rows say
                # "not served"): no headers to measure.
                log(f"[api-bounds] {a.label}: not served, left out ({e.what})")
                _memo_write(cache, a.pin, marks, "unserved")
    for a in abis:
        if a.label in debs:
            present[a.label] = measure(debs[a.label], marks)
            _memo_write(cache, a.pin, marks, present[a.label])
            log(f"[api-bounds] {a.label}: {len(present[a.label])} of {len(marks)} APIs")
    abis = [a for a in abis if a.label in present]
    return {"abis": [(a.label, a.upstream) for a in abis],
            "apis": {n: (mk.digest, [a.label for a in abis if n in present[a.label]])
                     for n, mk in sorted(marks.items())}}


# ---------------------------------------------------------------- the table

def render(table):
    out = [HEADER_LINE,
           "# abi <label> <upstream release>: the served ABIs, oldest first",
           "# api <name> <marker digest>: <the labels of the ABIs whose headers have it>"]
    out += [f"abi {label} {upstream}" for label, upstream in table["abis"]]
    for name, (digest, labels) in sorted(table["apis"].items()):
        out.append(f"api {name} {digest}: {', '.join(labels)}")
    return "\n".join(out) + "\n"


def write(table, path=TABLE):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(render(table))
    os.replace(tmp, path)


def read(path=TABLE):
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        raise RetrofiError(f"cannot read the bounds table: {e.strerror}", where=path,
                           fix="run `make api-bounds`")
    table = {"abis": [], "apis": {}}
    for n, line in enumerate(lines, 1):
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^abi (\S+(?: rt)?) (\d+\.\d+(?:\.\d+)?)$", line)
        if m:
            table["abis"].append((m.group(1), m.group(2)))
            continue
        m = re.match(r"^api (\S+) ([0-9a-f]{8}):(.*)$", line)
        if not m:
            raise RetrofiError(f"unreadable line: {line[:80]!r}", where=f"{path}:{n}",
                               fix="run `make api-bounds` to write it again")
        labels = [x.strip() for x in m.group(3).split(",") if x.strip()]
        table["apis"][m.group(1)] = (m.group(2), labels)
    return table


# ---------------------------------------------------------------- the check

def check(cat, table, marks, probed=()):
    """What is wrong with the census records against the served ABIs, one
    string each (empty: nothing). cat: the census catalog; probed: the
    names whose guard also asks compat/probe.sh (a stable backport below
    the record's version is then found, not redefined)."""
    problems = []
    abis = table["abis"]
    if not abis:
        return ["compat/api-bounds.txt lists no served ABI: run `make api-bounds`"]
    code = {label: retrofi_census.version_code(up) for label, up in abis}
    oldest = min(code.values())
    newest_label = max(abis, key=lambda a: code[a[0]])[0]
    records = {s.name: s for s in cat}
    for name, mk in sorted(marks.items()):
        if name not in records:
            problems.append(f"{mk.where}: marker {name} names no census record")
    for name, s in sorted(records.items()):
        low, high = retrofi_census.since_bounds(s.since)
        mk = marks.get(name)
        row = table["apis"].get(name)
        served_bound = ""
        if mk and row and row[0] == mk.digest:
            without = [(code[lb], up) for lb, up in abis if lb not in row[1]]
            with_ = [(code[lb], up) for lb, up in abis if lb in row[1]]
            if without and with_:
                served_bound = f"{max(without)[1]}..{min(with_)[1]}"
        problems += _cited(s, low, high, oldest, served_bound)
        if s.kind == "config":
            # Guarded by the tree's option, not a version: every served
            # ABI lacks it whatever its headers declare (they do only
            # under a kernel option none of them sets).
            if mk is not None:
                problems.append(f"{mk.where}: {name} is a config record: no version guards "
                                "it, so no marker can bound it: drop the marker")
            continue
        if mk is None:
            if retrofi_census.version_code(high) > oldest:
                problems.append(f"{name} (since {s.since}): no marker in compat/bounds.list, "
                                "though the archive serves ABIs older than it")
            continue
        if row is None or row[0] != mk.digest:
            problems.append(f"{name}: its marker {'changed' if row else 'is new'} since "
                            "compat/api-bounds.txt was written: run `make api-bounds`")
            continue
        have = set(row[1])
        if newest_label not in have:
            problems.append(f"{name}: its marker matches nothing in the newest served ABI "
                            f"{newest_label}: the pattern is wrong ({mk.where})")
            continue
        without = [(code[lb], lb, up) for lb, up in abis if lb not in have]
        with_ = [(code[lb], lb, up) for lb, up in abis if lb in have]
        hi = retrofi_census.version_code(high)
        # A kernel at or above the guard's version that lacks the API gets
        # neither the shim nor the API.
        unshimmed = sorted(w for w in without if w[0] >= hi)
        if unshimmed:
            c, lb, up = max(unshimmed, key=lambda w: (w[0], not w[1].endswith(" rt")))
            more = f" (and {len(unshimmed) - 1} more served ABIs)" if len(unshimmed) > 1 else ""
            problems.append(f"{name} (since {s.since}): the served ABI {lb} ({up}){more} "
                            f"lacks it, though its guard (< {high}) gives it no shim: raise "
                            "the version above that ABI's")
        if low is not None:
            lo = retrofi_census.version_code(low)
            last_without = max(without, default=None)
            if last_without and lo < last_without[0]:
                problems.append(f"{name} (since {s.since}): the served ABI {last_without[1]} "
                                f"({last_without[2]}) lacks it too: the bound's low end is "
                                f"{last_without[2]} or newer")
        # An ABI below the version that has the API: a stable backport.
        # A probed guard finds it; an additive shim is renamed; a
        # structural one redefines it.
        first_with = min(with_)
        clash = first_with[0] < hi and s.kind == "structural" and name not in probed
        if clash and not mk.backported:
            problems.append(f"{name} (since {s.since}): the served ABI {first_with[1]} "
                            f"({first_with[2]}) has it below that version, and its structural "
                            "guard does not probe for it: probe it, or lower the version to "
                            "the real release (or say in its marker why the block is "
                            "harmless there: '| backported: ...')")
        elif mk.backported and not clash:
            problems.append(f"{mk.where}: {name} is marked backported, but no served ABI "
                            f"older than {high} has it under an unprobed guard: drop the "
                            "field")
    return problems


CITE_RE = re.compile(r"\(v(\d+\.\d+(?:\.\d+)?)\b")


def _cited(s, low, high, oldest, served_bound=""):
    """A record's own citation of its release, "(v6.14", agrees with its
    since: the same version, or inside its bound. A record newer than the
    oldest served ABI cites its release or is a bound, so that the archive
    is not the only witness of a version it cannot pin (it serves nothing
    between 6.12 and 7.2)."""
    m = CITE_RE.search(s.change)
    code = retrofi_census.version_code
    if m is None:
        if low is None and code(high) > oldest:
            return [f"{s.name} (since {s.since}): its change cites no release \"(vX.Y\": "
                    "cite the verified release, or record a bound LOW..HIGH"]
        return []
    cite = m.group(1)
    if low is None and code(cite) != code(high):
        witness = ""
        if served_bound:
            lo_, hi_ = served_bound.split("..")
            apart = code(lo_) < code(cite) <= code(hi_) and code(lo_) < code(high) <= code(hi_)
            witness = (f" (the served ABIs show only {served_bound}"
                       + (", which cannot tell them apart)" if apart else ")"))
        return [f"{s.name} (since {s.since}): its change cites v{cite}: the guard and the "
                f"record stand at the cited release{witness}"]
    if low is not None and not code(low) < code(cite) <= code(high):
        return [f"{s.name} (since {s.since}): its change cites v{cite}, outside the bound"]
    return []


def probed_names(tree=REPO):
    """The census names whose guard also asks the target: a probe or the
    header's presence (RETROFI_HAVE_x, __has_include_next), or an #ifndef
    of the name itself around its definition."""
    out = set()
    for b in retrofi_api_census._blocks(tree):
        if re.search(r"RETROFI_HAVE_\w+|__has_include_next", b.guard):
            out.update(b.names)
        out.update(n for n in b.names
                   if any(re.match(rf"^#\s*ifndef\s+{re.escape(n)}\b", r) for r in b.body))
    return out


def main(argv=None):
    import argparse
    import sys
    import retrofi_matrix
    ap = argparse.ArgumentParser(description="measure which served ABIs have each API of "
                                             "the census (compat/api-bounds.txt)")
    ap.add_argument("--output", default=TABLE, help="the table to write (default: %(default)s)")
    ap.add_argument("--check", action="store_true",
                    help="also check the census records against it")
    ap.add_argument("--fresh", action="store_true",
                    help="measure every package again (and ask the archive again for those "
                         "it did not serve), not what the cache remembers")
    args = ap.parse_args(argv)
    try:
        marks = markers()
        matrix = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
        table = generate(matrix, marks, log=lambda m: print(m, flush=True), fresh=args.fresh)
        write(table, args.output)
        print(f"{os.path.relpath(args.output)}: {len(table['abis'])} served ABIs, "
              f"{len(table['apis'])} APIs")
        if args.check:
            problems = check(retrofi_census.catalog(REPO), table, marks, probed_names())
            for p in problems:
                print(f"retrofi: error: {p}", file=sys.stderr)
            return 1 if problems else 0
    except RetrofiError as e:
        print(e.format(), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
