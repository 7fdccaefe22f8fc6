"""kernel-matrix.yaml: the schema and the typed model.

The matrix file names one source kernel (the new tree the wireless stack is
taken from) and a list of targets (kernels the output tree is built for and
booted on).  Every error names the file and line and says how to fix it.

Schema (version 1):

    version: 1
    sources:                            # the source kernels, required
      - name: newest                    # unique, required; SOURCE=newest
        package: "linux-source-*"       # Debian source package, required; with
                                        # '*': the newest the suites serve
                                        # (pinned in the lock, moved by
                                        # `make kernels-update`)
        suites: [trixie-backports]      # apt suites to look in, required
      - name: "6.12"
        package: linux-source-6.12
        suites: [bookworm-security]
        lts: true                       # optional: kept as the long-term source
    default_source: "6.12"              # required with sources: what
                                        # generate, release and every target
                                        # without source: use
    # (the older form, one source:, is still read: source: {package:, suites:})
    targets:
      - name: "6.1"                     # unique, required
        kind: real                      # real | shape | build, required
        default: true                   # in `make matrix` without TARGETS
                                        # (TARGETS=shapes: every kind: shape)
        # kind: real
        suites: [bookworm, bookworm-security]
        abi: "6.1.0-*"                  # Debian ABI name; '*' = one dash-free part
        flavour: amd64                  # optional, default amd64
        headers: "linux-headers-{abi}-{flavour}"           # optional
        image: "linux-image-{abi}-{flavour}-unsigned"       # optional
        cc: gcc-12                      # optional compiler override
        toolchain: trixie               # optional: when this machine cannot build
                                        # for the kernel (no `cc:` compiler, or a
                                        # C library older than the headers' host
                                        # programs need), build in that Debian
                                        # release's toolchain root, unpacked into
                                        # the cache (scripts/retrofi_toolchain.py,
                                        # needs root); without it such a row is
                                        # refused before any work
        # kind: shape (API shape of an older kernel on a real base)
        base: "6.1"                     # name of a real (or build) target
        api_level: "2.6.26"             # kernel version whose API is shown
        # kind: build (a kernel built here from the source package with a
        # config fragment; scripts/retrofi_kbuild.py)
        config: kernel-configs/debug.config   # the fragment, relative to the matrix file
        kernel_source: "6.12"           # optional: the source the kernel is built
                                        # from (default: the row's source); the
                                        # row's stack is still its source's
        # every kind
        source: newest                  # optional: the source whose output
                                        # tree this row builds (default:
                                        # default_source; SOURCE=... moves it)
        boot_timeout: 180               # seconds, optional
        event_timeout: 20               # seconds any single event a guest test
                                        # waits for may take (an AP coming up,
                                        # an association), optional; a slow
                                        # kernel (KASAN under TCG) needs more
        kernel_args: "no5lvl"           # optional, added to the guest kernel's
                                        # command line (words of [A-Za-z0-9_.,:=/+-])
        allowed_splats: []              # optional, [{match:, reason:, link:}]: link is
                                        # the upstream report (http/https URL)
        expected_skips: []              # optional, [{test:, reason:}]: a guest test
                                        # (or "parent/subtest") that SKIPs here with
                                        # that reason; any other skip fails the
                                        # target, and so does a declared one that
                                        # does not happen with its reason
        note: "free text"               # optional
      # kind: family -- every ABI and flavour the archive serves of one
      # kernel line, as build-only rows (headers only, never booted).
      # `make kernels-update` resolves it into kernel-matrix.lock; each
      # pinned ABI and flavour is a row named "<abi>-<flavour>"
      # (e.g. 6.1.0-47-amd64). TARGETS=sweep-all selects every row,
      # TARGETS=sweep the oldest and newest ABI of every major (amd64),
      # plus the other flavours of the newest ABI of every major that has
      # a real target and of the newest major.
      - name: "6.1-bookworm"
        kind: family
        suites: [bookworm, bookworm-security]
        abi: "6.1.0-*"
        flavours: [amd64, rt-amd64, cloud-amd64]
        headers: "linux-headers-{abi}-{flavour}"           # optional
        cc: gcc-12                                         # optional
        toolchain: trixie                                  # optional, as above
        source: newest                                     # optional, as above: a
                                                           # line newer than the
                                                           # default source
        note: "free text"                                  # optional
"""

import dataclasses
import os
import re

import yaml

from retrofi_errors import RetrofiError
# The families' rows from the lock file (re-exported: callers use them here).
from retrofi_matrix_rows import _lock_entries, lock_path, with_rows  # noqa: F401
from retrofi_matrix_model import (  # noqa: F401  (the model, re-exported)
    AllowedSplat, BUILD_ONLY, DEFAULT, DEFAULT_BOOT_TIMEOUT,
    DEFAULT_EVENT_TIMEOUT, DEFAULT_HEADERS, DEFAULT_IMAGE, ExpectedSkip,
    FAMILY_ABI_RE, Family, KERNEL_ARGS_RE, Matrix,
    ALL, NAME_RE, PKG_GLOB_RE, ROW_NAME_RE, RT,
    SCHEMA_VERSION, SELECTIONS, SHAPES, SUITE_RE,
    SWEEP, SWEEP_ALL, Source, Target,
    VERSION_RE, abi_glob_regex)



# ---------------------------------------------------------------- loading

class _LineLoader(yaml.SafeLoader):
    """SafeLoader that keeps line numbers and refuses duplicate keys."""


class _Map(dict):
    line = 0
    key_lines = None


def _construct_mapping(loader, node):
    loader.flatten_mapping(node)
    result = _Map()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in result:
            raise _SchemaError(f"duplicate key '{key}'", key_node.start_mark.line + 1,
                               "remove one of the two")
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                            _construct_mapping)


class _SchemaError(Exception):
    def __init__(self, what, line, fix):
        super().__init__(what)
        self.what, self.line, self.fix = what, line, fix


def _line(m, key=None):
    if isinstance(m, _Map):
        if key is not None and m.key_lines and key in m.key_lines:
            return m.key_lines[key]
        return m.line
    return 0


def _check_keys(m, allowed, required, what):
    if not isinstance(m, dict):
        raise _SchemaError(f"{what} must be a mapping", _line(m), "see the schema in scripts/retrofi_matrix.py")
    for k in m:
        if k not in allowed:
            raise _SchemaError(f"unknown key '{k}' in {what}", _line(m, k),
                               "allowed keys: " + ", ".join(sorted(allowed)))
    for k in required:
        if k not in m:
            raise _SchemaError(f"{what} is missing required key '{k}'", _line(m),
                               f"add '{k}:'")


def _str(m, key, what, pattern=None, default=None):
    if key not in m:
        return default
    v = m[key]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        raise _SchemaError(f"{what}.{key} must be a string, got number {v!r}",
                           _line(m, key), f'quote it: {key}: "{v}"')
    if not isinstance(v, str) or not v:
        raise _SchemaError(f"{what}.{key} must be a non-empty string", _line(m, key),
                           "give a string value")
    if pattern and not pattern.match(v):
        raise _SchemaError(f"{what}.{key} '{v}' is not valid", _line(m, key),
                           f"it must match {pattern.pattern}")
    return v


def _suites(m, what):
    v = m.get("suites")
    if not isinstance(v, list) or not v:
        raise _SchemaError(f"{what}.suites must be a non-empty list of apt suites",
                           _line(m, "suites"), "e.g. suites: [bookworm, bookworm-security]")
    for s in v:
        if not isinstance(s, str) or not SUITE_RE.match(s):
            raise _SchemaError(f"{what}.suites has an invalid suite {s!r}",
                               _line(m, "suites"), "suites are names like bookworm-security")
    return tuple(v)


def _target_name(m, what):
    name = _str(m, "name", what, NAME_RE)
    if name in SELECTIONS:
        raise _SchemaError(f"a target cannot be named '{name}'", _line(m, "name"),
                           f"rename it: TARGETS={SHAPES} selects every shape target, "
                           f"TARGETS={DEFAULT} the default ones, TARGETS={SWEEP} and "
                           f"{SWEEP_ALL} the families' rows, TARGETS={RT} the booted rt rows, "
                           f"TARGETS={ALL} every real row and shape")
    return name


def _toolchain(m, what):
    """toolchain: one of retrofi_toolchain.TOOLCHAINS, or ""."""
    import retrofi_toolchain
    name = _str(m, "toolchain", what, default="")
    if name and name not in retrofi_toolchain.TOOLCHAINS:
        raise _SchemaError(f"{what}.toolchain: unknown toolchain '{name}'", _line(m, "toolchain"),
                           "use one of: " + ", ".join(sorted(retrofi_toolchain.TOOLCHAINS))
                           + " (scripts/retrofi_toolchain.py)")
    return name


def _parse_family(m, what):
    _check_keys(m, {"name", "kind", "suites", "abi", "flavours", "headers", "cc", "toolchain",
                    "note", "source"},
                ["name", "kind", "suites", "abi", "flavours"], what)
    name = _target_name(m, what)
    what = f"family '{name}'"
    flavours = m["flavours"]
    if not isinstance(flavours, list) or not flavours or \
            not all(isinstance(f, str) and PKG_GLOB_RE.match(f) and "*" not in f for f in flavours) \
            or len(set(flavours)) != len(flavours):
        raise _SchemaError(f"{what}.flavours must be a non-empty list of distinct Debian flavours",
                           _line(m, "flavours"), "e.g. flavours: [amd64, rt-amd64, cloud-amd64]")
    headers = _str(m, "headers", what, default=DEFAULT_HEADERS)
    if "{abi}" not in headers or "{flavour}" not in headers:
        raise _SchemaError(f"{what}.headers must contain {{abi}} and {{flavour}}",
                           _line(m, "headers"), f'e.g. headers: "{DEFAULT_HEADERS}"')
    return Family(name=name, suites=_suites(m, what), abi=_str(m, "abi", what, FAMILY_ABI_RE),
                  flavours=tuple(flavours), headers=headers,
                  cc=_str(m, "cc", what, re.compile(r"^[A-Za-z0-9_.+/-]+$"), ""),
                  toolchain=_toolchain(m, what),
                  note=_str(m, "note", what, default=""),
                  source=_str(m, "source", what, NAME_RE, default=""))


def _parse_target(m, index):
    what = f"targets[{index}]"
    common = {"name", "kind", "default", "boot_timeout", "event_timeout", "kernel_args",
              "allowed_splats", "expected_skips", "note", "source"}
    real_keys = common | {"suites", "abi", "flavour", "headers", "image", "cc", "toolchain"}
    shape_keys = common | {"base", "api_level"}
    build_keys = common | {"config", "kernel_source"}
    if not isinstance(m, dict):
        raise _SchemaError(f"{what} must be a mapping", _line(m), "see the schema")
    kind = m.get("kind")
    if kind == "family":
        return _parse_family(m, what), _line(m)
    if kind not in ("real", "shape", "build"):
        raise _SchemaError(f"{what}.kind must be 'real', 'shape', 'build' or 'family', "
                           f"got {kind!r}", _line(m, "kind"),
                           "set kind: real (or shape, build, family)")
    if kind == "real":
        _check_keys(m, real_keys, ["name", "kind", "default", "suites", "abi"], what)
    elif kind == "build":
        _check_keys(m, build_keys, ["name", "kind", "default", "config"], what)
    else:
        _check_keys(m, shape_keys, ["name", "kind", "default", "base", "api_level"], what)
    name = _target_name(m, what)
    what = f"target '{name}'"
    default = m["default"]
    if not isinstance(default, bool):
        raise _SchemaError(f"{what}.default must be true or false", _line(m, "default"),
                           "write default: true or default: false")
    timeout = m.get("boot_timeout", DEFAULT_BOOT_TIMEOUT)
    if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
        raise _SchemaError(f"{what}.boot_timeout must be a positive number of seconds",
                           _line(m, "boot_timeout"), "e.g. boot_timeout: 180")
    event = m.get("event_timeout", DEFAULT_EVENT_TIMEOUT)
    if not isinstance(event, int) or isinstance(event, bool) or event <= 0 or event >= timeout:
        raise _SchemaError(f"{what}.event_timeout must be a positive number of seconds, "
                           f"less than its boot_timeout ({timeout})",
                           _line(m, "event_timeout"), "e.g. event_timeout: 20")
    kernel_args = _str(m, "kernel_args", what, KERNEL_ARGS_RE, default="")
    splats = []
    raw_splats = m.get("allowed_splats", [])
    if not isinstance(raw_splats, list):
        raise _SchemaError(f"{what}.allowed_splats must be a list", _line(m, "allowed_splats"),
                           "e.g. allowed_splats: [{match: '...', reason: '...', link: 'https://...'}]")
    for s in raw_splats:
        _check_keys(s, {"match", "reason", "link"}, ["match", "reason", "link"],
                    f"{what}.allowed_splats entry")
        splats.append(AllowedSplat(_str(s, "match", what), _str(s, "reason", what),
                                   _str(s, "link", what, re.compile(r"^https?://\S+$"))))
    skips = []
    raw_skips = m.get("expected_skips", [])
    if not isinstance(raw_skips, list):
        raise _SchemaError(f"{what}.expected_skips must be a list", _line(m, "expected_skips"),
                           "e.g. expected_skips: [{test: 'suite/case', reason: '...'}]")
    for s in raw_skips:
        _check_keys(s, {"test", "reason"}, ["test", "reason"], f"{what}.expected_skips entry")
        skips.append(ExpectedSkip(_str(s, "test", what), _str(s, "reason", what)))
    fields = dict(name=name, kind=kind, default=default, boot_timeout=timeout,
                  event_timeout=event, kernel_args=kernel_args,
                  allowed_splats=tuple(splats), expected_skips=tuple(skips),
                  note=_str(m, "note", what, default=""),
                  source=_str(m, "source", what, NAME_RE, default=""))
    if kind == "real":
        fields.update(
            suites=_suites(m, what),
            abi=_str(m, "abi", what, PKG_GLOB_RE),
            flavour=_str(m, "flavour", what, PKG_GLOB_RE, "amd64"),
            headers=_str(m, "headers", what, default=DEFAULT_HEADERS),
            image=_str(m, "image", what, default=DEFAULT_IMAGE),
            cc=_str(m, "cc", what, re.compile(r"^[A-Za-z0-9_.+/-]+$"), ""),
            toolchain=_toolchain(m, what))
        for key in ("headers", "image"):
            if "{abi}" not in fields[key]:
                raise _SchemaError(f"{what}.{key} must contain {{abi}}", _line(m, key),
                                   f"e.g. {key}: \"{DEFAULT_HEADERS if key == 'headers' else DEFAULT_IMAGE}\"")
    elif kind == "build":
        fields.update(config=_str(m, "config", what),
                      kernel_source=_str(m, "kernel_source", what, NAME_RE, default=""))
    else:
        api = _str(m, "api_level", what)
        if not VERSION_RE.match(api):
            raise _SchemaError(f"{what}.api_level '{api}' is not a kernel version",
                               _line(m, "api_level"), 'write it like "2.6.26"')
        fields.update(base=_str(m, "base", what, NAME_RE), api_level=api)
    return Target(**fields), _line(m)


def _config_path(t, line, path):
    """A build target's fragment, made absolute (relative to the matrix file)."""
    full = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), t.config))
    if not os.path.isfile(full):
        raise _SchemaError(f"target '{t.name}'.config: no such file {t.config}", line,
                           "name a config fragment, e.g. config: kernel-configs/debug.config")
    return dataclasses.replace(t, config=full)


def parse(text, path="kernel-matrix.yaml"):
    """Parse and validate matrix text; raise RetrofiError naming file:line."""
    try:
        try:
            data = yaml.load(text, Loader=_LineLoader)
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            line = mark.line + 1 if mark else 0
            raise _SchemaError(f"malformed YAML: {e.problem or e}", line,
                               "fix the YAML syntax at that line")
        if data is None:
            raise _SchemaError("the matrix file is empty", 1, "add source: and targets:")
        if isinstance(data, dict) and "sources" in data:
            _check_keys(data, {"version", "sources", "default_source", "targets"},
                        ["version", "sources", "default_source", "targets"], "the matrix file")
        else:
            _check_keys(data, {"version", "source", "targets"}, ["version", "source", "targets"],
                        "the matrix file")
        if data["version"] != SCHEMA_VERSION:
            raise _SchemaError(f"unsupported schema version {data['version']!r}",
                               _line(data, "version"), f"this retrofi reads version: {SCHEMA_VERSION}")
        sources = ()
        if "sources" in data:
            sources = _parse_sources(data)
            default = _str(data, "default_source", "the matrix file", NAME_RE)
            by_name = {s.name: s for s in sources}
            if default not in by_name:
                raise _SchemaError(f"default_source '{default}' names no source",
                                   _line(data, "default_source"),
                                   "use one of: " + ", ".join(by_name))
            source = by_name[default]
        else:
            src = data["source"]
            _check_keys(src, {"package", "suites"}, ["package", "suites"], "source")
            source = Source(package=_str(src, "package", "source", PKG_GLOB_RE),
                            suites=_suites(src, "source"))
        if not isinstance(data["targets"], list) or not data["targets"]:
            raise _SchemaError("targets must be a non-empty list", _line(data, "targets"),
                               "add at least one target")
        targets, families, lines = [], [], {}
        for i, raw in enumerate(data["targets"]):
            t, line = _parse_target(raw, i)
            if t.name in lines:
                raise _SchemaError(f"duplicate target name '{t.name}' (first at line {lines[t.name]})",
                                   line, "give every target a unique name")
            lines[t.name] = line
            if isinstance(t, Family):
                families.append(t)
                continue
            if t.kind == "build":
                t = _config_path(t, line, path)
            targets.append(t)
        by_name = {t.name: t for t in targets}
        known = {s.name for s in sources}
        for t in families + targets:
            if t.source and t.source not in known:
                what = "family" if isinstance(t, Family) else "target"
                raise _SchemaError(f"{what} '{t.name}'.source '{t.source}' names no source",
                                   lines[t.name], "use the name of an entry of sources:")
            if getattr(t, "kernel_source", "") and t.kernel_source not in known:
                raise _SchemaError(f"target '{t.name}'.kernel_source '{t.kernel_source}' "
                                   "names no source", lines[t.name],
                                   "use the name of an entry of sources:")
        for t in targets:
            if t.kind == "shape":
                base = by_name.get(t.base)
                if base is None or base.kind not in ("real", "build"):
                    raise _SchemaError(f"shape target '{t.name}' has base '{t.base}', which is not a real target",
                                       lines[t.name], "set base: to the name of a real (or build) target")
    except _SchemaError as e:
        raise RetrofiError(e.what, where=f"{path}:{e.line}" if e.line else path, fix=e.fix)
    return Matrix(path=path, source=source, targets=tuple(targets), families=tuple(families),
                  sources=sources)


def _parse_sources(data):
    raw = data["sources"]
    if not isinstance(raw, list) or not raw:
        raise _SchemaError("sources must be a non-empty list", _line(data, "sources"),
                           "e.g. sources: [{name: \"6.12\", package: linux-source-6.12, "
                           "suites: [bookworm-security]}]")
    out, seen = [], set()
    for i, m in enumerate(raw):
        what = f"sources[{i}]"
        _check_keys(m, {"name", "package", "suites", "lts"}, ["name", "package", "suites"], what)
        name = _str(m, "name", what, NAME_RE)
        if name in seen:
            raise _SchemaError(f"duplicate source name '{name}'", _line(m, "name"),
                               "give every source a unique name")
        seen.add(name)
        lts = m.get("lts", False)
        if not isinstance(lts, bool):
            raise _SchemaError(f"source '{name}'.lts must be true or false", _line(m, "lts"),
                               "write lts: true")
        package = _str(m, "package", what, PKG_GLOB_RE)
        if "*" in package and not package.startswith("linux-source-"):
            raise _SchemaError(f"source '{name}'.package '{package}': a pattern must be "
                               "linux-source-*", _line(m, "package"), 'write package: "linux-source-*"')
        out.append(Source(package=package, suites=_suites(m, what), name=name, lts=lts))
    return tuple(out)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise RetrofiError("matrix file not found", where=path,
                           fix="run from the retrofi checkout or pass --matrix FILE")
    except OSError as e:
        raise RetrofiError(f"cannot read matrix file: {e.strerror}", where=path)
    return with_rows(parse(text, path), _lock_entries(path))
