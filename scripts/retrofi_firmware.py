"""The firmware report: what the built modules ask for, and who ships it.

A driver that loads without its firmware does nothing.  For every module
in a directory of built .ko files (a build's output, or
/lib/modules/<release>), this reads the firmware files the module names
(its `firmware=` modinfo entries, MODULE_FIRMWARE) straight from the
.modinfo section of the ELF file, and looks each one up in the Debian
firmware packages of a release and the newer suites after it
(retrofi_firmware_index).  Each file is then:

  release    a package of the release itself ships it
  newer      only a newer suite's package ships it: that suite and the
             `apt-get install -t SUITE PACKAGE` line
  missing    no package of any of those suites ships it

iwlwifi names only the newest firmware API of each device
(MODULE_FIRMWARE(...(IWL_..._UCODE_API_MAX))), but loads the newest file
it finds from MAX down to MIN.  With a source tree (--source), the
ranges come from its drivers/net/wireless/intel/iwlwifi/cfg/*.c
(iwlwifi_ranges()), and a file counts as shipped when any version of its
range is; a module whose name is not the source's MAX (a module built
from another source) is looked up by its exact name.  ath10k's
firmware-N/board walk and rtw89's firmware formats are modelled the same
way (walks_of()).

A firmware package may ship files compressed (name.xz / name.zst; none
of Debian's in the suites looked at does today); the kernel finds them under the plain name only when its .config enables
CONFIG_FW_LOADER_COMPRESS_XZ / _ZSTD (before 5.19, CONFIG_FW_LOADER_COMPRESS
alone meant xz).  A compressed file the kernel cannot load does not count;
the report says so.
"""

import argparse
import dataclasses
import fnmatch
import glob
import json
import os
import re
import sys

import retrofi_census
import retrofi_firmware_index
from retrofi_errors import RetrofiError

MODULE_SUFFIXES = (".ko", ".ko.xz", ".ko.zst")


@dataclasses.dataclass(frozen=True)
class Range:
    """The files iwlwifi tries for one name: prefix + fmt % N, N from hi
    down to lo (fmt "-%d.ucode", or "-c%d.ucode" for a core number)."""
    prefix: str
    fmt: str
    lo: int
    hi: int

    def names(self):
        return [self.prefix + self.fmt % n for n in range(self.hi, self.lo - 1, -1)]


@dataclasses.dataclass(frozen=True)
class Request:
    module: str            # the module's name, e.g. "iwlwifi"
    name: str              # the file it names, e.g. "iwlwifi-cc-a0-77.ucode"
    tried: tuple = ()      # the names the driver walks for it, first wins
                           # (() = the name alone)
    walk: str = ""         # how, e.g. "API 77..72", "board-2.bin, board.bin"

    def names(self):
        return list(self.tried) or [self.name]


@dataclasses.dataclass(frozen=True)
class Found:
    request: Request
    status: str            # "release" | "newer" | "missing"
    file: str = ""         # the name as shipped (a range's newest one, maybe .xz)
    package: str = ""
    suite: str = ""
    version: str = ""
    note: str = ""         # e.g. "only compressed (.zst) in bookworm-backports: kernel lacks ..."


# ---------------------------------------------------------------- modules

def modinfo(path):
    """{key: [values]} of a module's .modinfo section."""
    sec = retrofi_census.elf_section(path, ".modinfo")
    info = {}
    for item in (sec or b"").split(b"\0"):
        key, eq, value = item.decode("utf-8", "replace").partition("=")
        if eq:
            info.setdefault(key, []).append(value)
    return info


def module_files(klib):
    """The module files under klib, sorted; a clear error when there are none."""
    if not os.path.isdir(klib):
        raise RetrofiError("no such directory", where=klib,
                           fix="pass KLIB=<a directory of built .ko files, or /lib/modules/RELEASE>")
    found = sorted(os.path.join(d, f) for d, _, files in os.walk(klib)
                   for f in files if f.endswith(MODULE_SUFFIXES))
    if not found:
        raise RetrofiError("no kernel modules (.ko, .ko.xz, .ko.zst) under it", where=klib,
                           fix="pass KLIB=<a directory of built .ko files, or /lib/modules/RELEASE>")
    return found


def requests(paths, ranges=None, walks=None):
    """([Request] of every firmware= entry of the modules, in module order,
    [notes]).  A module gets the source's iwlwifi ranges only when every
    .ucode it names is a name the source's cfg files give (it was built
    from that source); else it is looked up by its exact names, noted."""
    ranges, walks = ranges or {}, walks or {}
    out, notes = [], []
    for p in paths:
        info = modinfo(p)
        name = (info.get("name") or [re.sub(r"\.ko(\.\w+)?$", "", os.path.basename(p))])[0]
        name = name.replace("-", "_")
        fws = list(dict.fromkeys(info.get("firmware", [])))   # a name given twice counts once
        ucodes = [fw for fw in fws if fw.endswith(".ucode")]
        mine = [fw for fw in ucodes if fw in ranges] if name == "iwlwifi" else []
        use = bool(mine) and len(mine) == len(ucodes)
        if mine and not use:
            notes.append(f"{name}: {len(ucodes) - len(mine)} of its {len(ucodes)} .ucode names "
                         f"are not the source's: it was built from another source, so its "
                         f"API ranges are unknown and each file is looked up by its exact name")
        for fw in fws:
            walk = (ranges.get(fw) if use else None) or walks.get((name, fw))
            out.append(Request(name, fw, *(walk or ())))
    return out, notes


# ---------------------------------------------------------------- iwlwifi

_DEFINE_RE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\([^)]*\))?[ \t]*((?:[^\n]*\\\n)*[^\n]*)$", re.M)


def _defines(text):
    """{name: (params, body)} of a C file's #defines, continuations joined."""
    out = {}
    for m in _DEFINE_RE.finditer(text):
        body = re.sub(r"\\\n", " ", m.group(3))
        body = re.sub(r"/\*.*?\*/", " ", body).strip()
        out[m.group(1)] = (m.group(2), body)
    return out


def _string(expr, defs, where):
    """The C string an expression of string literals and string macros makes."""
    parts = []
    for tok in re.findall(r'"[^"]*"|\w+', expr):
        if tok.startswith('"'):
            parts.append(tok[1:-1])
        elif tok in defs and defs[tok][0] is None:
            parts.append(_string(defs[tok][1], defs, where))
        else:
            raise RetrofiError(f"cannot resolve '{tok}' in {expr!r} to a string", where=where,
                               fix="teach retrofi_firmware.iwlwifi_ranges the new macro form")
    return "".join(parts)


def _int(name, defs, where):
    if name not in defs or not re.match(r"^\d+$", defs[name][1]):
        raise RetrofiError(f"{name} is not defined as a number", where=where,
                           fix="teach retrofi_firmware.iwlwifi_ranges the new macro form")
    return int(defs[name][1])


def _range(prefix, fmt, max_macro, defs, where):
    min_macro = max_macro.replace("_MAX", "_MIN")
    return Range(prefix, fmt, _int(min_macro, defs, where), _int(max_macro, defs, where))


def iwlwifi_ranges(source):
    """{file name MODULE_FIRMWARE gives: Range} from a source tree's
    iwlwifi cfg files.  The three forms the cfg files use:

      MODULE_FIRMWARE(X_MODULE_FIRMWARE(Y_UCODE_API_MAX))  with
          #define X_MODULE_FIRMWARE(api) PRE "-" __stringify(api) ".ucode"
      IWL_FW_AND_PNVM(PRE, Y_UCODE_API_MAX)   PRE-MAX.ucode (and PRE.pnvm)
      IWL_CORE_FW(PRE, Y_UCODE_CORE_MAX)      PRE-cMAX.ucode

    the range's low end is the macro of the same name with _MIN."""
    cfgs = sorted(glob.glob(os.path.join(source, "drivers/net/wireless/intel/iwlwifi/cfg/*.c")))
    if not cfgs:
        raise RetrofiError("no iwlwifi cfg files", where=os.path.join(
            source, "drivers/net/wireless/intel/iwlwifi/cfg"),
            fix="pass the source tree (retrofi.py kernels --source-path)")
    ranges = {}
    for path in cfgs:
        text = open(path, encoding="utf-8", errors="replace").read()
        defs = _defines(text)
        for m in re.finditer(r"^MODULE_FIRMWARE\(\s*(\w+)\(\s*(\w+)\s*\)\s*\);", text, re.M):
            macro, max_macro = m.groups()
            params, body = defs.get(macro, (None, ""))
            b = re.match(r'^(.*?)\s*"-"\s*__stringify\(\s*\w+\s*\)\s*"\.ucode"$', body)
            if not params or not b:
                raise RetrofiError(f"{macro} is not PRE \"-\" __stringify(api) \".ucode\"",
                                   where=path, fix="teach retrofi_firmware.iwlwifi_ranges the form")
            r = _range(_string(b.group(1), defs, path), "-%d.ucode", max_macro, defs, path)
            ranges[r.prefix + r.fmt % r.hi] = (tuple(r.names()), f"API {r.hi}..{r.lo}")
        for m in re.finditer(r"^IWL_(FW_AND_PNVM|CORE_FW)\(\s*(\w+)\s*,\s*(\w+)\s*\);", text, re.M):
            kind, pre, max_macro = m.groups()
            fmt, what = ("-%d.ucode", "API") if kind == "FW_AND_PNVM" else ("-c%d.ucode", "core")
            r = _range(_string(pre, defs, path), fmt, max_macro, defs, path)
            ranges[r.prefix + r.fmt % r.hi] = (tuple(r.names()), f"{what} {r.hi}..{r.lo}")
    return ranges


def ath10k_walks(source, names):
    """{("ath10k_*", name): (tried, walk)} for ath10k's names: a
    DIR/firmware-N.bin is any of DIR/firmware-MAX.bin .. -MIN.bin
    (ATH10K_FW_API_MAX/MIN of the source's hw.h), and DIR/board-2.bin
    falls back to DIR/board.bin (ATH10K_BOARD_API2_FILE, _DATA_FILE)."""
    path = os.path.join(source, "drivers/net/wireless/ath/ath10k/hw.h")
    try:
        defs = _defines(open(path, encoding="utf-8", errors="replace").read())
    except OSError:
        raise RetrofiError("ath10k's hw.h is missing", where=path,
                           fix="pass the source tree (retrofi.py kernels --source-path)")
    lo, hi = _int("ATH10K_FW_API_MIN", defs, path), _int("ATH10K_FW_API_MAX", defs, path)
    board2 = _string("ATH10K_BOARD_API2_FILE", defs, path)
    board = _string("ATH10K_BOARD_DATA_FILE", defs, path)
    out = {}
    for module, name in names:
        if not module.startswith("ath10k"):
            continue
        d, _, base = name.rpartition("/")
        if re.match(r"^firmware-\d+\.bin$", base):
            out[(module, name)] = (tuple(f"{d}/firmware-{n}.bin" for n in range(hi, lo - 1, -1)),
                                   f"API {hi}..{lo}")
        elif base == board2:
            out[(module, name)] = ((name, f"{d}/{board}"), f"{board2}, {board}")
    return out


# ---------------------------------------------------------------- kernel

def loadable_suffixes(config_text):
    """{".xz": bool, ".zst": bool} from a kernel .config: which compressed
    firmware names its loader tries after the plain one."""
    on = set(re.findall(r"^(CONFIG_FW_LOADER_COMPRESS\w*)=y$", config_text, re.M))
    has_xz_option = "CONFIG_FW_LOADER_COMPRESS_XZ" in config_text
    xz = "CONFIG_FW_LOADER_COMPRESS_XZ" in on or \
        ("CONFIG_FW_LOADER_COMPRESS" in on and not has_xz_option)
    return {".xz": xz, ".zst": "CONFIG_FW_LOADER_COMPRESS_ZSTD" in on}


def find_config(klib):
    """The kernel .config beside a /lib/modules/RELEASE tree, or None."""
    for c in (os.path.join(klib, "build", ".config"),
              os.path.join(klib, "..", "..", "..", "boot",
                           "config-" + os.path.basename(os.path.normpath(klib)))):
        if os.path.isfile(c):
            return c
    return None


# ---------------------------------------------------------------- resolve

def resolve(reqs, suites, suffixes=None):
    """[Found] for reqs against suites ({suite: [Shipped]}, the release's
    own suite first).  suffixes: loadable_suffixes() of the kernel, or
    None when its .config is unknown (compressed files then count, with a
    note)."""
    order = list(suites)
    out = []
    for r in reqs:
        names = r.names()
        hit, notes = None, []
        for suite in order:
            for s in suites[suite]:
                for n in names:
                    got, note = _shipped_as(n, s.files, suffixes)
                    if note:
                        notes.append(f"{n}{note} in {s.package} ({suite})")
                    if got:
                        hit = Found(r, "release" if suite == order[0] else "newer", got,
                                    s.package, suite, s.version)
                        break
                if hit:
                    break
            if hit:
                break
        note = "; ".join(dict.fromkeys(notes))
        if hit is None:
            hit = Found(r, "missing")
        if note and (hit.status == "missing" or hit.file != hit.request.name):
            hit = dataclasses.replace(hit, note=note)
        out.append(hit)
    return out


def _shipped_as(name, files, suffixes):
    """(the shipped name the kernel loads for name, or "", a note)."""
    if name in files:
        return name, ""
    if any(c in name for c in "*?["):
        # A pattern (brcmfmac names board-specific files so): any match.
        hits = sorted(fnmatch.filter(files, name))
        if hits:
            return hits[0], ""
    for sfx in (".xz", ".zst"):
        if name + sfx in files:
            if suffixes is None:
                return name + sfx, f" ships as {sfx} (kernel .config unknown: compressed support not checked)"
            if suffixes[sfx]:
                return name + sfx, ""
            return "", (f" ships only as {sfx}, which this kernel cannot load "
                        f"(CONFIG_FW_LOADER_COMPRESS{'_XZ' if sfx == '.xz' else '_ZSTD'} is off)")
    return "", ""


def install_lines(found, release_suite):
    """The apt-get lines that bring every file some suite ships."""
    by_suite = {}
    for f in found:
        if f.status != "missing":
            by_suite.setdefault(f.suite, set()).add(f.package)
    lines = []
    for suite, pkgs in by_suite.items():
        t = "" if suite == release_suite else f"-t {suite} "
        lines.append(f"apt-get install {t}{' '.join(sorted(pkgs))}")
    return lines


# ---------------------------------------------------------------- report

def to_json(found, release, suites, suffixes):
    return {
        "release": release,
        "ladder": list(suites),
        "suites": {s: [{"package": p.package, "version": p.version} for p in v]
                   for s, v in suites.items()},
        "compressed": suffixes,
        "files": [{"module": f.request.module, "requested": f.request.name,
                   "walk": f.request.walk,
                   "status": f.status, "file": f.file, "package": f.package,
                   "suite": f.suite, "version": f.version, "note": f.note} for f in found],
        "install": install_lines(found, list(suites)[0]),
        "missing": sum(1 for f in found if f.status == "missing"),
    }


def summary(found):
    """Per module: {module: {"files": n, "release": n, "newer": {suite: n}, "missing": n}}."""
    out = {}
    for f in found:
        m = out.setdefault(f.request.module, {"files": 0, "release": 0, "newer": {}, "missing": 0})
        m["files"] += 1
        if f.status == "newer":
            m["newer"][f.suite] = m["newer"].get(f.suite, 0) + 1
        else:
            m[f.status] += 1
    return out


def table(found, release_suite):
    rows = [("module", "requested", "status", "package", "suite", "shipped as")]
    for f in found:
        req = f.request.name + (f" ({f.request.walk})" if f.request.walk else "")
        rows.append((f.request.module, req, f.status, f.package or "-", f.suite or "-",
                     f.file if f.file and f.file != f.request.name else "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines += [f"note: {f.request.module} {f.request.name}: {f.note}" for f in found if f.note]
    lines.append("")
    for mod, s in summary(found).items():
        newer = ", ".join(f"{n} only in {suite}" for suite, n in s["newer"].items())
        lines.append(f"{mod}: {s['files']} files: {s['release']} in {release_suite}"
                     + (f", {newer}" if newer else "") + f", {s['missing']} missing")
    lines += install_lines(found, release_suite)
    return "\n".join(lines)


RELEASE_OF_TAG = {"deb11": "bullseye", "deb12": "bookworm", "deb13": "trixie"}


def guess_release(kernelrelease):
    """The Debian release of a kernel release string, or None:
    "6.12.118+deb12-amd64" -> bookworm, "6.1.0-57-amd64" -> bookworm,
    "5.10.0-46-amd64" -> bullseye."""
    m = re.search(r"\+(deb\d+)", kernelrelease or "")
    if m:
        return RELEASE_OF_TAG.get(m.group(1))
    m = re.match(r"^(\d+\.\d+)\.0-\d+", kernelrelease or "")
    return {"5.10": "bullseye", "6.1": "bookworm"}.get(m.group(1)) if m else None


def rtw89_walks(source):
    """{name MODULE_FIRMWARE gives: (tried, walk)} from a source tree's
    rtw89 chip files: #define X_FW_BASENAME "rtw89/..._fw" with
    X_FW_FORMAT_MAX N names BASENAME-N.bin (BASENAME.bin for 0), and the
    driver tries formats N down to 0 (rtw89_fw_get_filename())."""
    out = {}
    for path in sorted(glob.glob(os.path.join(source, "drivers/net/wireless/realtek/rtw89/*.c"))):
        defs = _defines(open(path, encoding="utf-8", errors="replace").read())
        for macro, (params, body) in defs.items():
            if params or not macro.endswith("_FW_BASENAME"):
                continue
            fmt_macro = macro[:-len("BASENAME")] + "FORMAT_MAX"
            if fmt_macro not in defs:
                continue
            base, top = _string(body, defs, path), _int(fmt_macro, defs, path)
            names = tuple(f"{base}-{n}.bin" if n > 0 else f"{base}.bin" for n in range(top, -1, -1))
            out[names[0]] = (names, f"format {top}..0")
    return out


def walks_of(source, paths):
    """(iwlwifi ranges, ath10k's and rtw89's walks) from a source tree
    (the kernel's, or a built output tree, which keeps the kernel's
    paths); each {} when the tree lacks that driver."""
    if not source:
        return {}, {}
    ranges = iwlwifi_ranges(source) if os.path.isdir(
        os.path.join(source, "drivers/net/wireless/intel/iwlwifi/cfg")) else {}
    plain = [(r.module, r.name) for r in requests(paths)[0]]
    rtw89 = rtw89_walks(source)
    walks = {(m, n): rtw89[n] for m, n in plain if m.startswith("rtw89") and n in rtw89}
    if os.path.isfile(os.path.join(source, "drivers/net/wireless/ath/ath10k/hw.h")):
        walks.update(ath10k_walks(source, plain))
    return ranges, walks


def report(klib, release=None, source=None, config=None, cache=None, refresh=False, say=print,
           paths=None, kernelrelease=None, offline=False):
    """(found, json data) for the modules under klib (or the module files
    paths, when given)."""
    paths = paths if paths is not None else module_files(klib)
    if release is None:
        vermagic = kernelrelease or ((modinfo(paths[0]).get("vermagic") or [""])[0].split(" ")[0]
                                     if paths else "")
        release = guess_release(vermagic) or guess_release(os.path.basename(os.path.normpath(klib)))
        if release is None:
            raise RetrofiError(f"cannot tell the Debian release of kernel '{vermagic}'",
                               where=klib, fix="pass RELEASE=bookworm (or bullseye, trixie)")
    ranges, walks = walks_of(source, paths)
    reqs, notes = requests(paths, ranges, walks)
    if config and not os.path.isfile(config):
        raise RetrofiError("no such kernel .config", where=config,
                           fix="pass the .config the modules were built for (--config, KCONFIG=)")
    config = config or find_config(klib)
    suffixes = loadable_suffixes(open(config).read()) if config else None
    suites = retrofi_firmware_index.release_packages(cache, release, refresh, say,
                                                     offline=offline)
    found = resolve(reqs, suites, suffixes)
    data = to_json(found, release, suites, suffixes)
    data["klib"], data["config"], data["source"] = os.path.abspath(klib), config, source
    data["notes"] = notes + ([] if config else [
        "no kernel .config found beside KLIB: compressed firmware counted as loadable, unchecked "
        "(pass --config; make: KCONFIG=)"])
    return found, data


def for_row(tree, modules, kernel, cache, say=print, offline=False):
    """A matrix row's firmware report: (data for the report's JSON, the
    table's text) for a build's modules (paths relative to tree), its
    kernel (retrofi_kernels.KernelTree: its release string and .config)
    and tree as the source of the drivers' walks.  offline: only what the
    cache holds (RETROFI_FIRMWARE_OFFLINE=1; the tests set it)."""
    paths = [os.path.join(tree, m) for m in modules]
    config = os.path.join(kernel.headers, ".config")
    found, data = report(tree, None, tree, config if os.path.isfile(config) else None, cache,
                         say=say, paths=paths, kernelrelease=kernel.kernelrelease,
                         offline=offline)
    data["summary"] = summary(found)
    data["line"] = row_line(data)
    text = table(found, retrofi_firmware_index.ladder(data["release"])[0]) if found else \
        "no module asks for firmware"
    return data, text


def row_line(data):
    """One line for a row's notes: how much of the firmware the release ships."""
    files = data["files"]
    if not files:
        return "firmware: no module asks for any"
    rel = sum(1 for f in files if f["status"] == "release")
    newer = {}
    for f in files:
        if f["status"] == "newer":
            newer[f["suite"]] = newer.get(f["suite"], 0) + 1
    return (f"firmware: {len(files)} files asked, {rel} in {data['release']}"
            + "".join(f", {n} only in {s}" for s, n in newer.items())
            + f", {data['missing']} in no package"
            + ("; " + "; ".join(data["install"]) if data["install"] else ""))


def main(argv=None):
    import retrofi_kernels
    ap = argparse.ArgumentParser(prog="retrofi_firmware.py",
                                 description="the firmware the built modules ask for, and which "
                                             "Debian package of the release (or a newer suite) ships it")
    ap.add_argument("klib", help="a directory of built .ko files, or /lib/modules/RELEASE")
    ap.add_argument("--release", choices=sorted(retrofi_firmware_index.LADDERS),
                    help="the Debian release (default: from the modules' vermagic)")
    ap.add_argument("--source", help="the source tree whose iwlwifi API ranges apply")
    ap.add_argument("--config", help="the kernel .config (default: KLIB/build/.config or "
                                     "/boot/config-RELEASE beside KLIB)")
    ap.add_argument("--json", help="write the report as JSON here")
    ap.add_argument("--refresh", action="store_true", help="apt-get update the suites first")
    ap.add_argument("--strict", action="store_true",
                    help="exit 2 when some requested file is shipped by no suite")
    a = ap.parse_args(argv)
    try:
        found, data = report(a.klib, a.release, a.source, a.config, retrofi_kernels.cache_dir(),
                             a.refresh)
    except RetrofiError as e:
        print(e.format(), file=sys.stderr)
        return 1
    print(table(found, retrofi_firmware_index.ladder(data["release"])[0]))
    for n in data["notes"]:
        print(f"note: {n}")
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json + ".tmp", "w") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.write("\n")
        os.replace(a.json + ".tmp", a.json)
        print(f"written: {a.json}")
    return 2 if a.strict and data["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
