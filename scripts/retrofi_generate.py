"""The `generate` stage: source tree -> output tree.

One job: take an extracted linux-source tree, copy what drivers/copy-list
names, rewrite it with every rule in semantic-patches/ (in file-name order),
add the project's compat/ and include/ and the build glue under
drivers/out-tree/, and rename the result into out/<name>-<source version>/
only when all of it is done.

Records in, records out (the split follows kunit.py: parse -> run -> report):

    SourceTree     what the kernel-supply stage hands over
    CopyEntry      one line of drivers/copy-list (retrofi_copylist)
    Rule           one file of semantic-patches/ (retrofi_spatch)
    RuleReport     what one rule did (files, sites, cache hits)
    GenerateResult what generate() did
    RefreshResult  what refresh() found

Expected failures raise RetrofiError; the output directory is never left
half-written (the work happens in a temporary sibling directory that is
renamed into place, atomically swapped with the previous output).
"""

import contextlib
import errno
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import List, Optional

from retrofi_errors import RetrofiError
# The rules and the spatch runner (re-exported: callers and tests use them
# through this module).
from retrofi_spatch import (  # noqa: F401
    CACHE_FORMAT, DEFAULT_TIMEOUT, REPORT_OPTIONS, SPATCH, SPATCH_OPTIONS, _NO_CHANGE_MSG, Rule,
    SpatchCache, _apply_patch, _apply_rules_to_file, apply_rules, check_rule_syntax, count_sites,
    default_cache_dir, load_rules, parse_errors, run_spatch, spatch_version)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_JOBS = 2
DEFAULT_NAME = "retrofi"
# Files spatch is run on; everything else is copied verbatim.
REWRITE_SUFFIXES = (".c", ".h")
# Parse errors a rule's summary line lists (the rest are counted).
UNPARSED_SHOWN = 6


# ---------------------------------------------------------------- records


# The input record is the kernel stage's: an extracted Debian linux-source
# tree (package, version, path of the tree root, fixed mtime from the package).
from retrofi_kernels import SourceTree  # noqa: E402,F401
from retrofi_fs import dir_lock, swap_into_place  # noqa: E402
# dkms.conf (dkms_version re-exported for callers).
from retrofi_dkmsconf import dkms_conf, dkms_version  # noqa: E402,F401
# The copy list and the source's series (re-exported: callers and tests use
# them through this module).
from retrofi_copylist import (  # noqa: E402,F401
    OVERLAY_PREFIX, CopyEntry, copied_files, out_tree_overlays, parse_copy_list, parse_series,
    resolve_copy_list, series_text, source_series, target_headers, tree_series)


@dataclass
class RuleReport:
    name: str
    kind: str
    sha256: str
    must_match: bool
    not_needed: str = ""          # "X.Y" when the rule's not-needed-from
                                  # covers this source: matching nothing is
                                  # no error here
    needed_from: str = ""         # "X.Y" when the rule's needed-from is
                                  # newer than this source: the source lacks
                                  # the change the rule undoes
    files_changed: int = 0
    sites_changed: int = 0
    applied: bool = True          # patches: False if it did not apply
    problem: str = ""             # patches: why it did not apply
    # cocci: "path:line" of the C spatch could not parse in the files this
    # rule read (it looked for no match there and left it unchanged)
    unparsed: List[str] = field(default_factory=list)


@dataclass
class GenerateResult:
    out_path: str
    source: SourceTree
    file_count: int
    rules: List[RuleReport]
    spatch_version: str
    cache_hits: int
    cache_misses: int
    seconds: float
    # copy-list lines the source lacks (only when strict=False: refresh)
    copy_missing: List[str] = field(default_factory=list)

    @property
    def sites_changed(self):
        return sum(r.sites_changed for r in self.rules)

    @property
    def rules_applied(self):
        return sum(1 for r in self.rules if r.sites_changed)

    def summary(self):
        lines = []
        for r in self.rules:
            lines.append(f"rule {r.name}: {r.files_changed} files, "
                         f"{r.sites_changed} sites"
                         + (f" (not needed from {r.not_needed})" if r.not_needed else
                            f" (needed from {r.needed_from} only)" if r.needed_from else
                            "" if r.must_match else " (must-match: no)"))
            if r.unparsed:
                shown = ", ".join(r.unparsed[:UNPARSED_SHOWN])
                more = len(r.unparsed) - UNPARSED_SHOWN
                lines.append(f"  {len(r.unparsed)} parse error(s) in the files it read, "
                             f"where it matched nothing: {shown}"
                             + (f" and {more} more" if more > 0 else ""))
        lines.append(
            f"generated {self.out_path}: {self.file_count} files, "
            f"{self.rules_applied}/{len(self.rules)} rules applied, "
            f"{self.sites_changed} sites changed, "
            f"spatch cache {self.cache_hits} hits/{self.cache_misses} runs, "
            f"{self.seconds:.1f}s")
        return "\n".join(lines)


@dataclass
class RefreshResult:
    source: SourceTree
    rules: List[RuleReport]
    stale: List[str] = field(default_factory=list)   # must apply, did not
    unused: List[str] = field(default_factory=list)  # must-match: no, 0 sites
    # declared not needed from this source on, and matching nothing
    not_needed: List[str] = field(default_factory=list)
    # declared needed only from a newer source on, and matching nothing
    not_yet_needed: List[str] = field(default_factory=list)
    # headers the copied files include that the copy list does not copy
    headers: List[str] = field(default_factory=list)
    # Kbuild object lists that differ from the source's own Makefiles
    kbuild: List[str] = field(default_factory=list)

    @property
    def ok(self):
        return not (self.stale or self.headers or self.kbuild)

    def summary(self):
        lines = []
        for name in self.stale:
            lines.append(f"no longer applies: {name}")
        for h in self.headers:
            lines.append(f"header not copied: {h}")
        for k in self.kbuild:
            lines.append(f"kbuild drift: {k}")
        for name in self.unused:
            lines.append(f"matched nothing (must-match: no, not an error): "
                         f"{name}")
        for name in self.not_needed:
            lines.append(f"matched nothing (declared not needed from this "
                         f"source, not an error): {name}")
        for name in self.not_yet_needed:
            lines.append(f"matched nothing (declared needed only from a newer "
                         f"source, not an error): {name}")
        problems = []
        if self.stale:
            problems.append(f"{len(self.stale)} copy-list line(s), rule(s) "
                            f"or patch(es) no longer apply")
        if self.headers:
            problems.append(f"{len(self.headers)} included header(s) not "
                            f"copied")
        if self.kbuild:
            problems.append(f"{len(self.kbuild)} Kbuild object list(s) "
                            f"differ from the source's Makefiles")
        lines.append(f"refresh against {self.source.package} "
                     f"{self.source.version}: "
                     + ("all rules and patches apply, no drift" if self.ok
                        else "; ".join(problems)))
        return "\n".join(lines)


# --------------------------------------------------------------- the stage


def _write_file(path, data, mtime):
    """Write one output file (the single place output bytes are written)."""
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, (mtime, mtime))


# What an output tree is made of, besides the source kernel: the project
# version names the newest commit that changed one of these, so that a
# commit anywhere else (tests, documentation, the matrix, the other stages)
# leaves every output byte, and with it every build key, as it was.
TREE_INPUTS = ("compat", "include", "drivers", "semantic-patches",
               "scripts/retrofi_generate.py", "scripts/retrofi_spatch.py",
               "scripts/retrofi_copylist.py", "scripts/retrofi_dkmsconf.py")


# Files of compat/ that check the compat layer from the repository and
# build nothing: the served-ABI bounds (retrofi_bounds: its markers and
# the measured table). The output tree does not carry them.
REPOSITORY_ONLY = ("compat/bounds.list", "compat/api-bounds.txt")


def _git(repo, *argv):
    try:
        p = subprocess.run(["git", "-C", repo, *argv], capture_output=True,
                           text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p


def project_version(repo=REPO):
    """`git describe` of the newest commit that changed a TREE_INPUTS path,
    "-dirty" when one of them has uncommitted changes; "unknown" outside
    git."""
    p = _git(repo, "log", "-1", "--format=%H", "--", *TREE_INPUTS)
    if p is None or p.returncode != 0 or not p.stdout.strip():
        return "unknown"
    d = _git(repo, "describe", "--always", "--abbrev=12", p.stdout.strip())
    if d is None or d.returncode != 0 or not d.stdout.strip():
        return "unknown"
    dirty = _git(repo, "status", "--porcelain", "--untracked-files=normal", "--",
                 *TREE_INPUTS)
    return d.stdout.strip() + ("-dirty" if dirty is not None and dirty.stdout.strip()
                               else "")


def _tree_files(root):
    """Relative paths of the regular files under root, sorted."""
    out = []
    if not os.path.isdir(root):
        return out
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for n in sorted(files):
            full = os.path.join(d, n)
            if os.path.isfile(full) and not n.endswith((".pyc", "~")):
                out.append(os.path.relpath(full, root))
    return out


def _check_source(source):
    if not os.path.isdir(source.path) or not os.path.isfile(
            os.path.join(source.path, "Makefile")):
        raise RetrofiError(
            f"source tree of {source.package} {source.version} is missing",
            where=source.path,
            fix="fetch and unpack it first (make kernels), or point "
                "SOURCE at an extracted linux-source tree")


def _os_error(e, where):
    if e.errno == errno.ENOSPC:
        return RetrofiError("no space left on device while writing the "
                            "output tree; previous output left intact",
                            where=where, fix="free disk space and re-run")
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return RetrofiError(f"output directory is not writable "
                            f"({e.strerror}); previous output left intact",
                            where=where,
                            fix="choose a writable OUT= directory or fix "
                                "its permissions")
    return RetrofiError(f"{e.strerror or e} while writing the output tree; "
                        "previous output left intact",
                        where=getattr(e, "filename", None) or where)


def _clean_stale(out_dir):
    """Remove temporary directories left by killed runs (dead pid)."""
    try:
        names = os.listdir(out_dir)
    except OSError:
        return
    for n in names:
        m = re.match(r"^\.tmp-.*-pid(\d+)-", n)
        if not m:
            continue
        try:
            os.kill(int(m.group(1)), 0)
            continue  # still running
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        shutil.rmtree(os.path.join(out_dir, n), ignore_errors=True)


def output_name(source, name=DEFAULT_NAME):
    return f"{name}-{source.version}"


@contextlib.contextmanager
def _work_dir(parent):
    work = tempfile.mkdtemp(prefix=f".tmp-spatch-pid{os.getpid()}-", dir=parent)
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _build(source, tree, rules, *, repo, cache, jobs, timeout, spatch,
           copy_missing=None):
    """Fill the (empty) directory tree; return (file count, reports)."""
    series = source_series(source)
    files = copied_files(source, repo, copy_missing)
    reports = [RuleReport(r.name, r.kind, r.sha256, r.must_match,
                          r.not_needed_from if r.not_needed_from and
                          series >= parse_series(r.not_needed_from, r.path)
                          else "",
                          r.needed_from if r.needed_from and
                          series < parse_series(r.needed_from, r.path)
                          else "")
               for r in rules]
    mtime = source.mtime

    # 1. copy + rewrite the source files: per cocci rule, one spatch run
    # (jobs processes) over the files whose result is not cached.  spatch
    # works beside the tree, under a name _clean_stale recognises, so that
    # a killed run leaves nothing behind for long.
    contents = []
    for rel in files:
        with open(os.path.join(source.path, rel), "rb") as f:
            contents.append((rel, f.read()))
    with _work_dir(os.path.dirname(tree)) as work:
        rewritten, changes, unparsed = apply_rules(
            [(rel, c) for rel, c in contents if rel.endswith(REWRITE_SUFFIXES)],
            rules, cache, timeout, work, spatch, jobs)
    for rel, content in contents:
        dst = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        _write_file(dst, rewritten.get(rel, content), mtime)
        for i, sites in changes.get(rel, ()):
            reports[i].files_changed += 1
            reports[i].sites_changed += sites
        for i, lines in unparsed.get(rel, ()):
            reports[i].unparsed += [f"{rel}:{n}" for n in lines]

    # 2. plain patches, in order, on the copied tree.  A patch needed only
    # from a newer series than the source's may find nothing to patch (the
    # files it names may not be copied from this source): as for a rule
    # that matches nothing there, no error (_apply_patch tries a dry run
    # first, so nothing was changed); one that applies is reported stale.
    for rule, rep in zip(rules, reports):
        if rule.kind == "patch":
            _apply_patch(rule, tree, rep)
            if rep.needed_from and not rep.applied:
                rep.applied, rep.problem = True, ""

    # 3. the project's own parts: compat/, include/, build glue (the
    # source's overlays of drivers/out-tree-since-X.Y/ replace files of
    # drivers/out-tree/, the newest applicable overlay last).
    owned = {}
    glue = {}
    for sub in [os.path.join("drivers", "out-tree")] + [
            os.path.join("drivers", OVERLAY_PREFIX + series_text(v))
            for v in out_tree_overlays(repo) if v <= series]:
        root = os.path.join(repo, sub)
        for rel in _tree_files(root):
            glue[rel] = (sub, root)
    parts = []
    for sub, prefix in (("compat", "compat"), ("include", "include")):
        root = os.path.join(repo, sub)
        parts += [(sub, root, rel, os.path.join(prefix, rel))
                  for rel in _tree_files(root)]
    parts += [(sub, root, rel, rel) for rel, (sub, root) in sorted(glue.items())]
    for sub, root, rel, out_rel in parts:
        if os.path.basename(rel) in (".gitkeep", ".keep") or out_rel in REPOSITORY_ONLY:
            continue
        if out_rel in owned or os.path.exists(os.path.join(tree, out_rel)):
            raise RetrofiError(
                f"{out_rel} would be written twice (from {sub}/ and "
                f"{owned.get(out_rel, 'the copy list')})",
                where=os.path.join(root, rel),
                fix="rename one of them; the output tree must have one "
                    "owner per path")
        owned[out_rel] = sub
        dst = os.path.join(tree, out_rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(os.path.join(root, rel), "rb") as f:
            _write_file(dst, f.read(), mtime)
        if os.access(os.path.join(root, rel), os.X_OK):
            os.chmod(dst, 0o755)
    return reports


def _write_versions(tree, source, rules, reports, spatch_ver, repo):
    lines = [
        "# retrofi output tree: what it was generated from",
        f"source-package: {source.package}",
        f"source-version: {source.version}",
        f"project-version: {project_version(repo)}",
        f"spatch-version: {spatch_ver}",
        f"spatch-options: {' '.join(SPATCH_OPTIONS)}",
    ]
    for r, rep in zip(rules, reports):
        lines.append(f"rule: {r.name}.{r.kind} sha256={r.sha256} "
                     f"must-match={'yes' if r.must_match else 'no'} "
                     + (f"not-needed-from={rep.not_needed} " if rep.not_needed else "")
                     + (f"needed-from={rep.needed_from} " if rep.needed_from else "")
                     + f"files={rep.files_changed} sites={rep.sites_changed}")
    _write_file(os.path.join(tree, "versions"),
                ("\n".join(lines) + "\n").encode(), source.mtime)
    # compat.ko names both in the line it prints when it loads.
    if os.path.isdir(os.path.join(tree, "compat")):
        header = ("/* Generated by retrofi: do not edit. */\n"
                  f"#define RETROFI_PROJECT_VERSION \"{_c_string(project_version(repo))}\"\n"
                  f"#define RETROFI_SOURCE_KERNEL \"{_c_string(source.package)} "
                  f"{_c_string(source.version)}\"\n")
        _write_file(os.path.join(tree, "compat", "retrofi-version.h"), header.encode(),
                    source.mtime)
    _write_dkms_conf(tree, source, DEFAULT_NAME)


def _write_dkms_conf(tree, source, name):
    _write_file(os.path.join(tree, "dkms.conf"), dkms_conf(source, name), source.mtime)


def _c_string(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _fix_dir_mtimes(tree, mtime):
    for d, dirs, _ in os.walk(tree, topdown=False):
        os.utime(d, (mtime, mtime))


def generate(source: SourceTree, out_dir: str, *, name: str = DEFAULT_NAME,
             repo: str = REPO, cache_dir: Optional[str] = None,
             jobs: int = DEFAULT_JOBS, timeout: int = DEFAULT_TIMEOUT,
             spatch: Optional[str] = None,
             strict: bool = True) -> GenerateResult:
    """Write out_dir/<name>-<source.version>/ from source; see module doc.

    Raises RetrofiError (and leaves any previous output untouched) on a
    missing source, a bad copy list or rule, a spatch failure or timeout,
    an unwritable or full output directory, or (strict) a patch that does
    not apply or a must-match rule that matched nothing. With strict=False
    those two are only recorded in the result (refresh uses this)."""
    t0 = time.monotonic()
    _check_source(source)
    rules = load_rules(os.path.join(repo, "semantic-patches"))
    sv = spatch_version(spatch)
    cache = SpatchCache(cache_dir or default_cache_dir(), sv, SPATCH_OPTIONS)

    out_dir = os.path.abspath(out_dir)
    final = os.path.join(out_dir, output_name(source, name))
    try:
        os.makedirs(out_dir, exist_ok=True)
        _clean_stale(out_dir)
        tree = tempfile.mkdtemp(
            prefix=f".tmp-{output_name(source, name)}-pid{os.getpid()}-",
            dir=out_dir)
    except OSError as e:
        raise _os_error(e, out_dir)
    old = None
    try:
        try:
            copy_missing = None if strict else []
            reports = _build(source, tree, rules, repo=repo, cache=cache,
                             jobs=jobs, timeout=timeout, spatch=spatch,
                             copy_missing=copy_missing)
            bad = [r for r in reports if r.kind == "patch" and not r.applied]
            if bad and strict:
                raise RetrofiError(
                    f"patch {bad[0].name} does not apply:\n{bad[0].problem}",
                    where=os.path.join(repo, "semantic-patches",
                                       bad[0].name + ".patch"),
                    fix="refresh the patch against this source")
            if strict:
                dead = [r.name for r in reports
                        if r.must_match and not r.not_needed and not r.needed_from
                        and r.sites_changed == 0]
                if dead:
                    raise RetrofiError(
                        "rule(s) declared must-match: yes matched nothing: "
                        + ", ".join(dead),
                        where=f"{source.package} {source.version}",
                        fix="the upstream code changed: update or retire "
                            "the rule (make refresh SOURCE=... lists all)")
            _write_versions(tree, source, rules, reports, sv, repo)
            count = len(_tree_files(tree))
            _fix_dir_mtimes(tree, source.mtime)
            os.chmod(tree, 0o755)
            # Readers of the previous tree (a build copying it, a release
            # packing it) hold a shared lock on out_dir.
            with dir_lock(out_dir, shared=False):
                old = swap_into_place(tree, final)
            tree = None
        except OSError as e:
            raise _os_error(e, out_dir)
    finally:
        if tree and os.path.exists(tree):
            shutil.rmtree(tree, ignore_errors=True)
        if old and os.path.exists(old):
            shutil.rmtree(old, ignore_errors=True)
    return GenerateResult(final, source, count, reports, sv, cache.hits,
                          cache.misses, time.monotonic() - t0,
                          copy_missing or [])


def refresh(source: SourceTree, *, repo: str = REPO,
            cache_dir: Optional[str] = None, jobs: int = DEFAULT_JOBS,
            timeout: int = DEFAULT_TIMEOUT,
            spatch: Optional[str] = None,
            baseline: Optional[SourceTree] = None) -> RefreshResult:
    """Generate against another source into a scratch directory (removed
    afterwards) and report what no longer fits it: a must-match rule that
    matched nothing (unless declared not needed from this source on, or
    needed only from a newer one), a rule declared not needed (or not yet
    needed) that still changes code, a patch that fails, a
    copy-list path the source lacks, a header the copied files include that
    the copy list does not copy (new against baseline, the matrix's
    default source), and a Kbuild object list that differs from the
    source's own Makefile."""
    import retrofi_drift
    out = None
    with tempfile.TemporaryDirectory(prefix="retrofi-refresh-") as scratch:
        res = generate(source, scratch, repo=repo, cache_dir=cache_dir,
                       jobs=jobs, timeout=timeout, spatch=spatch,
                       strict=False)
        out = RefreshResult(source, res.rules)
        out.kbuild = retrofi_drift.kbuild_drift(res.out_path, source.path)
    copied = copied_files(source, repo, [])
    base = None
    if baseline is not None and baseline.path != source.path:
        base = (baseline.path, copied_files(baseline, repo, []))
    out.headers = retrofi_drift.included_headers(
        source.path, copied, os.path.join(repo, "include"), base,
        target_headers(source, repo))
    out.stale.extend(f"copy list: {m}" for m in res.copy_missing)
    for r in res.rules:
        if r.kind == "patch" and not r.applied:
            first = (r.problem.splitlines() or ["does not apply"])[0]
            out.stale.append(f"{r.name}.patch ({first})")
        elif r.not_needed and r.sites_changed:
            out.stale.append(f"{r.name}.{r.kind} (declared not needed from "
                             f"{r.not_needed}, yet it changes {r.sites_changed} "
                             f"site(s) in {r.files_changed} file(s))")
        elif r.needed_from and r.sites_changed:
            out.stale.append(f"{r.name}.{r.kind} (declared needed from "
                             f"{r.needed_from} only, yet it changes {r.sites_changed} "
                             f"site(s) in {r.files_changed} file(s))")
        elif r.sites_changed == 0:
            (out.not_needed if r.not_needed else
             out.not_yet_needed if r.needed_from else
             out.stale if r.must_match else out.unused).append(f"{r.name}.{r.kind}")
    return out
