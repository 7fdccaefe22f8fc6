"""Drift between a source tree and what the project says about it, beyond
the rules: the two kinds `make refresh` reports besides rules that no
longer apply.

    included_headers  headers the copied files include that the copy list
                      does not copy (a header upstream split or added)
    kbuild_drift      the object lists of the output tree's Kbuild files
                      against the source's own Makefiles (a file upstream
                      added, dropped or renamed)

In:  the source tree, the copied file list, an output tree; optionally a
     baseline source tree (the matrix's default) to tell a new include
     from one the project has always left to the target kernel.
Out: lists of one-line findings, each naming the file to change.
"""

import os
import re

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
# Where <x/y.h> lives in a source tree (arch headers are the target's).
INCLUDE_DIRS = ("include", "include/uapi")
# A line of a Kbuild file naming objects of the source's Makefile that the
# output tree deliberately does not build: "# not shipped: a.o b.o (why)".
NOT_SHIPPED_RE = re.compile(r"^#\s*not shipped:\s*(.*)$", re.M)


# ---------------------------------------------------------------- headers

def _includes(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return []
    return INCLUDE_RE.findall(text)


def _resolve(root, rel, kind, name):
    """The source-relative path an include names, or None (arch, generated,
    or not in the tree)."""
    if kind == '"':
        local = os.path.normpath(os.path.join(os.path.dirname(rel), name))
        if os.path.isfile(os.path.join(root, local)):
            return local
    for d in INCLUDE_DIRS:
        cand = os.path.join(d, name)
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def _included_by(root, files):
    """{header: sorted includers} for the includes of files that resolve in root."""
    out = {}
    for rel in files:
        for kind, name in _includes(os.path.join(root, rel)):
            h = _resolve(root, rel, kind, name)
            if h:
                out.setdefault(h, set()).add(rel)
    return out


def included_headers(root, copied, project_include=None, baseline=None, declared=()):
    """Headers the copied files include that the copy list does not copy.

    A quoted include of a file beside the includer ("x.h") that is not
    copied is always reported. A <...> header of the source's include/ is
    reported when it is new: the baseline's copied files (a list of
    (root, files)) do not include it (those the project has always left to
    the target kernel stay there), project_include (the project's include/)
    does not provide it and the copy list does not declare it the target's
    (declared). A new header (the baseline lacks it) is followed: what it
    includes is checked the same way. Returns "path (included by a, b)"."""
    copied = set(copied)
    declared = set(declared)
    base, broot = set(), None
    if baseline is not None:
        broot, bfiles = baseline
        base = set(_included_by(broot, bfiles))
    found = {}
    todo = sorted(copied)
    seen = set(todo)
    first = True
    while todo:
        inc = _included_by(root, todo)
        todo = []
        for h, users in inc.items():
            if h in copied or h in declared:
                continue
            if not first and broot and os.path.isfile(os.path.join(broot, h)):
                continue        # an old header a new one includes

            local = not h.startswith(INCLUDE_DIRS[0] + "/")
            shimmed = project_include and h.startswith("include/") and os.path.isfile(
                os.path.join(project_include, h[len("include/"):]))
            if not local and (h in base or shimmed or baseline is None):
                continue
            found.setdefault(h, set()).update(users)
            # A header the baseline lacks is new as a whole: what it
            # includes is checked too.
            if h not in seen and (local or not os.path.isfile(os.path.join(broot, h))):
                seen.add(h)
                todo.append(h)
        first = False
    return [f"{h} (included by {', '.join(sorted(found[h]))})" for h in sorted(found)]


# ---------------------------------------------------------------- Kbuild

_ASSIGN_RE = re.compile(r"^([A-Za-z0-9_]+)-(y|m|objs|\$\([A-Za-z0-9_]+\))\s*(\+=|:=|=)\s*(.*)$")
_REF_RE = re.compile(r"^\$\(([A-Za-z0-9_]+)-[^)]*\)$")


def parse_objects(text):
    """(modules, composites) of a Makefile or Kbuild: the .o files of obj-*
    lines, and for each composite name every item of its NAME-* lines."""
    text = re.sub(r"\\\n", " ", text)
    modules, comp = [], {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        m = _ASSIGN_RE.match(line)
        if not m:
            continue
        name, items = m.group(1), m.group(4).split()
        if name == "obj":
            modules += [i for i in items if i.endswith(".o") and i not in modules]
        else:
            comp.setdefault(name, [])
            comp[name] += items
    return modules, comp


def module_objects(module, comp, depth=0):
    """The objects of a module (a composite's items, $(x-y) references
    expanded); a module with no composite lines is its own object."""
    name = module[:-2] if module.endswith(".o") else module
    if name not in comp:
        return {name + ".o"} if depth == 0 else set()
    out = set()
    for item in comp[name]:
        ref = _REF_RE.match(item)
        if ref and depth < 8:
            out |= module_objects(ref.group(1), comp, depth + 1)
        elif item.endswith(".o"):
            out.add(item)
    return out


def kbuild_drift(tree, source_root, skip=("Kbuild", "compat/Kbuild")):
    """For every Kbuild of the output tree with a Makefile at the same place
    in the source: each module it builds against the source's objects of
    that module (a "# not shipped:" line names objects left out on purpose)."""
    found = []
    for d, dirs, files in os.walk(tree):
        dirs.sort()
        if "Kbuild" not in files:
            continue
        kb = os.path.relpath(os.path.join(d, "Kbuild"), tree)
        if kb in skip:
            continue
        mk = os.path.join(os.path.dirname(kb), "Makefile")
        with open(os.path.join(tree, kb), encoding="utf-8") as f:
            ours_text = f.read()
        try:
            with open(os.path.join(source_root, mk), encoding="utf-8") as f:
                theirs_text = f.read()
        except OSError:
            found.append(f"{kb}: the source has no {mk}")
            continue
        not_shipped = set()
        for line in NOT_SHIPPED_RE.findall(ours_text):
            not_shipped |= {w for w in line.split() if w.endswith(".o")}
        ours_mods, ours = parse_objects(ours_text)
        theirs_mods, theirs = parse_objects(theirs_text)
        for mod in ours_mods:
            if mod not in theirs_mods:
                found.append(f"{kb}: {mod} is not built by the source's {mk}")
                continue
            a = module_objects(mod, ours)
            b = module_objects(mod, theirs) - not_shipped
            if a != b:
                parts = []
                if b - a:
                    parts.append("the source adds " + " ".join(sorted(b - a)))
                if a - b:
                    parts.append("the source has no " + " ".join(sorted(a - b)))
                found.append(f"{kb}: {mod[:-2]}: " + "; ".join(parts) + f" (see {mk})")
    return found
