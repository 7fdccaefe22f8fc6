"""The API census: the compat layer's guarded blocks, read from its
sources (include/ and compat/), never from a build.

  check_blocks(tree)    the guarded blocks whose records are missing or
                        wrong (read from the guards, not the records)
  api_census(tree, level)   every API the compat layer knows that is newer
                        than a level: shimmed there, or structural
  update_doc(path, tree)  the census section of a page (docs/compat.md),
                        rewritten

The records themselves, and the census read back from built modules, are
retrofi_census's.  The command line is `make api-census LEVEL=...` and
`make api-census-docs`.
"""

import dataclasses
import os
import re

import retrofi_conditionals
from retrofi_census import catalog, level_code, version_code
from retrofi_errors import RetrofiError


GUARD_RE = re.compile(r"^#\s*if\b.*?RETROFI_(API_LESS|API_NEED|LINUX_LESS)\(\s*(\d+),\s*(\d+),\s*(\d+)")
KIND_OF_GUARD = {"API_LESS": "additive", "API_NEED": "probed", "LINUX_LESS": "structural"}
NEGATED_GUARD_RE = re.compile(r"^!\s*RETROFI_(API_LESS|API_NEED|LINUX_LESS)\(")
# The guard of a config record (retrofi_census.KINDS): an option of the
# tree's config/options, whose #if branch compiles the shim. No version
# decides it, so it makes no block of the API census.
CONFIG_GUARD_RE = re.compile(r"^#\s*if\s+IS_ENABLED\(CONFIG_RETROFI_\w+\)\s*$")
RECORD_KIND_RE = re.compile(r'RETROFI_CENSUS\(\s*(\w+)\s*,\s*"[^"]*"\s*,\s*"([^"]*)"')


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
    configs = {id(c) for c in conds
               if c.directive == "if" and CONFIG_GUARD_RE.match(lines[c.line])}
    problems, names = [], {}
    for i, n in _records(lines):
        kind = RECORD_KIND_RE.search(" ".join(lines[i:i + 2]))
        if kind and kind.group(2) == "config":
            inner = [(c, b) for c, b in where[i] if id(c) in guards or id(c) in configs]
            if not inner or id(inner[-1][0]) not in configs or inner[-1][1] != 0:
                problems.append(f"{rel}:{i + 1}: the record of {n} is of kind config, but "
                                "its innermost guard is not the #if branch of a tree option "
                                "(#if IS_ENABLED(CONFIG_RETROFI_...))")
            continue
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


# The census table of docs/compat.md sits between these two lines; the first
# names its levels. `make api-census-docs` rewrites what is between them, and
# test_census.py fails while it differs from markdown_levels().
DOC = "docs/compat.md"
SECTION_BEGIN_RE = re.compile(r"^<!-- api-census LEVEL=([0-9.,]+): written by "
                              r"make api-census-docs, do not edit -->\n", re.M)
SECTION_END = "<!-- end of api-census -->\n"


def doc_section(text, where=DOC):
    """(levels, start, end) of the census section of a page's text: the
    levels its first marker names, and the span between the markers."""
    m = SECTION_BEGIN_RE.search(text)
    end = text.find(SECTION_END, m.end()) if m else -1
    if not m or end < 0:
        raise RetrofiError("no census section (the lines '<!-- api-census LEVEL=...: written "
                           "by make api-census-docs, do not edit -->' and "
                           f"'{SECTION_END.strip()}')", where=where,
                           fix="put the two marker lines back around the census table")
    return m.group(1).split(","), m.end(), end


def update_doc(path, tree):
    """Rewrite the census section of the page `path` from tree's compat
    layer; whether it changed."""
    text = open(path).read()
    levels, start, end = doc_section(text, where=path)
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
    what.add_argument("--update-doc", metavar="PAGE",
                      help="rewrite the census section of PAGE (between its api-census "
                           "markers) at the levels its first marker names")
    ap.add_argument("--tree", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="an output tree or this repository (default: the repository)")
    args = ap.parse_args(argv)
    try:
        if args.update_doc:
            changed = update_doc(args.update_doc, args.tree)
            print(f"{args.update_doc}: census section "
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
