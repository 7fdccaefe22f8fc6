"""The KTAP stage: read a guest's console log and say what the guest proved.

In:  the text of a serial console log (kernel messages and the guest's
     /init output interleaved).
Out: a KtapResult (the parsed KTAP stream of the guest's tests) and a list
     of Splat records (kernel oopses, warnings, lockdep reports, ...).

The guest's KTAP is the lines without a kernel timestamp: kernel messages
("[    1.234567] ...", optionally after a "<6>" level) are never KTAP, so a
module that prints its own "KTAP version 1" through printk (the compat
selftest) cannot be mistaken for the guest's plan.

A result is a pass only when the stream is complete: a version line, a plan
1..N, exactly the results 1..N in order, none of them `not ok`.  A missing
plan or fewer results than planned means the guest died early; that is a
failure, never a pass.  Any kernel splat anywhere in the log fails the boot
too (unless the target's matrix entry allows it, with a reason).
"""

import dataclasses
import re
from typing import List, Optional, Tuple

KERNEL_LINE = re.compile(r"^(?:<\d+>)?\[\s*\d+\.\d+\]")
VERSION_LINE = re.compile(r"^(?:KTAP version (\d+)|TAP version (\d+))\s*$")
PLAN_LINE = re.compile(r"^1\.\.(\d+)\s*(?:#.*)?$")
RESULT_LINE = re.compile(r"^(ok|not ok) (\d+)(?: (?:- )?([^#]*?))?\s*(?:#\s*(.*))?$")
SUBTEST_HEADER = re.compile(r"^# Subtest: (.*)$")
INDENT = "    "

# What a kernel splat looks like.  Each pattern names its kind; deliberately
# specific (boot-time notes such as "RETBleed: WARNING: ..." are not splats).
# The debug kernel's checkers come first, so a "BUG: KASAN: ..." line is
# named KASAN, not BUG.
SPLAT_PATTERNS = [
    ("KASAN", re.compile(r"\bKASAN: ")),
    ("UBSAN", re.compile(r"\bUBSAN: ")),
    ("lockdep", re.compile(r"possible circular locking|possible recursive locking|"
                           r"inconsistent lock state|suspicious RCU usage|"
                           r"possible irq lock inversion|bad unlock balance detected|"
                           r"held lock freed|lock held when returning to user space|"
                           r"still has locks held|\bDEBUG_LOCKS_WARN_ON\(")),
    ("kmemleak", re.compile(r"\bunreferenced object 0x[0-9a-f]+ \(size \d+\)|"
                            r"kmemleak: \d+ new suspected memory leaks")),
    ("debugobjects", re.compile(r"\bODEBUG: .*\bobject type: ")),
    # SLUB's own consistency checks: "BUG kmalloc-64 (Not tainted): Poison overwritten".
    ("slub", re.compile(r"\bBUG [\w.:-]+ \((?:Not tainted|Tainted: [^)]*)\): ")),
    ("BUG", re.compile(r"\bBUG: ")),
    ("WARNING", re.compile(r"\bWARNING: CPU: \d+ PID: \d+")),
    ("Oops", re.compile(r"\bOops\b")),
    ("Call Trace", re.compile(r"\bCall Trace:")),
    ("hung task", re.compile(r"blocked for more than \d+ seconds|\bhung task\b")),
    ("general protection", re.compile(r"general protection fault")),
    ("panic", re.compile(r"Kernel panic - not syncing")),
    ("lockup", re.compile(r"soft lockup - CPU|hard LOCKUP|self-detected stall|detected stalls")),
    ("list corruption", re.compile(r"list_(?:add|del) corruption")),
    ("refcount", re.compile(r"refcount_t: (?:underflow|overflow|saturated|addition on 0)")),
]
SPLAT_CONTEXT = 12      # lines quoted after the first line of a splat


@dataclasses.dataclass
class TestCase:
    number: int
    name: str
    status: str                    # "ok" | "not ok" | "skip"
    directive: str = ""            # "SKIP reason", or other text after '#'
    diagnostics: List[str] = dataclasses.field(default_factory=list)
    subtests: Optional["KtapResult"] = None

    @property
    def failed(self):
        return self.status == "not ok"


@dataclasses.dataclass
class KtapResult:
    version: Optional[int]
    plan: Optional[int]
    tests: List[TestCase]
    errors: List[str]              # structural problems (missing plan, gaps, ...)

    @property
    def complete(self):
        return self.version is not None and self.plan is not None and not self.errors

    @property
    def failures(self):
        return [t for t in self.tests if t.failed]

    @property
    def passed(self):
        return self.complete and not self.failures

    def counts(self):
        c = {"ok": 0, "not ok": 0, "skip": 0}
        for t in self.tests:
            c[t.status] += 1
        return c

    def summary(self):
        if self.version is None:
            return "no KTAP output: the guest died before its tests started"
        c = self.counts()
        text = (f"{c['ok']} passed, {c['not ok']} failed, {c['skip']} skipped"
                f" of {self.plan if self.plan is not None else '?'} planned")
        if self.errors:
            text += "; " + "; ".join(self.errors)
        return text


@dataclasses.dataclass(frozen=True)
class Splat:
    kind: str
    line: int                      # 1-based line number in the log
    text: Tuple[str, ...]          # the first line and the context after it
    allowed: str = ""              # the matrix's reason, when allowed_splats covers it


def guest_lines(text):
    """The console's lines that are not kernel messages, without CR/NUL."""
    out = []
    for raw in text.replace("\r", "").replace("\x00", "").split("\n"):
        if KERNEL_LINE.match(raw):
            continue
        out.append(raw)
    return out


def _parse_block(lines, nested=False):
    """Parse one KTAP level (lines already de-indented).

    A nested level may have no plan: KUnit prints none for a parameterised
    case whose parameters a generator yields (lib/kunit/test.c). Its parent's
    result line comes after it, so a nested level is never cut short unseen;
    its results then are its plan."""
    version = plan = None
    tests, errors = [], []
    diag, sub = [], []
    i = 0
    # The version line starts the stream; anything before it is not KTAP.
    while i < len(lines) and version is None:
        m = VERSION_LINE.match(lines[i].strip())
        if m and not lines[i].startswith(" "):
            version = int(m.group(1) or m.group(2))
        i += 1
    if version is None:
        return KtapResult(None, None, [], ["no KTAP version line"])
    for line in lines[i:]:
        if line.startswith(INDENT):
            sub.append(line[len(INDENT):])
            continue
        s = line.rstrip()
        m = PLAN_LINE.match(s)
        if m:
            if plan is not None:
                errors.append(f"second plan line '{s}'")
            elif tests:
                errors.append("plan after the first result")
            plan = int(m.group(1))
            diag = []          # the header's comments are not the first test's
            continue
        m = RESULT_LINE.match(s)
        if m:
            status, number = m.group(1), int(m.group(2))
            name = (m.group(3) or "").strip()
            directive = (m.group(4) or "").strip()
            if directive.upper().startswith("SKIP") and status == "ok":
                status = "skip"
            case = TestCase(number, name, status, directive, diag)
            if sub:
                case.subtests = _parse_block(_with_version(sub), nested=True)
                if status != "not ok" and not case.subtests.passed and \
                        case.subtests.version is not None:
                    errors.append(f"test {number} {name} is ok but its subtests are not")
            expected = len(tests) + 1
            if number != expected:
                errors.append(f"result {number} where {expected} was expected")
            tests.append(case)
            diag, sub = [], []
            continue
        if s.startswith("#"):
            diag.append(s[1:].strip())
        # Anything else is output KTAP does not describe: ignored.
    if plan is None and nested and tests:
        plan = len(tests)
    elif plan is None:
        errors.append("no plan line (1..N): the guest died before its tests started")
    elif len(tests) < plan:
        errors.append(f"only {len(tests)} of {plan} planned results: the guest died early")
    elif len(tests) > plan:
        errors.append(f"{len(tests)} results for a plan of {plan}")
    return KtapResult(version, plan, tests, errors)


def _with_version(sub):
    """Nested blocks may omit their version line (KTAP allows it)."""
    if any(VERSION_LINE.match(l.strip()) for l in sub if not l.startswith(" ")):
        return sub
    return ["KTAP version 1"] + sub


def parse(text):
    """The guest's KTAP stream in a console log."""
    return _parse_block(guest_lines(text))


def _is_guest_ktap(line):
    s = line.lstrip(" ")
    return (s.startswith("#") or s.startswith("ok ") or s.startswith("not ok ")
            or VERSION_LINE.match(s.strip()) is not None or PLAN_LINE.match(s.strip()) is not None)


def scan_splats(text, allowed=()):
    """Kernel splats anywhere in the log.

    allowed: (regex, reason) pairs (the matrix's allowed_splats); a splat
    whose first line matches one is returned with .allowed set.  The guest's
    own KTAP lines are not scanned (a test name is not a splat).  A splat
    that the log shows twice (console, then the guest's dmesg dump) is
    reported once.
    """
    lines = text.replace("\r", "").replace("\x00", "").split("\n")
    found, seen = [], set()
    compiled = [(re.compile(m), r) for m, r in allowed]
    for n, line in enumerate(lines):
        if not KERNEL_LINE.match(line) and _is_guest_ktap(line):
            continue
        for kind, pat in SPLAT_PATTERNS:
            if pat.search(line):
                body = KERNEL_LINE.sub("", line).strip()
                if body in seen:
                    break
                seen.add(body)
                ctx = tuple(l for l in lines[n:n + 1 + SPLAT_CONTEXT])
                reason = next((r for c, r in compiled if c.search(line)), "")
                found.append(Splat(kind, n + 1, ctx, reason))
                break
    return found


def fatal_splats(splats):
    return [s for s in splats if not s.allowed]


def render(result, indent=""):
    """KTAP text of a result (for reports and for tests of the parser)."""
    out = [f"{indent}KTAP version {result.version or 1}"]
    if result.plan is not None:
        out.append(f"{indent}1..{result.plan}")
    for t in result.tests:
        for d in t.diagnostics:
            out.append(f"{indent}# {d}")
        if t.subtests is not None:
            out += render(t.subtests, indent + INDENT).splitlines()
        status = "ok" if t.status == "skip" else t.status
        line = f"{indent}{status} {t.number} {t.name}"
        if t.directive:
            line += f" # {t.directive}"
        out.append(line)
    return "\n".join(out)


def leaf_counts(result):
    """{"ok", "not ok", "skip"} counts of the innermost results under result:
    a KUnit suite's cases, and each parameter of a parameterised one."""
    c = {"ok": 0, "not ok": 0, "skip": 0}
    for t in result.tests:
        if t.subtests is not None and t.subtests.tests:
            for k, v in leaf_counts(t.subtests).items():
                c[k] += v
        else:
            c[t.status] += 1
    return c


def skips(result, prefix=""):
    """Every skipped test, nested ones as "parent/name": [(path, directive)]."""
    out = []
    for t in result.tests:
        path = f"{prefix}{t.name}"
        if t.status == "skip":
            out.append((path, t.directive))
        if t.subtests is not None:
            out += skips(t.subtests, path + "/")
    return out
