"""The shim census: which compat shims are in force in the built modules.

Every compat shim records itself with RETROFI_CENSUS(name, "since", "kind",
"change") (include/retrofi/backport.h) inside its guard: the object that
compiles the shim carries the string "name|since|kind|change" in its
non-allocated ELF section .comment.retrofi_census. So the census is read back from
the built modules themselves, never from what the headers say should
happen:

  read(tree, modules)   the shims in force, per module and in all
  catalog(tree)         every shim the tree's compat layer has (the
                        RETROFI_CENSUS lines of its include/ and compat/)
  required(cat, level)  those that must be in force at an API level: the
                        additive and probed shims of APIs newer than it
  missing(census, cat, level)   required shims that no module carries
  check_blocks(tree)    the guarded blocks whose records are missing or
                        wrong (read from the guards, not the records)

A shape target (kind: shape, api_level: X) fails when missing() is not
empty: a guard or an include that keeps a shim out of the stack at that
level would otherwise let the target's own API run unnoticed.

The ELF reader is this module's own (32/64-bit, either byte order), so no
binutils are needed to read a census.
"""

import dataclasses
import os
import re
import struct

import retrofi_conditionals
from retrofi_errors import RetrofiError

SECTION = ".comment.retrofi_census"
KINDS = ("additive", "probed", "structural")
VERSION_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")
# A record's since: the release that introduced its API ("6.14"), or a
# bound "LOW..HIGH" where that release is not verified: the API is newer
# than LOW (a kernel at LOW lacks it) and HIGH has it ("6.12.118..7.2.6").
# The guard stands at HIGH: a shim guessed high is compiled where the
# kernel may have the API already, which the guards allow for; one
# guessed low leaves a kernel with neither.
SINCE_RE = re.compile(r"^(\d+\.\d+(?:\.\d+)?)(?:\.\.(\d+\.\d+(?:\.\d+)?))?$")
CENSUS_CALL_RE = re.compile(
    r'RETROFI_CENSUS\(\s*(\w+)\s*,\s*"([^"]*)"\s*,\s*"([^"]*)"\s*,\s*((?:"[^"]*"\s*)+)\)')


@dataclasses.dataclass(frozen=True, order=True)
class Shim:
    name: str
    since: str             # the kernel version that introduced the API, "4.13",
                           # or a bound "6.12.118..7.2.6" (since_bounds())
    kind: str              # additive | probed | structural
    change: str            # the upstream change it stands in for


def since_bounds(since, where="census record"):
    """(low, high) of a record's since: (None, "6.14") for an exact
    release, ("6.12.118", "7.2.6") for the bound "6.12.118..7.2.6"."""
    m = SINCE_RE.match(since or "")
    if not m:
        raise RetrofiError(f"'{since}' is neither a kernel version nor a bound", where=where,
                           fix='write the release, like "6.14", or a bound LOW..HIGH, like '
                               '"6.12.118..7.2.6" (newer than LOW, HIGH has it)')
    if m.group(2) is None:
        return None, m.group(1)
    low, high = m.group(1), m.group(2)
    if _code(low) >= _code(high):
        raise RetrofiError(f"bound '{since}' does not rise", where=where,
                           fix="write LOW..HIGH with LOW older than HIGH")
    return low, high


def _code(v):
    a, b, c = (list(map(int, v.split("."))) + [0])[:3]
    return (a << 16) + (b << 8) + min(c, 255)


def version_code(v, where="API level"):
    """KERNEL_VERSION() of "a.b[.c]" (c saturates at 255, as the Makefile's).
    A record's bound "LOW..HIGH" counts as HIGH, the version its guard
    uses (an API level is never a bound: level_code())."""
    if v and ".." in v:
        return _code(since_bounds(v, where)[1])
    m = VERSION_RE.match(v or "")
    if not m:
        raise RetrofiError(f"'{v}' is not a kernel version", where=where,
                           fix='write it like "2.6.21"')
    return _code(v)


def level_code(level):
    """KERNEL_VERSION() of an API level, which is one version, never a bound."""
    if not VERSION_RE.match(level or ""):
        raise RetrofiError(f"'{level}' is not a kernel version", where="API level",
                           fix='write it like "2.6.21"')
    return _code(level)


# ---------------------------------------------------------------- ELF

def elf_section(path, name=SECTION):
    """The bytes of section `name` of ELF file `path`, or None without one."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RetrofiError(f"cannot read module: {e.strerror}", where=path,
                           fix="build the tree first")
    if data[:4] != b"\x7fELF" or len(data) < 52:
        raise RetrofiError("not an ELF file", where=path, fix="pass a built .ko or .o")
    bits, order = data[4], {1: "<", 2: ">"}.get(data[5])
    if bits not in (1, 2) or order is None:
        raise RetrofiError("unknown ELF class or byte order", where=path,
                           fix="pass a module built for this machine")
    try:
        if bits == 2:
            shoff, = struct.unpack_from(order + "Q", data, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", data, 0x3a)
            hdr = order + "IIQQQQIIQQ"
        else:
            shoff, = struct.unpack_from(order + "I", data, 0x20)
            shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", data, 0x2e)
            hdr = order + "IIIIIIIIII"
        sections = [struct.unpack_from(hdr, data, shoff + i * shentsize) for i in range(shnum)]
        strtab = sections[shstrndx]
        str_off = strtab[4]
        for s in sections:
            n_end = data.index(b"\0", str_off + s[0])
            if data[str_off + s[0]:n_end].decode("ascii", "replace") == name:
                return data[s[4]:s[4] + s[5]]
    except (struct.error, IndexError, ValueError):
        raise RetrofiError("truncated or corrupt ELF section table", where=path,
                           fix="rebuild the module")
    return None


def parse(data, where="census"):
    """The Shim records of a census section's bytes."""
    shims = set()
    for raw in data.split(b"\0"):
        if not raw:
            continue
        fields = raw.decode("utf-8", "replace").split("|")
        if len(fields) != 4 or fields[2] not in KINDS or not SINCE_RE.match(fields[1]):
            raise RetrofiError(f"malformed census record {raw[:120]!r}", where=where,
                               fix="RETROFI_CENSUS(name, \"X.Y\", \"additive|probed|structural\", "
                                   "\"change\") in include/retrofi/backport.h's form")
        since_bounds(fields[1], where=where)
        shims.add(Shim(*fields))
    return shims


# ---------------------------------------------------------------- census

@dataclasses.dataclass(frozen=True)
class Census:
    modules: dict          # module path (relative to the tree) -> sorted shim names
    shims: tuple           # every Shim in force in any module, sorted by name

    def names(self):
        return {s.name for s in self.shims}

    def rows(self):
        """JSON-friendly: one dict per shim, with the modules that carry it."""
        return [dict(dataclasses.asdict(s),
                     modules=sorted(m for m, names in self.modules.items() if s.name in names))
                for s in self.shims]


    def guest_lines(self):
        """The census as the guest reads it (/etc/retrofi-census): one line
        "module.ko name|since|kind|change" per shim a module carries, sorted
        (the guest test shims_in_force_are_in_the_installed_modules compares
        it with the records it finds in the modules it loads)."""
        by_name = {s.name: s for s in self.shims}
        lines = []
        for rel, names in self.modules.items():
            for n in names:
                s = by_name[n]
                lines.append(f"{os.path.basename(rel)} {s.name}|{s.since}|{s.kind}|{s.change}")
        return "".join(line + "\n" for line in sorted(lines))


def read(tree, modules):
    """The census of the built modules (paths relative to tree)."""
    per_module, every = {}, {}
    for rel in modules:
        path = os.path.join(tree, rel)
        data = elf_section(path)
        shims = parse(data, where=path) if data else set()
        per_module[rel] = sorted(s.name for s in shims)
        for s in shims:
            seen = every.setdefault(s.name, s)
            if seen != s:
                raise RetrofiError(f"shim {s.name} is recorded twice, differently: "
                                   f"{seen} and {s}", where=path,
                                   fix="give one RETROFI_CENSUS() per shim name")
    return Census(per_module, tuple(sorted(every.values())))


def catalog(tree):
    """Every shim the compat layer of tree (an output tree or this
    repository) records, from the RETROFI_CENSUS() calls of its include/
    and compat/ sources."""
    shims = {}
    for sub in ("include", "compat"):
        for root, dirs, files in os.walk(os.path.join(tree, sub)):
            dirs.sort()
            for f in sorted(files):
                if not f.endswith((".h", ".c")):
                    continue
                path = os.path.join(root, f)
                text = open(path, errors="replace").read()
                for m in CENSUS_CALL_RE.finditer(text):
                    change = "".join(re.findall(r'"([^"]*)"', m.group(4)))
                    s = Shim(m.group(1), m.group(2), m.group(3), change)
                    line = text.count("\n", 0, m.start()) + 1
                    if s.kind not in KINDS or not SINCE_RE.match(s.since):
                        raise RetrofiError(f"RETROFI_CENSUS({s.name}, ...) has kind '{s.kind}' "
                                           f"and version '{s.since}'", where=f"{path}:{line}",
                                           fix="kind is additive, probed or structural; the "
                                               "version is like \"4.13\", or a bound like "
                                               "\"6.12.118..7.2.6\"")
                    since_bounds(s.since, where=f"{path}:{line}")
                    if s.name in shims and shims[s.name] != s:
                        raise RetrofiError(f"shim {s.name} is recorded twice, differently",
                                           where=f"{path}:{line}",
                                           fix="give one RETROFI_CENSUS() per shim name")
                    shims[s.name] = s
    return tuple(sorted(shims.values()))


def required(cat, api_level):
    """The shims of catalog cat that must be in force at api_level: every
    additive or probed one for an API newer than the level."""
    level = level_code(api_level)
    return tuple(s for s in cat if s.kind in ("additive", "probed")
                 and version_code(s.since) > level)


def missing(census, cat, api_level):
    """Names of the shims required at api_level that no module carries."""
    have = census.names()
    return sorted(s.name for s in required(cat, api_level) if s.name not in have)


# ---------------------------------------------------------------- api census

GUARD_RE = re.compile(r"^#\s*if\b.*?RETROFI_(API_LESS|API_NEED|LINUX_LESS)\(\s*(\d+),\s*(\d+),\s*(\d+)")
KIND_OF_GUARD = {"API_LESS": "additive", "API_NEED": "probed", "LINUX_LESS": "structural"}
NEGATED_GUARD_RE = re.compile(r"^!\s*RETROFI_(API_LESS|API_NEED|LINUX_LESS)\(")


def _short_version(a, b, c):
    return f"{a}.{b}.{c}" if c != "0" else f"{a}.{b}"


HELPER_RE = re.compile(r"^Helpers?\b")
EXPORT_RE = re.compile(r"^\s*EXPORT_SYMBOL(?:_GPL)?\(\s*(\w+)\s*\)", re.M)


def _comment_above(lines, i):
    """The /* ... */ comment that ends on the line right above line i, as
    one line of text ("" without one)."""
    j = i - 1
    if j < 0 or not lines[j].strip().endswith("*/"):
        return ""
    k = j
    while k > 0 and "/*" not in lines[k]:
        k -= 1
    text = []
    for raw in lines[k:j + 1]:
        s = raw.strip()
        if s.startswith("/*"):
            s = s[2:]
        if s.endswith("*/"):
            s = s[:-2]
        s = s.strip().lstrip("*").strip()
        if s:
            text.append(s)
    return " ".join(text)


@dataclasses.dataclass(frozen=True)
class Block:
    """One guarded block of the compat layer."""
    path: str              # relative to the tree
    line: int              # of its #if
    kind: str              # additive | probed | structural, from the guard
    since: str             # the version of the guard's first test
    what: str              # the comment right above the guard, on one line
    names: tuple           # the RETROFI_CENSUS() names of the branch that
                           # compiles the shim (not those of a guard nested
                           # in it), in order
    guard: str             # the whole #if condition, whitespace folded
    helper: bool           # its comment starts "Helper(s)": code that shims
                           # of its file use, not an API of its own
    body: tuple            # its lines, without the #if and the #endif
    nested: bool = False   # inside the shim branch of another guard: a
                           # part of that guard's shim
    selector: bool = False  # nothing but #include_next in every branch
    defines: tuple = ()    # the macros its shim branch #defines


def _shim_branch(cond):
    """The branch of a guard that compiles its shim: the first, or for a
    negated guard ("#if !RETROFI_LINUX_LESS(...)") the #else."""
    return 1 if NEGATED_GUARD_RE.match(cond.cond) else 0


def _records(lines):
    """(line index, name) of each RETROFI_CENSUS() call of a file (its
    version a string literal: not the macro's definition, nor a comment
    naming its arguments)."""
    return [(i, n) for i, line in enumerate(lines)
            for n in re.findall(r'RETROFI_CENSUS\(\s*(\w+)\s*,\s*"', line)]


def _file_blocks(rel, lines):
    """(Blocks, problems) of one file: the problems of its records'
    places. A record counts only in the branch of a guard that compiles
    the shim (the #if branch, or the #else of a negated guard); the
    innermost guard around it decides."""
    conds, where = retrofi_conditionals.conditionals(lines)
    guards = {}
    for c in conds:
        m = GUARD_RE.match(lines[c.line])
        if m and c.directive == "if":
            guards[id(c)] = m
    problems, names = [], {}
    for i, n in _records(lines):
        inner = [(c, b) for c, b in where[i] if id(c) in guards]
        if not inner:
            problems.append(f"{rel}:{i + 1}: the record of {n} sits outside every "
                            "guard: it is compiled whether a shim is or not")
            continue
        c, b = inner[-1]
        if b != _shim_branch(c):
            problems.append(f"{rel}:{i + 1}: the record of {n} sits in a branch of the "
                            f"guard at line {c.line + 1} that does not compile its shim")
            continue
        names.setdefault(id(c), []).append(n)
        # A name the shim defines only #ifndef X (or #if !defined(X)):
        # its record belongs in that conditional's first branch.
        unless = [o for o in conds if (c, b) in where[o.line] and n in o.undefined()]
        if unless and not any((o, 0) in where[i] for o in unless):
            form = f"#ifndef {n}" if unless[0].directive == "ifndef" else f"#if !defined({n})"
            problems.append(f"{rel}:{c.line + 1}: {n} is defined only {form}, but its "
                            f"record sits outside that {form.split()[0]}")
    blocks = []
    for c in conds:
        m = guards.get(id(c))
        if not m:
            continue
        what = _comment_above(lines, c.line)
        head = c.line
        while lines[head].rstrip().endswith("\\") and head + 1 < len(lines):
            head += 1
        guard = " ".join(" ".join(l.rstrip("\\ ") for l in lines[c.line:head + 1]).split())
        body = tuple(lines[head + 1:c.end]) if c.end >= 0 else tuple(lines[head + 1:])
        shim = _shim_branch(c)
        defines = tuple(re.match(r"^\s*#\s*define\s+(\w+)", lines[k]).group(1)
                        for k in range(c.line, c.end if c.end >= 0 else len(lines))
                        if re.match(r"^\s*#\s*define\s+\w+", lines[k])
                        and (c, shim) in where[k])
        selector = any(re.match(r"^\s*#\s*include_next\b", s) for s in body) and \
            all(not s.strip() or re.match(r"^\s*#\s*(include_next|else)\b", s)
                or s.strip().startswith(("/*", "*", "//")) for s in body)
        nested = any(id(o) in guards and b == _shim_branch(o) for o, b in where[c.line])
        blocks.append(Block(rel, c.line + 1, KIND_OF_GUARD[m.group(1)],
                            _short_version(*m.group(2, 3, 4)), what,
                            tuple(names.get(id(c), ())), guard,
                            bool(HELPER_RE.match(what)), body, nested, selector, defines))
    return blocks, problems


def _sources(tree):
    """(path relative to tree, lines) of every .h and .c of the compat
    layer (include/ and compat/)."""
    for sub in ("include", "compat"):
        for root, dirs, files in os.walk(os.path.join(tree, sub)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".h", ".c")):
                    path = os.path.join(root, f)
                    yield (os.path.relpath(path, tree),
                           open(path, errors="replace").read().splitlines())


def _blocks(tree):
    """Every guarded block of the compat layer (include/ and compat/), as
    Blocks. A block takes the comment that ends right above its guard, and
    only that one: a block with no comment of its own has none."""
    return [b for rel, lines in _sources(tree) for b in _file_blocks(rel, lines)[0]]


def _shimmed(block):
    """Whether api_census counts the block as an API shimmed at a level
    below its version (an additive or probed header block that is not a
    helper; compat/*.c blocks are the out-of-line halves of header shims)."""
    return (block.kind in ("additive", "probed") and not block.helper
            and not block.path.startswith("compat/"))


def _needs_record(block):
    """Whether a block must record its shim itself: every header block of
    any kind, except a helper, a pure #include_next selector (it picks the
    target's header and compiles no shim) and a guard nested in another's
    shim (a part of that shim, recorded there). A compat/*.c block is the
    out-of-line half of a header block, which records it."""
    return not (block.helper or block.selector or block.nested
                or block.path.startswith("compat/"))


def _same_shim(c_block, h_block):
    """Whether header block h_block records what compat block c_block
    compiles: the same guard, or, for a header that the preprocessor
    chooses (!__has_include_next(), which in a .c file would find the
    compat header itself), a guard that tests a macro h_block's shim
    #defines, at its kind and version."""
    if h_block.guard == c_block.guard:
        return True
    return (h_block.kind == c_block.kind and h_block.since == c_block.since and
            any(re.search(rf"\bdefined\s*\(?\s*{re.escape(d)}\b", c_block.guard)
                for d in h_block.defines))


def check_blocks(tree):
    """What is wrong with the census records of tree's guarded blocks, one
    "path:line: problem" string each (empty: nothing). Blocks and records
    are read from the conditionals (#if, #ifdef, #ifndef, #elif, #else,
    #endif, nested), not from the records: a record counts only in the
    branch of its innermost guard that compiles the shim. Every header
    block records its shim, whatever its kind (except a helper, a pure
    #include_next selector and a guard nested in another's shim), with
    its own kind; a record's version is the newest guard that carries it
    and no guard carries it above its version; a record of a name the
    block defines only #ifndef X or #if !defined(X) sits inside that
    conditional; a helper block is not newer than its file's newest
    record of its kind; and a compat/*.c block exports only names that a
    header block of the same shim (_same_shim) records."""
    blocks, problems = [], []
    for rel, lines in _sources(tree):
        found, wrong = _file_blocks(rel, lines)
        blocks += found
        problems += wrong
    cat = {s.name: s for s in catalog(tree)}
    guards_of = {}
    for b in blocks:
        where = f"{b.path}:{b.line}"
        for n in b.names:
            guards_of.setdefault(n, []).append(b)
        if _needs_record(b) and not b.names:
            problems.append(f"{where}: {b.kind} block (< {b.since}) has no RETROFI_CENSUS() "
                            "record")
        for n in b.names:
            s = cat[n]
            if s.kind != b.kind:
                problems.append(f"{where}: {n} is recorded as {s.kind} in a {b.kind} guard")
            if version_code(b.since) > version_code(s.since):
                problems.append(f"{where}: {n} (since {s.since}) is recorded under a "
                                f"guard < {b.since}, above its version")
    for n, bs in guards_of.items():
        newest = max((b.since for b in bs), key=version_code)
        if version_code(newest) != version_code(cat[n].since):
            problems.append(f"{bs[0].path}:{bs[0].line}: {n} (since {cat[n].since}) is carried "
                            f"by no guard < {cat[n].since} (newest: < {newest})")
    for b in blocks:
        where = f"{b.path}:{b.line}"
        if b.helper:
            mine = [cat[n] for o in blocks if o.path == b.path and not o.helper
                    and o.kind == b.kind for n in o.names]
            newest = max((s.since for s in mine), key=version_code, default=None)
            if newest is None or version_code(newest) != version_code(b.since):
                problems.append(f"{where}: helper block (< {b.since}) serves no recorded "
                                f"{b.kind} shim of its file up to that version "
                                f"(newest: {newest or 'none'})")
        if b.path.startswith("compat/") and not b.nested:
            recorded = {n for o in blocks if o.path.startswith("include/")
                        and _same_shim(b, o) for n in o.names}
            exported = EXPORT_RE.findall("\n".join(b.body))
            if b.kind == "structural":
                # The record names the API (a header, a structure), not
                # each function of its out-of-line half (nor the calls
                # that set it up in compat.ko's init and exit).
                if not recorded:
                    problems.append(f"{where}: compiles {', '.join(exported) or 'code'}, but no "
                                    f"header block with the guard '{b.guard}' records a shim")
                continue
            if not exported:
                problems.append(f"{where}: out-of-line {b.kind} block exports nothing")
            for sym in exported:
                if sym not in recorded:
                    problems.append(f"{where}: exports {sym}, which no header block with the "
                                    f"guard '{b.guard}' records")
    return problems


def _file_comment(tree, path):
    """The first paragraph of a file's top comment after its "retrofi
    compat: <header>" line (a header that appeared says why there)."""
    text = open(os.path.join(tree, path), errors="replace").read()
    m = re.search(r"/\*(.*?)\*/", text[text.find("/*", 2):], re.S)
    if not m:
        return ""
    lines = [l.strip().lstrip("*").strip() for l in m.group(1).splitlines()]
    paras = " ".join(l if l else "\n" for l in lines).split("\n")
    paras = [p.strip() for p in paras if p.strip() and not p.strip().startswith("retrofi")]
    return paras[0] if paras else ""


def api_census(tree, level):
    """Every API the compat layer of tree knows that is newer than level, as
    rows {api, since, kind, status, change, where}: status "shimmed" (an
    additive or probed shim in force at level) or "structural" (compiled
    only on real kernels older than since: a changed signature, structure
    or header that a newer base cannot be made to show). A census record
    names its shim; a block without one is named by its comment."""
    code = level_code(level)
    cat = {s.name: s for s in catalog(tree)}
    rows, recorded = [], {}
    for b in _blocks(tree):
        path, line, kind, since, what, names = b.path, b.line, b.kind, b.since, b.what, b.names
        if version_code(since) <= code or b.helper:
            continue
        status = "structural" if kind == "structural" else "shimmed"
        if names:
            for n in names:
                s = cat[n]
                row = dict(api=n, since=s.since, kind=s.kind, status=status,
                           change=s.change, where=f"{path}:{line}")
                # A record carried by several blocks (a shim that stands in
                # for a newer one below its own version) is one API, whose
                # row names the newest guard.
                if n not in recorded or version_code(since) > recorded[n][0]:
                    recorded[n] = (version_code(since), row)
        else:
            if path.startswith("compat/"):
                continue        # the out-of-line half of a header's shim, listed there
            api, sep, change = what.partition(" -- ")
            if not sep or len(api) > 100:         # no "name -- change" comment: name the block by its place
                api, change = f"{path}:{line}", what or _file_comment(tree, path)
                if path.startswith("include/") and not what:
                    api = f"<{path[len('include/'):]}>"
            rows.append(dict(api=api, since=since, kind=kind, status=status,
                             change=(change or what)[:160], where=f"{path}:{line}"))
    rows += [row for _, row in recorded.values()]
    rows.sort(key=lambda r: (r["status"] != "shimmed", version_code(r["since"]), r["api"]))
    return rows


BOUND_NOTE = ("since LOW..HIGH is a bound where the release is not verified: the API is "
              "newer than LOW (a served kernel at LOW lacks it) and HIGH has it; the guard "
              "stands at HIGH.")


def _bound_note(rows):
    return [BOUND_NOTE, ""] if any(".." in r["since"] for r in rows) else []


def markdown(rows, level):
    shimmed = sum(1 for r in rows if r["status"] == "shimmed")
    out = [f"API census at {level}: {shimmed} shimmed, {len(rows) - shimmed} structural "
           f"({len(rows)} APIs newer than {level})", ""] + _bound_note(rows) + [
           "| API | since | kind | at this level | upstream change |",
           "|---|---|---|---|---|"]
    for r in rows:
        change = r["change"].replace("|", "/")
        out.append(f"| `{r['api']}` | {r['since']} | {r['kind']} | {r['status']} | {change} |")
    return "\n".join(out)


def markdown_levels(tree, levels):
    """One table for several levels: each API newer than the oldest, and
    what it is at each level (shimmed, structural, or - when the level has
    the API itself)."""
    per = {lv: {r["api"]: r for r in api_census(tree, lv)} for lv in levels}
    oldest = min(levels, key=version_code)
    rows = api_census(tree, oldest)
    out = []
    for lv in levels:
        vals = per[lv].values()
        shimmed = sum(1 for r in vals if r["status"] == "shimmed")
        out.append(f"- {lv}: {shimmed} shimmed, {len(vals) - shimmed} structural")
    out += [""] + _bound_note(rows) + [
            "| API | since | kind | " + " | ".join(levels) + " | upstream change |",
            "|---|---|---|" + "---|" * len(levels) + "---|"]
    for r in rows:
        cells = [per[lv][r["api"]]["status"] if r["api"] in per[lv] else "-" for lv in levels]
        change = r["change"].replace("|", "/")
        if len(change) > 110:
            change = change[:107].rstrip() + "..."
        out.append(f"| `{r['api']}` | {r['since']} | {r['kind']} | " + " | ".join(cells) +
                   f" | {change} |")
    return "\n".join(out)


# The README's census table sits between these two lines; the first names
# its levels. `make api-census-readme` rewrites what is between them, and
# test_census.py fails while it differs from markdown_levels().
README_BEGIN_RE = re.compile(r"^<!-- api-census LEVEL=([0-9.,]+): written by "
                             r"make api-census-readme, do not edit -->\n", re.M)
README_END = "<!-- end of api-census -->\n"


def readme_section(text, where="README.md"):
    """(levels, start, end) of the census section of a README's text: the
    levels its first marker names, and the span between the markers."""
    m = README_BEGIN_RE.search(text)
    end = text.find(README_END, m.end()) if m else -1
    if not m or end < 0:
        raise RetrofiError("no census section (the lines '<!-- api-census LEVEL=...: written "
                           "by make api-census-readme, do not edit -->' and "
                           f"'{README_END.strip()}')", where=where,
                           fix="put the two marker lines back around the census table")
    return m.group(1).split(","), m.end(), end


def update_readme(path, tree):
    """Rewrite the census section of README `path` from tree's compat
    layer; whether it changed."""
    text = open(path).read()
    levels, start, end = readme_section(text, where=path)
    new = text[:start] + markdown_levels(tree, levels) + "\n\n" + text[end:]
    if new == text:
        return False
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(new)
    os.replace(tmp, path)
    return True


def main(argv=None):
    import argparse
    import sys
    ap = argparse.ArgumentParser(description="the compat layer's APIs newer than an API "
                                             "level: shimmed or structural")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--level",
                      help='an API level, e.g. "2.6.21", or several: "2.6.21,3.10,4.19"')
    what.add_argument("--update-readme", metavar="README",
                      help="rewrite the census section of README (between its api-census "
                           "markers) at the levels its first marker names")
    ap.add_argument("--tree", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="an output tree or this repository (default: the repository)")
    args = ap.parse_args(argv)
    try:
        if args.update_readme:
            changed = update_readme(args.update_readme, args.tree)
            print(f"{args.update_readme}: census section "
                  f"{'rewritten' if changed else 'already up to date'}")
            return 0
        levels = args.level.split(",")
        if len(levels) > 1:
            print(markdown_levels(args.tree, levels))
        else:
            print(markdown(api_census(args.tree, args.level), args.level))
    except RetrofiError as e:
        print(e.format(), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
