"""What a built output tree's configuration selects, and whether the build
produced it.

In:  a built output tree: its Kbuild files (obj-<X> += name.o | dir/), the
     driver selection its top Kbuild reads (.retrofi-config, else
     defconfigs/wifi: RETROFI_<DRIVER>=m) and the configuration
     config/config.sh wrote for the target (include/retrofi/config.mk:
     RETROFI_CONFIG_<NAME> := value, or empty with "# off: <why>").
Out: Selection: the modules (.ko paths relative to the tree) the
     configuration selects, and those it switched off with the reason
     config.sh gave (a facility the target lacks); problems(): why a
     build that make finished did not produce what was selected (a
     selected module absent, include/retrofi/probes.h missing), [] when
     it did.

A make that exits 0 proves nothing by itself: a stubbed or cut-short
build that made one module and no probes.h also exits 0.
"""

import dataclasses
import os
import re

CONFIG_MK = os.path.join("include", "retrofi", "config.mk")
PROBES_H = os.path.join("include", "retrofi", "probes.h")
SELECTION_FILES = (".retrofi-config", os.path.join("defconfigs", "wifi"))
# An output tree has these (a tree without them is some other Kbuild tree).
MARKERS = ("Kbuild", os.path.join("config", "options"))

OBJ_RE = re.compile(r"^obj-(\S+)\s*[:+]?=\s*(.*)$")
VAR_RE = re.compile(r"^\$\(([A-Za-z0-9_]+)\)$")
DRIVER_RE = re.compile(r"^(RETROFI_[A-Za-z0-9_]+)\s*[:]?=\s*(\S*)\s*(?:#.*)?$")
CONFIG_RE = re.compile(r"^(RETROFI_CONFIG_[A-Za-z0-9_]+)\s*:=\s*([^#\s]*)\s*(?:#\s*off:\s*(.*))?$")


@dataclasses.dataclass(frozen=True)
class Selection:
    modules: tuple      # selected .ko paths, relative to the tree
    off: tuple          # ("<module>.ko", "RETROFI_CONFIG_X off: <why>"), switched off by config.sh
    errors: tuple       # what could not be read (each names the file and the fix)


def is_output_tree(tree):
    return all(os.path.exists(os.path.join(tree, m)) for m in MARKERS)


def _variables(tree):
    """{name: (value, why-off)} of the driver selection and config.mk, and
    the errors reading them."""
    values, errors = {}, []
    # The drivers a defconfig may select (config/options: VALUE sel:DRIVER):
    # unset in the selection, a driver is off.
    try:
        for line in open(os.path.join(tree, "config", "options"), encoding="utf-8"):
            for driver in re.findall(r"\ssel:([A-Z0-9_]+)", line.split("#", 1)[0]):
                values[f"RETROFI_{driver}"] = ("", "")
    except OSError:
        errors.append(f"{tree}/config/options: missing; fix: regenerate the output tree")
    sel = next((os.path.join(tree, f) for f in SELECTION_FILES
                if os.path.isfile(os.path.join(tree, f))), None)
    if sel is None:
        errors.append(f"{tree}: no driver selection (.retrofi-config or defconfigs/wifi); "
                      f"fix: regenerate the output tree")
    else:
        for line in open(sel, encoding="utf-8"):
            m = DRIVER_RE.match(line.strip())
            if m and not m.group(1).startswith("RETROFI_CONFIG_"):
                values[m.group(1)] = (m.group(2), "")
    mk = os.path.join(tree, CONFIG_MK)
    try:
        lines = open(mk, encoding="utf-8").read().splitlines()
    except OSError:
        errors.append(f"{mk}: missing, so the build never ran config/config.sh (the tree's "
                      f"Kbuild runs it); fix: build with the output tree's own Makefile")
        lines = []
    for line in lines:
        m = CONFIG_RE.match(line.strip())
        if m:
            values[m.group(1)] = (m.group(2), (m.group(3) or "").strip())
    return values, errors


def _kbuild_lines(path):
    """The lines of a Kbuild file, continuations joined."""
    text = open(path, encoding="utf-8").read().replace("\\\n", " ")
    return [l.strip() for l in text.splitlines()]


def selection(tree):
    """The modules the built tree's configuration selects (Selection)."""
    values, errors = _variables(tree)
    modules, off = [], []

    def walk(rel):
        kbuild = os.path.join(tree, rel, "Kbuild")
        if not os.path.isfile(kbuild):
            errors.append(f"{kbuild}: missing, but its parent's Kbuild descends into "
                          f"{rel or '.'}/; fix: regenerate the output tree")
            return
        for line in _kbuild_lines(kbuild):
            m = OBJ_RE.match(line)
            if not m:
                continue
            key, words = m.group(1), m.group(2).split("#", 1)[0].split()
            why = ""
            if key in ("m", "y"):
                value = key
            else:
                var = VAR_RE.match(key)
                if not var or var.group(1) not in values:
                    errors.append(f"{kbuild}: obj-{key}: neither the driver selection nor "
                                  f"{CONFIG_MK} sets {var.group(1) if var else key}; fix: "
                                  f"add it to config/options or the defconfigs")
                    continue
                value, why = values[var.group(1)]
                why = f"{var.group(1)} off: {why}" if why else ""
            for w in words:
                if w.endswith("/"):
                    if value in ("m", "y"):
                        walk(os.path.normpath(os.path.join(rel, w)))
                    elif why:
                        off.append((os.path.normpath(os.path.join(rel, w)) + "/", why))
                elif w.endswith(".o"):
                    ko = os.path.join(rel, w[:-2] + ".ko")
                    if value == "m":
                        modules.append(ko)
                    elif why:
                        off.append((ko, why))

    walk("")
    return Selection(tuple(modules), tuple(off), tuple(errors))


def problems(tree, built):
    """Why the build in tree does not hold what its configuration selects:
    a list of sentences, [] when every selected module is built (in
    `built`, from modules.order, and on disk) and probes.h exists."""
    sel = selection(tree)
    out = list(sel.errors)
    if not os.path.isfile(os.path.join(tree, PROBES_H)):
        out.append(f"{PROBES_H} missing: the probes of the target's headers never ran "
                   f"(compat/probe.sh, the tree's `make probes`)")
    missing = [m for m in sel.modules
               if m not in built or not os.path.isfile(os.path.join(tree, m))]
    if missing:
        out.append(f"{len(missing)} of the {len(sel.modules)} selected modules not built: "
                   + ", ".join(missing))
    extra = [m for m in built if m not in sel.modules]
    if extra and not sel.errors:
        out.append("built but not selected by the configuration: " + ", ".join(extra))
    return out
