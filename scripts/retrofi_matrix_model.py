"""kernel-matrix.yaml's typed model: the records retrofi_matrix.parse() makes
(Source, Target, Family, Matrix and their parts) and the schema's constants.
The file's schema and its loading live in retrofi_matrix, which re-exports
all of this."""

import dataclasses
import re

from retrofi_errors import RetrofiError
from retrofi_matrix_rows import lock_path

SCHEMA_VERSION = 1
DEFAULT_HEADERS = "linux-headers-{abi}-{flavour}"
DEFAULT_IMAGE = "linux-image-{abi}-{flavour}-unsigned"
DEFAULT_BOOT_TIMEOUT = 180
DEFAULT_EVENT_TIMEOUT = 20
SUITE_RE = re.compile(r"^[a-z][a-z0-9-]*$")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
VERSION_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")
PKG_GLOB_RE = re.compile(r"^[a-z0-9][a-z0-9.+*?-]*$")
KERNEL_ARGS_RE = re.compile(r"^[A-Za-z0-9_.,:=/+-]+( [A-Za-z0-9_.,:=/+-]+)*$")
SHAPES = "shapes"          # the selection of every shape target (TARGETS=shapes)
DEFAULT = "default"        # the selection of the default targets (as no TARGETS)
SWEEP = "sweep"            # the sweep's selection of the families' build-only rows
SWEEP_ALL = "sweep-all"    # every build-only row of every family
RT = "rt"                  # every booted row of an rt flavour (TARGETS=rt)
ALL = "all"                # every real row and every shape on one (TARGETS=all)
SELECTIONS = (SHAPES, DEFAULT, SWEEP, SWEEP_ALL, RT, ALL)
BUILD_ONLY = "build-only"  # the kind of a family's rows
FAMILY_ABI_RE = re.compile(r"^[a-z0-9*][a-z0-9.+*?-]*$")   # "*+deb13": every major
ROW_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+~-]*$")


def abi_glob_regex(glob):
    """An ABI glob as a regex: '*' stands for one dash-free part.

    "6.1.0-*" matches "6.1.0-57" but not the flavoured "6.1.0-57-cloud".
    """
    parts = [re.escape(p) for p in glob.split("*")]
    return re.compile("^" + "[^-/]+".join(parts) + "$")


@dataclasses.dataclass(frozen=True)
class AllowedSplat:
    match: str
    reason: str
    link: str = ""         # the upstream report of the splat


@dataclasses.dataclass(frozen=True)
class ExpectedSkip:
    test: str              # "name" or "parent/subtest"
    reason: str


@dataclasses.dataclass(frozen=True)
class Source:
    package: str
    suites: tuple
    name: str = ""         # "" only in the one-source form (source:)
    lts: bool = False

    @property
    def key(self):
        return f"source:{self.name}" if self.name else "source"

    @property
    def floating(self):
        """Whether the package is a pattern: the newest the suites serve."""
        return "*" in self.package


@dataclasses.dataclass(frozen=True)
class Target:
    name: str
    kind: str
    default: bool
    suites: tuple = ()
    abi: str = ""
    flavour: str = "amd64"
    headers: str = DEFAULT_HEADERS
    image: str = DEFAULT_IMAGE
    cc: str = ""
    toolchain: str = ""        # a retrofi_toolchain root to build in when this machine cannot
    base: str = ""
    api_level: str = ""
    config: str = ""           # kind: build: the config fragment's absolute path
    boot_timeout: int = DEFAULT_BOOT_TIMEOUT
    event_timeout: int = DEFAULT_EVENT_TIMEOUT
    kernel_args: str = ""
    allowed_splats: tuple = ()
    expected_skips: tuple = ()
    note: str = ""
    flavours: tuple = ()       # kind: family: the flavours it serves
    family: str = ""           # kind: build-only: the family the row is of
    version: str = ""          # kind: build-only: the pinned headers' version
    source: str = ""           # the source's name ("" = the matrix's selected source)
    kernel_source: str = ""    # kind: build: the source the kernel is built from ("" = source)

    @property
    def key(self):
        return f"target:{self.name}"

    @property
    def major(self):
        """A build-only row's kernel line ("6.1"), from its pinned version."""
        m = re.match(r"^(\d+)\.(\d+)", self.version)
        return f"{m.group(1)}.{m.group(2)}" if m else ""

    def headers_glob(self):
        return self.headers.format(abi=self.abi, flavour=self.flavour)

    def image_for(self, abi_name):
        return self.image.format(abi=abi_name, flavour=self.flavour)

    def headers_for(self, abi_name):
        return self.headers.format(abi=abi_name, flavour=self.flavour)

    def abi_from_headers(self, package):
        """The ABI name inside a headers package name, or None."""
        pre, _, post = self.headers.partition("{abi}")
        pre = pre.format(flavour=self.flavour)
        post = post.format(flavour=self.flavour)
        if not (package.startswith(pre) and package.endswith(post)):
            return None
        abi_name = package[len(pre):len(package) - len(post)]
        if not abi_glob_regex(self.abi).match(abi_name):
            return None
        return abi_name


@dataclasses.dataclass(frozen=True)
class Family:
    """Every served ABI and flavour of one kernel line (build-only rows)."""
    name: str
    suites: tuple
    abi: str
    flavours: tuple
    headers: str = DEFAULT_HEADERS
    cc: str = ""
    toolchain: str = ""
    note: str = ""
    source: str = ""           # the source's name ("" = the matrix's selected source)

    @property
    def key(self):
        return f"family:{self.name}"

    def target(self, flavour, abi="", version=""):
        """The row of one ABI and flavour (abi "": the family's glob)."""
        return Target(name=f"{abi}-{flavour}" if abi else self.name, kind=BUILD_ONLY,
                      default=False, suites=self.suites, abi=abi or self.abi,
                      flavour=flavour, headers=self.headers, image="", cc=self.cc,
                      toolchain=self.toolchain, source=self.source,
                      family=self.name, version=version)


@dataclasses.dataclass(frozen=True)
class Matrix:
    path: str
    source: Source             # the selected source (default_source, or SOURCE=)
    targets: tuple
    families: tuple = ()
    real_majors: tuple = ()    # the kernel lines the real targets pin ("6.1")
    sources: tuple = ()        # every source (empty: just `source`)

    def all_sources(self):
        return self.sources or (self.source,)

    def source_named(self, name):
        for s in self.all_sources():
            if name in (s.name, s.package):
                return s
        names = ", ".join(s.name or s.package for s in self.all_sources())
        raise RetrofiError(f"unknown source '{name}'", where=self.path,
                           fix=f"use one of: {names}")

    def with_source(self, name):
        """This matrix with another selected source (SOURCE=name)."""
        return dataclasses.replace(self, source=self.source_named(name)) if name else self

    def source_of(self, target):
        """The source whose output tree a target builds."""
        real = target
        if not target.source and target.kind == "shape":
            real = self.target(target.base)
        return self.source_named(real.source) if real.source else self.source

    def kernel_source_of(self, target):
        """The source a build target's kernel is built from: its
        kernel_source, else the source of the tree it builds."""
        if target.kind == "build" and target.kernel_source:
            return self.source_named(target.kernel_source)
        return self.source_of(target)

    def target(self, name):
        for t in self.targets:
            if t.name == name:
                return t
        names = ", ".join(t.name for t in self.targets)
        raise RetrofiError(f"unknown target '{name}'", where=self.path,
                           fix=f"use one of: {names}")

    def select(self, names=None):
        """The targets named (in matrix order), or the default ones.

        The name "shapes" stands for every shape target on a real base (a
        shape on a build target's kernel is named on its own), "default"
        for the default targets, "sweep-all" for every build-only row of
        the families, "sweep" for the sweep's share of them, "rt" for
        every booted (kind: real) row of an rt flavour and "all" for every
        real row and every shape on one (not the families' build-only rows,
        nor the debug rows, whose kernel is built here: name those)."""
        if not names:
            return [t for t in self.targets if t.default]
        wanted = []
        for n in names:
            if n == DEFAULT:
                group = [t for t in self.targets if t.default]
            elif n == SHAPES:
                group = self._shapes_on_real_targets()
                if not group:
                    raise RetrofiError("TARGETS=shapes, but the matrix has no shape target",
                                       where=self.path, fix="add targets with kind: shape")
            elif n == ALL:
                group = [t for t in self.targets if t.kind == "real"] \
                    + self._shapes_on_real_targets()
            elif n in (SWEEP, SWEEP_ALL):
                group = self.sweep(everything=n == SWEEP_ALL)
            elif n == RT:
                group = [t for t in self.targets if t.kind == "real"
                         and t.flavour.startswith("rt-")]
                if not group:
                    raise RetrofiError("TARGETS=rt, but the matrix has no real target of an rt flavour",
                                       where=self.path, fix="add a kind: real target with flavour: rt-amd64")
            else:
                group = [self.target(n)]
            wanted += [t for t in group if t not in wanted]
        return [t for t in self.targets if t in wanted]

    def _shapes_on_real_targets(self):
        return [t for t in self.targets if t.kind == "shape" and self.real_target(t).kind == "real"]

    def sweep(self, everything=False):
        """The families' build-only rows: all of them, or the sweep's share:
        the oldest and the newest ABI of every major (first flavour), and
        every flavour of the newest ABI of each major a real target pins
        and of the newest major."""
        rows = [t for t in self.targets if t.kind == BUILD_ONLY]
        if not self.families:
            raise RetrofiError("TARGETS=sweep needs families, but the matrix has none",
                               where=self.path, fix="add targets with kind: family")
        unresolved = [f.name for f in self.families if not any(t.family == f.name for t in rows)]
        if unresolved:
            raise RetrofiError(f"famil{'ies' if len(unresolved) > 1 else 'y'} "
                               f"{', '.join(unresolved)} not resolved in the lock file",
                               where=lock_path(self.path),
                               fix="run `make kernels-update` (it pins every served ABI and flavour)")
        if everything:
            return rows
        import retrofi_debversion
        by_major = {}
        for t in rows:
            by_major.setdefault(t.major, []).append(t)
        newest_major = max(by_major, key=retrofi_debversion.sort_key)
        wanted = []
        for major, group in by_major.items():
            first = sorted((t for t in group if t.flavour == self.family(t.family).flavours[0]),
                           key=lambda t: retrofi_debversion.sort_key(t.version))
            wanted += [first[0], first[-1]] if first else []
            newest = max(group, key=lambda t: retrofi_debversion.sort_key(t.version))
            if major == newest_major or major in self.real_majors:
                wanted += [t for t in group if t.abi == newest.abi and t.family == newest.family]
        return [t for t in rows if t in wanted]

    def family(self, name):
        for f in self.families:
            if f.name == name:
                return f
        raise RetrofiError(f"unknown family '{name}'", where=self.path)

    def ends(self):
        """The names of the oldest and the newest default real target of the
        selected source in the generic flavour, by the kernel line of its
        ABI pattern ("5.10.*" before "7.3.*"): the rows the default matrix
        builds every vendor driver for, and `make check`'s all-options
        ends."""
        lines = []
        for t in self.targets:
            m = re.match(r"^(\d+)\.(\d+)", t.abi)
            if t.kind == "real" and t.default and t.flavour == "amd64" and m \
                    and self.source_of(t) == self.source:
                lines.append(((int(m.group(1)), int(m.group(2))), t.name))
        if not lines:
            return frozenset()
        lines.sort()
        return frozenset((lines[0][1], lines[-1][1]))

    def real_target(self, target):
        """The target whose kernel a target runs on (itself or a shape's base):
        a real target, or a build target (a kernel built from the source)."""
        return self.target(target.base) if target.kind == "shape" else target

    def suites(self):
        seen = []
        for suites in [s.suites for s in self.all_sources()] + [t.suites for t in self.targets] + \
                [f.suites for f in self.families]:
            for s in suites:
                if s not in seen:
                    seen.append(s)
        return seen
