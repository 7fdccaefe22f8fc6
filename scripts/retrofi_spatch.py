"""Semantic patches: reading the rules in semantic-patches/ and running
them with spatch (per rule, one spatch process over every file whose result
is not cached, each file a group of its own; on private copies in a work
directory, never on the tree), with a content-addressed cache of results
per rule and file.

    Rule         one file of semantic-patches/ with its parsed header
    SpatchCache  (rule, input content, spatch version + options) -> output
                 and the lines of that content spatch could not parse

Used by the generate stage (retrofi_generate); a failure is a RetrofiError
naming the rule and the file.
"""

import concurrent.futures
import contextlib
import difflib
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass

from retrofi_copylist import parse_series
from retrofi_errors import RetrofiError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPATCH = os.environ.get("RETROFI_SPATCH", "/usr/bin/spatch")
# Options passed to every spatch run; part of the cache key.
# --no-includes: rules only need the file itself (no type inference through
# headers), which keeps each run independent of the rest of the tree and
# makes a (rule, file) result a pure function of the two contents.
SPATCH_OPTIONS = ("--no-includes", "--no-show-diff")
# What every run prints (also in the cache key: the parse errors are cached
# with the result). spatch leaves C it cannot parse out of the match,
# unchanged, and still exits 0; these make it say so, one located
# ' = File "<path>", line N, column C' line per error (parse_errors()).
REPORT_OPTIONS = ("--quiet", "--parse-error-msg", "--verbose-parsing")
DEFAULT_TIMEOUT = 120
CACHE_FORMAT = "2"


@dataclass(frozen=True)
class Rule:
    name: str          # file name without suffix: "0001-timer-shutdown"
    path: str
    kind: str          # "cocci" or "patch"
    sha256: str
    must_match: bool
    upstream: str
    targets: str
    # "X.Y": sources of series X.Y and newer already have the change the
    # rule undoes (upstream made it), so matching nothing there is no error
    not_needed_from: str = ""
    # "X.Y": only sources of series X.Y and newer have the change the rule
    # undoes (upstream made it then), so before X.Y matching nothing is no
    # error
    needed_from: str = ""



# ------------------------------------------------------------------ rules

_HEADER_RE = re.compile(r"^\s*(?://|#)?\s*([a-z-]+):\s*(.*?)\s*$")
_RULE_NAME_RE = re.compile(r"^[0-9]{4}-[a-z0-9][a-z0-9-]*\.(cocci|patch)$")


def _header_fields(text):
    """Key: value lines of the rule's leading comment block."""
    fields = {}
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if not (s.startswith("//") or s.startswith("#")
                or s.startswith("///")):
            break
        m = _HEADER_RE.match(s)
        if m and m.group(1) not in fields:
            fields[m.group(1)] = m.group(2)
    return fields


def load_rules(rules_dir):
    """Read semantic-patches/NNNN-topic.{cocci,patch} in apply order.

    Apply order is the file name order (the number first); each rule's
    header must declare must-match, upstream and targets; a plain patch must
    also say why SmPL cannot express it (smpl-cannot:)."""
    if not os.path.isdir(rules_dir):
        raise RetrofiError("semantic-patches directory missing",
                           where=rules_dir)
    rules = []
    for name in sorted(os.listdir(rules_dir)):
        path = os.path.join(rules_dir, name)
        if name.startswith(".") or name.endswith("~") or name == "README":
            continue
        if not _RULE_NAME_RE.match(name):
            raise RetrofiError(f"rule file name {name!r} is not "
                               "NNNN-topic.cocci or NNNN-topic.patch",
                               where=path, fix="rename it")
        with open(path, "rb") as f:
            data = f.read()
        text = data.decode("utf-8", "replace")
        fields = _header_fields(text)
        kind = "cocci" if name.endswith(".cocci") else "patch"
        need = ["must-match", "upstream", "targets"]
        if kind == "patch":
            need.append("smpl-cannot")
        lacking = [k for k in need if not fields.get(k)]
        if lacking:
            raise RetrofiError(
                "rule header lacks " + ", ".join(f"'{k}:'" for k in lacking),
                where=path,
                fix="add the header lines (see semantic-patches/README)")
        mm = fields["must-match"].lower()
        if mm not in ("yes", "no"):
            raise RetrofiError(f"must-match must be yes or no, not {mm!r}",
                               where=path)
        nnf = fields.get("not-needed-from", "")
        if nnf and not re.match(r"^\d+\.\d+$", nnf):
            raise RetrofiError(f"not-needed-from must be a kernel series like 7.3, "
                               f"not {nnf!r}", where=path)
        nf = fields.get("needed-from", "")
        if nf and not re.match(r"^\d+\.\d+$", nf):
            raise RetrofiError(f"needed-from must be a kernel series like 7.3, "
                               f"not {nf!r}", where=path)
        if nf and nnf and parse_series(nf, path) >= parse_series(nnf, path):
            raise RetrofiError(f"needed-from {nf} is not older than not-needed-from "
                               f"{nnf}: no source would need the rule", where=path,
                               fix="fix one of the two header lines")
        rules.append(Rule(name.rsplit(".", 1)[0], path, kind,
                          hashlib.sha256(data).hexdigest(), mm == "yes",
                          fields["upstream"], fields["targets"], nnf, nf))
    names = [r.name.split("-", 1)[0] for r in rules]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise RetrofiError(f"two rules share the number {dups[0]}",
                           where=rules_dir, fix="renumber one of them")
    return rules


_spatch_version_cache = {}


def spatch_version(spatch=None):
    spatch = spatch or SPATCH
    if spatch in _spatch_version_cache:
        return _spatch_version_cache[spatch]
    try:
        out = subprocess.run([spatch, "--version"], capture_output=True,
                             text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RetrofiError(f"cannot run spatch: {e}", where=spatch,
                           fix="apt-get install coccinelle")
    m = re.search(r"spatch version (\S+)", out)
    if not m:
        raise RetrofiError("cannot read the spatch version", where=spatch)
    _spatch_version_cache[spatch] = m.group(1)
    return m.group(1)


# What REPORT_OPTIONS make spatch print besides its errors: progress, the
# files it skips, its per-token parse warnings and the parse error reports
# (read by parse_errors()).
_INFO_PREFIXES = ("Warning: PARSING", "init_defs", "HANDLING:", "Skipping:",
                  "(ONCE) Expected tokens", "ERROR-RECOV:", "parsing pass",
                  "parse error", " = File ", " = error in ", "  around = ",
                  "  whole content = ", "badcount:", "bad:", "BAD:!!!!!")


def _spatch_messages(stderr, default="(spatch printed nothing)"):
    """spatch's own message, without what it prints on every run."""
    keep = [l for l in stderr.splitlines()
            if l.strip() and not l.startswith(_INFO_PREFIXES)]
    return "\n".join(keep[-20:]) or default


_PARSE_ERROR_AT = re.compile(r'^ = File "(.+)", line (\d+), column \d+', re.M)


def parse_errors(output):
    """{path as spatch was given it: sorted line numbers} of the parse
    errors a run with REPORT_OPTIONS printed (spatch skipped that code)."""
    out = {}
    for m in _PARSE_ERROR_AT.finditer(output):
        out.setdefault(m.group(1), set()).add(int(m.group(2)))
    return {path: sorted(lines) for path, lines in out.items()}


def check_rule_syntax(rule, spatch=None, timeout=DEFAULT_TIMEOUT):
    """Parse a rule with spatch; raise with spatch's message if it fails."""
    if rule.kind != "cocci":
        return
    try:
        p = subprocess.run([spatch or SPATCH, "--parse-cocci", rule.path],
                           capture_output=True, text=True, timeout=timeout,
                           cwd=os.path.dirname(rule.path))
    except subprocess.TimeoutExpired:
        raise RetrofiError(f"spatch took over {timeout}s to parse the rule",
                           where=rule.path)
    if p.returncode != 0:
        raise RetrofiError("semantic patch does not parse:\n"
                           + _spatch_messages(p.stderr + p.stdout),
                           where=rule.path, fix="fix the rule's SmPL syntax")


# ------------------------------------------------------------------ cache


def default_cache_dir():
    return os.environ.get("RETROFI_CACHE") or os.path.join(REPO, ".cache")


class SpatchCache:
    """(rule content, input content, spatch version + options) -> output
    and parse errors.

    One file per key under <cache>/spatch/xx/<key>: "=" for unchanged,
    "+" followed by the output content otherwise; beside it, under
    <cache>/spatch-meta, <key>.parse: the input's lines spatch could not
    parse (written first). Written atomically; an unreadable or corrupt
    entry, or one without its .parse, counts as a miss."""

    def __init__(self, root, spatch_ver, options):
        self.root = os.path.join(root, "spatch")
        self.meta = os.path.join(root, "spatch-meta")
        self.options = tuple(options)
        self.salt = "\0".join([CACHE_FORMAT, spatch_ver, *options,
                               *REPORT_OPTIONS]).encode()
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()

    def key(self, rule_sha, content):
        h = hashlib.sha256(self.salt)
        h.update(b"\0" + rule_sha.encode() + b"\0")
        h.update(content)
        return h.hexdigest()

    def _path(self, key):
        return os.path.join(self.root, key[:2], key)

    def _parse_path(self, key):
        return os.path.join(self.meta, key[:2], key + ".parse")

    def get(self, key):
        """(changed, output or None, [unparsed line]) or None (a miss)."""
        try:
            with open(self._path(key), "rb") as f:
                data = f.read()
            with open(self._parse_path(key)) as f:
                unparsed = [int(n) for n in f.read().split()]
        except (OSError, ValueError):
            return None
        if data[:1] == b"=" and len(data) == 1:
            return (False, None, unparsed)
        if data[:1] == b"+":
            return (True, data[1:], unparsed)
        return None

    def put(self, key, changed, output, unparsed=()):
        self._store(self._parse_path(key),
                    "".join(f"{n}\n" for n in unparsed).encode())
        path = self._path(key)
        tmp = None
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
            with os.fdopen(fd, "wb") as f:
                f.write(b"+" + output if changed else b"=")
            os.replace(tmp, path)
        except OSError:
            # The cache is an optimisation: failing to store is not fatal.
            if tmp:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)

    # Beside the results (under <cache>/spatch-meta): the changed-site
    # count of a changed result (a diff of two whole files), computed once.
    def sites(self, key, before, after):
        path = os.path.join(self.meta, key[:2], key + ".sites")
        try:
            with open(path) as f:
                return int(f.read())
        except (OSError, ValueError):
            pass
        n = count_sites(before, after)
        self._store(path, str(n).encode())
        return n

    def _store(self, path, data):
        tmp = None
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except OSError:
            if tmp:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)

    def count(self, hit):
        with self._lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1


def count_sites(before, after):
    """Changed sites = hunks of a zero-context diff of the two texts.

    The lines both texts begin and end with are left out of the diff
    (difflib's matcher is slow on whole kernel files: its time grows with
    the lines that repeat, such as blank lines and braces)."""
    a = before.decode("utf-8", "replace").splitlines()
    b = after.decode("utf-8", "replace").splitlines()
    lo = 0
    while lo < len(a) and lo < len(b) and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < len(a) - lo and hi < len(b) - lo and a[-1 - hi] == b[-1 - hi]:
        hi += 1
    a, b = a[lo:len(a) - hi], b[lo:len(b) - hi]
    return sum(1 for op in difflib.SequenceMatcher(None, a, b,
                                                   autojunk=False).get_opcodes()
               if op[0] != "equal")


_NO_CHANGE_MSG = "-o can not be applied because there are no modified files"


def run_spatch(rule, content, relpath, workdir, timeout, spatch=None,
               options=None):
    """Apply one rule to one file's content; return (changed, output,
    [line of content spatch could not parse]).

    spatch writes into workdir (a private temp directory), never in place."""
    src = os.path.join(workdir, "in", relpath)
    dst = os.path.join(workdir, "out", relpath)
    os.makedirs(os.path.dirname(src), exist_ok=True)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(src, "wb") as f:
        f.write(content)
    if os.path.exists(dst):
        os.unlink(dst)
    options = SPATCH_OPTIONS if options is None else options
    cmd = [spatch or SPATCH, "--sp-file", rule.path, *options,
           *REPORT_OPTIONS, src, "-o", dst]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout, cwd=workdir)
    except subprocess.TimeoutExpired:
        raise RetrofiError(
            f"spatch timed out after {timeout}s applying {rule.name}",
            where=f"{relpath} ({rule.path})",
            fix="simplify the rule, or raise the per-file timeout "
                "(RETROFI_SPATCH_TIMEOUT / --timeout)")
    except OSError as e:
        raise RetrofiError(f"cannot run spatch: {e.strerror}",
                           where=spatch or SPATCH,
                           fix="apt-get install coccinelle")
    said = p.stderr + p.stdout
    unparsed = parse_errors(said).get(src, [])
    if (p.returncode != 0 and not os.path.exists(dst)
            and _NO_CHANGE_MSG in said
            and not _spatch_messages(said.replace(_NO_CHANGE_MSG, ""),
                                     default="")):
        # spatch 1.1.1 exits 255 when -o is given and nothing changed.
        return (False, None, unparsed)
    if p.returncode != 0:
        raise RetrofiError(
            f"spatch failed (exit {p.returncode}) applying {rule.name}:\n"
            + _spatch_messages(p.stderr + p.stdout),
            where=f"{relpath} ({rule.path})",
            fix="fix the rule, or exclude the file")
    if not os.path.exists(dst):
        return (False, None, unparsed)
    with open(dst, "rb") as f:
        out = f.read()
    if out == content:
        return (False, None, unparsed)
    return (True, out, unparsed)


def _batch_timeout(timeout, n, jobs):
    """A batch of n files on jobs processes may take what n per-file runs,
    each within the per-file timeout, would."""
    return timeout * max(1, -(-n // max(1, jobs)))


def run_spatch_batch(rule, items, workdir, timeout, spatch=None, options=None,
                     jobs=1):
    """Apply one rule to many files' contents in one spatch process (its
    own --jobs workers); return {relpath: (changed, output, unparsed lines)}.

    Each file is a group of its own (--file-groups), so it is rewritten
    exactly as a run on that file alone would rewrite it.  spatch works on
    private copies under workdir (--in-place there, never on the tree).
    A single file, or a batch that fails or times out, is run file by file
    (run_spatch), so that an error names the file that caused it."""
    options = SPATCH_OPTIONS if options is None else tuple(options)
    if len(items) == 1:
        rel, content = items[0]
        return {rel: run_spatch(rule, content, rel, workdir, timeout, spatch,
                                options)}
    root = os.path.join(workdir, "batch")
    shutil.rmtree(root, ignore_errors=True)
    paths = []
    for rel, content in items:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content)
        paths.append(path)
    groups = os.path.join(workdir, "groups")
    with open(groups, "w") as f:
        f.write("\n\n".join(paths) + "\n")
    cmd = [spatch or SPATCH, "--sp-file", rule.path, *options, *REPORT_OPTIONS, "--in-place",
           "--jobs", str(max(1, jobs)), "--file-groups", groups]
    unparsed = {}
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir,
                           timeout=_batch_timeout(timeout, len(items), jobs))
        failed = p.returncode != 0
        unparsed = parse_errors(p.stderr + p.stdout)
    except subprocess.TimeoutExpired:
        failed = True
    except OSError as e:
        raise RetrofiError(f"cannot run spatch: {e.strerror}",
                           where=spatch or SPATCH,
                           fix="apt-get install coccinelle")
    if failed:
        return _run_one_by_one(rule, items, workdir, timeout, spatch, options,
                               jobs)
    out = {}
    for (rel, content), path in zip(items, paths):
        with open(path, "rb") as f:
            data = f.read()
        lines = unparsed.get(path, [])
        out[rel] = (False, None, lines) if data == content else (True, data, lines)
    shutil.rmtree(root, ignore_errors=True)
    return out


def _run_one_by_one(rule, items, workdir, timeout, spatch, options, jobs):
    """run_spatch per file, jobs at a time; the first failure (in file
    order) is raised."""
    def one(idx_item):
        idx, (rel, content) = idx_item
        return rel, run_spatch(rule, content, rel,
                               os.path.join(workdir, f"one-{idx}"), timeout,
                               spatch, options)
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        return dict(pool.map(one, enumerate(items)))


def apply_rules(files, rules, cache, timeout, workdir, spatch=None, jobs=1):
    """Run every cocci rule, in order, over many files: per rule, the files
    whose (rule, content) result the cache lacks go to one spatch process
    (run_spatch_batch), and each result is stored per file.

    files: [(relpath, content)].  A rule is parsed on its own (for spatch's
    message) only when its run fails.  Returns ({relpath: final content},
    {relpath: [(rule index, sites)]}, {relpath: [(rule index, [line spatch
    could not parse in what that rule read])]})."""
    contents = dict(files)
    changes = {rel: [] for rel in contents}
    unparsed = {rel: [] for rel in contents}
    for i, rule in enumerate(rules):
        if rule.kind != "cocci":
            continue
        results, todo = {}, []
        for rel, content in contents.items():
            key = cache.key(rule.sha256, content)
            got = cache.get(key)
            cache.count(got is not None)
            if got is None:
                todo.append((rel, key))
            else:
                results[rel] = got
        if todo:
            try:
                ran = run_spatch_batch(rule, [(rel, contents[rel]) for rel, _ in todo],
                                       os.path.join(workdir, f"rule-{i}"), timeout,
                                       spatch, cache.options, jobs)
            except RetrofiError:
                # A rule that does not parse says so, not "failed on file X".
                check_rule_syntax(rule, spatch, timeout)
                raise
            for rel, key in todo:
                changed, out, lines = ran[rel]
                cache.put(key, changed, out or b"", lines)
                results[rel] = (changed, out, lines)
        for rel in contents:
            changed, out, lines = results[rel]
            if lines:
                unparsed[rel].append((i, lines))
            if changed:
                key = cache.key(rule.sha256, contents[rel])
                changes[rel].append((i, cache.sites(key, contents[rel], out)))
                contents[rel] = out
    return contents, changes, unparsed


def _apply_rules_to_file(rel, content, rules, cache, timeout, workdir,
                         spatch, stop):
    """Run every cocci rule, in order, over one file. Returns
    (final content, [(rule index, sites)])."""
    changes = []
    for i, rule in enumerate(rules):
        if rule.kind != "cocci":
            continue
        if stop.is_set():
            return content, changes
        key = cache.key(rule.sha256, content)
        got = cache.get(key)
        if got is None:
            cache.count(False)
            changed, out, lines = run_spatch(rule, content, rel, workdir, timeout,
                                             spatch, cache.options)
            cache.put(key, changed, out or b"", lines)
        else:
            cache.count(True)
            changed, out, _ = got
        if changed:
            changes.append((i, count_sites(content, out)))
            content = out
    return content, changes


def _apply_patch(rule, tree, report):
    """Apply a plain patch with patch(1) in tree; record if it fails."""
    base = ["patch", "-p1", "--batch", "--forward", "--silent", "--fuzz=0",
            "--no-backup-if-mismatch", "-r", "-", "-d", tree, "-i", rule.path]
    p = subprocess.run(base + ["--dry-run"], capture_output=True, text=True)
    if p.returncode != 0:
        report.applied = False
        report.problem = (p.stdout + p.stderr).strip()[-2000:]
        return
    lst = subprocess.run(["lsdiff", "--strip=1", rule.path],
                         capture_output=True, text=True) \
        if shutil.which("lsdiff") else None
    p = subprocess.run(base, capture_output=True, text=True)
    if p.returncode != 0:
        report.applied = False
        report.problem = (p.stdout + p.stderr).strip()[-2000:]
        return
    with open(rule.path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    report.sites_changed = len(re.findall(r"^@@ ", text, re.M))
    report.files_changed = (len(lst.stdout.split()) if lst and
                            lst.returncode == 0 else
                            len(re.findall(r"^\+\+\+ ", text, re.M)))

