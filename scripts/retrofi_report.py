"""The report stage: one row per target, on the terminal and as files.

A row says exactly what ran for that target: kind (real or shape), the
build result, the boot result ("not run" when no boot happened: a
build-only row never reads as a boot), and the guest tests passed, failed
and skipped as parsed from KTAP. Files under out/report/: report.json,
junit.xml, and per-target logs (written by the stages). `merge` combines
the JSON reports of several shards into one.
"""

import dataclasses
import json
import os
import xml.etree.ElementTree as ET

from retrofi_errors import RetrofiError

REPORT_VERSION = 1


@dataclasses.dataclass
class TestRow:
    name: str
    status: str            # "pass" | "fail" | "skip"
    detail: str = ""
    seconds: object = None  # float, by the guest's clock; None when the guest did not say
    # a test with subtests (compat selftests, KUnit suites): its innermost
    # results, {"pass": n, "fail": n, "skip": n}; None for a plain test
    cases: object = None


@dataclasses.dataclass
class Row:
    target: str
    kind: str              # "real" | "shape" | "build" | "build-only" (a family's row:
                           # built, never booted; ok when its build is)
    build: str             # "ok" | "fail" | "not run"
    boot: str              # "pass" | "fail" | "timeout" | "not run"
    seconds: float = 0.0
    reason: str = ""
    tests: list = dataclasses.field(default_factory=list)   # [TestRow]
    logs: dict = dataclasses.field(default_factory=dict)    # name -> path
    accel: str = ""        # the accelerator the boot ran under ("" when not booted)
    notes: list = dataclasses.field(default_factory=list)   # e.g. "rerun under tcg: <why>"
    # The shim census of the build (retrofi_census): one dict per shim in force,
    # {name, since, kind, change, modules}.
    shims: list = dataclasses.field(default_factory=list)
    # Seconds per stage that ran: build, initramfs, boot (to /init, by the
    # guest's clock), tests (from /init to power-off, by the guest's clock).
    stages: dict = dataclasses.field(default_factory=dict)
    initramfs_bytes: int = 0   # the size of the guest's initramfs (0: not built)
    version: str = ""      # the target kernel's Debian package version ("": not known)
    modules: list = dataclasses.field(default_factory=list)   # the built .ko files
    build_seconds: float = 0.0  # the compile's own seconds (a cached build's when it was made)
    # Why the row did no work: "refused" (the base kernel cannot host the
    # stack), "not served" (the archive serves no package), "" (it ran).
    early: str = ""
    # The firmware the built modules ask for and which Debian package
    # ships it (retrofi_firmware.for_row; {} for a row without one, only
    # {"line": why} when it could not be made).  "line" goes under the table.
    firmware: dict = dataclasses.field(default_factory=dict)
    # When the boot whose console this row judged ran, where the run reused
    # a stored boot of the same inputs (retrofi_bootcache); "": booted now.
    boot_reused: str = ""

    @property
    def ok(self):
        if self.kind == "build-only":
            return self.build == "ok"
        return self.build == "ok" and self.boot == "pass" and \
            not any(t.status == "fail" for t in self.tests)

    def counts(self):
        c = {"pass": 0, "fail": 0, "skip": 0}
        for t in self.tests:
            c[t.status] += 1
        return c


def table(rows):
    head = ("target", "kind", "build", "boot", "accel", "passed", "failed", "skipped", "seconds")
    lines = [head]
    for r in rows:
        c = r.counts()
        tested = r.boot != "not run"
        lines.append((r.target, r.kind, r.build, r.boot + ("*" if r.boot_reused else ""),
                      r.accel or "-",
                      str(c["pass"]) if tested else "-", str(c["fail"]) if tested else "-",
                      str(c["skip"]) if tested else "-", f"{r.seconds:.0f}"))
    widths = [max(len(l[i]) for l in lines) for i in range(len(head))]
    out = ["  ".join(v.ljust(w) for v, w in zip(l, widths)).rstrip() for l in lines]
    out.insert(1, "  ".join("-" * w for w in widths))
    if any(r.boot_reused for r in rows):
        out.append("* judged from the stored boot of the same kernel, initramfs and QEMU: "
                   "no guest ran in this run (RERUN=1 boots anew)")
    out += stage_table(rows)
    for r in rows:
        for t in r.tests:
            if t.cases:
                out.append(f"{r.target}: {t.name}: {t.cases['pass']} cases passed, "
                           f"{t.cases['fail']} failed, {t.cases['skip']} skipped")
        for n in r.notes:
            out.append(f"{r.target}: {n}")
        if r.firmware.get("line"):
            out.append(f"{r.target}: {r.firmware['line']}")
        if r.reason and not r.ok:
            out.append(f"{r.target}: {r.reason}")
    return "\n".join(out)


STAGES = ("build", "initramfs", "boot", "tests")


def stage_table(rows):
    """Seconds per stage, under the main table (lines; none if no row has any)."""
    if not any(r.stages for r in rows):
        return []
    lines = [("seconds:",) + STAGES]
    for r in rows:
        lines.append((r.target,) + tuple(f"{r.stages[s]:.1f}" if s in r.stages else "-"
                                         for s in STAGES))
    widths = [max(len(l[i]) for l in lines) for i in range(len(lines[0]))]
    return [""] + ["  ".join(v.ljust(w) for v, w in zip(l, widths)).rstrip() for l in lines]


def to_json(rows, accel=None):
    data = {"version": REPORT_VERSION,
            "targets": [dict(dataclasses.asdict(r), ok=r.ok) for r in rows]}
    if accel:
        data["accel"] = accel
    return data


def from_json(data, where="report.json"):
    if not isinstance(data, dict) or data.get("version") != REPORT_VERSION:
        raise RetrofiError("not a retrofi report (version 1)", where=where,
                           fix="pass report.json files written by `retrofi.py matrix`")
    rows = []
    for t in data["targets"]:
        t = dict(t)
        t.pop("ok", None)
        t["tests"] = [TestRow(**x) for x in t.get("tests", [])]
        rows.append(Row(**t))
    return rows


def junit(rows):
    suites = ET.Element("testsuites", name="retrofi")
    for r in rows:
        cases = [("build", "pass" if r.build == "ok" else ("skip" if r.build == "not run" else "fail"),
                  r.reason if r.build == "fail" else "")]
        if r.boot == "not run":
            cases.append(("boot", "skip", "not booted"))
        else:
            cases.append(("boot", "pass" if r.boot == "pass" else "fail",
                          r.reason if r.boot != "pass" else ""))
        cases += [(t.name, t.status, t.detail) for t in r.tests]
        suite = ET.SubElement(suites, "testsuite", name=f"{r.target} ({r.kind})",
                              tests=str(len(cases)),
                              failures=str(sum(1 for c in cases if c[1] == "fail")),
                              skipped=str(sum(1 for c in cases if c[1] == "skip")),
                              time=f"{r.seconds:.1f}")
        for name, status, detail in cases:
            case = ET.SubElement(suite, "testcase", classname=f"retrofi.{r.target}", name=name)
            if name == "boot" and r.boot_reused:
                ET.SubElement(case, "system-out").text = \
                    f"judged from the stored boot of {r.boot_reused}: no guest ran in this run"
            if status == "fail":
                ET.SubElement(case, "failure", message=(detail or "failed")[:500]).text = detail
            elif status == "skip":
                ET.SubElement(case, "skipped", message=detail or "skipped")
    return ET.tostring(suites, encoding="unicode")


def write(rows, report_dir, accel=None):
    """accel: the run's accelerator verdict {"name", "reason"}, if it booted."""
    os.makedirs(report_dir, exist_ok=True)
    for name, data in (("report.json",
                        json.dumps(to_json(rows, accel), indent=2, sort_keys=True) + "\n"),
                       ("junit.xml", junit(rows) + "\n")):
        tmp = os.path.join(report_dir, f".{name}.tmp")
        with open(tmp, "w") as f:
            f.write(data)
        os.replace(tmp, os.path.join(report_dir, name))


def merge(paths, report_dir):
    """Combine shards' report.json files into one report (JSON, JUnit)."""
    rows, seen = [], {}
    for p in paths:
        try:
            data = json.load(open(p))
        except (OSError, ValueError) as e:
            raise RetrofiError(f"cannot read shard report: {e}", where=p,
                               fix="pass the report.json files of finished shards")
        for r in from_json(data, p):
            if r.target in seen:
                raise RetrofiError(f"target {r.target} appears in two shards ({seen[r.target]})",
                                   where=p, fix="run each target in one shard only")
            seen[r.target] = p
            rows.append(r)
    write(rows, report_dir)
    return rows
