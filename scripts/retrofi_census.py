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

A shape target (kind: shape, api_level: X) fails when missing() is not
empty: a guard or an include that keeps a shim out of the stack at that
level would otherwise let the target's own API run unnoticed.

The records as the compat layer's sources write them (guards, blocks,
the API census table of docs/compat.md) are retrofi_api_census's.

The ELF reader is this module's own (32/64-bit, either byte order), so no
binutils are needed to read a census.
"""

import dataclasses
import os
import re
import struct

from retrofi_errors import RetrofiError

SECTION = ".comment.retrofi_census"
# config: a facility the target has only under a kernel option none of
# the targets sets (KUnit's built-in part without CONFIG_KUNIT), guarded
# by the tree's own option (#if IS_ENABLED(CONFIG_RETROFI_...)), not by a
# version; its since is the release that added the API.
KINDS = ("additive", "probed", "structural", "config")
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
    kind: str              # additive | probed | structural | config
    change: str            # the upstream change it stands in for
    # Where catalog() found the record (relative to the tree: "include/
    # linux/rfkill.h"); "" for a record read from a module.
    path: str = dataclasses.field(default="", compare=False)


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

def module_bytes(path):
    """The bytes of module `path`, an .xz or .zst one decompressed (as a
    kernel's modules directory may hold them)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RetrofiError(f"cannot read module: {e.strerror}", where=path,
                           fix="build the tree first")
    if path.endswith(".xz"):
        import lzma
        try:
            return lzma.decompress(data)
        except lzma.LZMAError as e:
            raise RetrofiError(f"cannot decompress: {e}", where=path, fix="rebuild the module")
    if path.endswith(".zst"):
        import subprocess
        p = subprocess.run(["zstd", "-dc"], input=data, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise RetrofiError(f"cannot decompress: {p.stderr.decode(errors='replace').strip()}",
                               where=path, fix="apt-get install zstd")
        return p.stdout
    return data


def elf_section(path, name=SECTION):
    """The bytes of section `name` of ELF file `path` (a module, compressed
    or not), or None without one."""
    data = module_bytes(path)
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
                               fix="RETROFI_CENSUS(name, \"X.Y\", \"additive|probed|structural|config\", "
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
                    s = Shim(m.group(1), m.group(2), m.group(3), change,
                             os.path.relpath(path, tree))
                    line = text.count("\n", 0, m.start()) + 1
                    if s.kind not in KINDS or not SINCE_RE.match(s.since):
                        raise RetrofiError(f"RETROFI_CENSUS({s.name}, ...) has kind '{s.kind}' "
                                           f"and version '{s.since}'", where=f"{path}:{line}",
                                           fix="kind is additive, probed, structural or config; the "
                                               "version is like \"4.13\", or a bound like "
                                               "\"6.12.118..7.2.6\"")
                    since_bounds(s.since, where=f"{path}:{line}")
                    if s.name in shims and shims[s.name] != s:
                        raise RetrofiError(f"shim {s.name} is recorded twice, differently",
                                           where=f"{path}:{line}",
                                           fix="give one RETROFI_CENSUS() per shim name")
                    shims[s.name] = s
    return tuple(sorted(shims.values()))


def required(cat, api_level, included=None):
    """The shims of catalog cat that must be in force at api_level: every
    additive or probed one for an API newer than the level. included (from
    included_files()): only those recorded in a file the build compiled or
    included, or in compat/ (compat.ko is in every build): a header no
    module includes (that of a driver the level does not build) cannot
    leave the target's own API in use."""
    level = level_code(api_level)
    return tuple(s for s in cat if s.kind in ("additive", "probed")
                 and version_code(s.since) > level
                 and (included is None or not s.path or s.path.startswith("compat/")
                      or s.path in included))


def missing(census, cat, api_level, included=None):
    """Names of the shims required at api_level that no module carries."""
    have = census.names()
    return sorted(s.name for s in required(cat, api_level, included) if s.name not in have)


DEP_RE = re.compile(r"(/[^\s\\:]+\.[ch])\b")


def included_files(tree):
    """The files of tree (paths relative to it) that its built objects were
    compiled from or included, from the dependency lists Kbuild writes
    beside them (.<object>.o.cmd); None where tree has no such list (then
    every record counts). A hidden directory is not the tree's build: the
    compat selftest is built in <tree>/.retrofi-selftest after the census
    (retrofi_initramfs), and its includes are its own."""
    root = os.path.realpath(tree) + os.sep
    found, lists, seen = set(), 0, set()
    for d, dirs, files in os.walk(tree):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in files:
            if not (f.startswith(".") and f.endswith(".o.cmd")):
                continue
            lists += 1
            for dep in DEP_RE.findall(open(os.path.join(d, f), errors="replace").read()):
                if dep in seen:
                    continue
                seen.add(dep)
                dep = os.path.realpath(dep)
                if dep.startswith(root):
                    found.add(dep[len(root):])
    return found if lists else None
