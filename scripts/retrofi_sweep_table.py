"""The sweep table of docs/sweep.md, written from a matrix report.

In:  a report.json of a sweep (`make matrix TARGETS=sweep-all`): its rows'
     target, Debian version, build result, built modules, the compile's
     seconds, shims in force, and why a row did no work (refused, not
     served).
Out: the markdown between the page's sweep-table markers: one line of
     counts, then one table row per report row:

  | row | kernel (Debian version) | result | seconds | warnings | shims in force |

A built row has no warnings (any warning fails the build), so its
warnings cell is 0; a row that built nothing has "-" there and for its
shims.  `retrofi.py sweep-table REPORT` prints the block;
`--update-doc docs/sweep.md` (make sweep-table-docs REPORT=...)
rewrites it in place.  parse() reads a block back into its cells, for the
test that checks the page against the matrix and this generator.
"""

import json
import os
import re

import retrofi_report
from retrofi_errors import RetrofiError

BEGIN = "<!-- sweep-table -->"
END = "<!-- end of sweep-table -->"
HEAD = ("| row | kernel (Debian version) | result | seconds | warnings | shims in force |\n"
        "|---|---|---|---|---|---|")
NOT_SERVED = "not served: the index lists its headers, the pool answers 404"
LACKS_RE = re.compile(r"it lacks (.*?)(?:\n|$)")
OPTION_RE = re.compile(r"(?:^|; )(CONFIG_[A-Z0-9_]+) \(")


def result(row):
    """The result cell of a report row."""
    if row.early == "not served":
        return NOT_SERVED
    if row.early == "refused":
        m = LACKS_RE.search(row.reason)
        options = OPTION_RE.findall(m.group(1)) if m else []
        if not options:
            raise RetrofiError(f"row {row.target}: refused, but its reason names no missing "
                               f"CONFIG_ option: {row.reason[:200]}", where="report.json",
                               fix="pass the report of a run of this retrofi")
        return "refused: " + ", ".join(f"no `{o}`" for o in options)
    if row.build == "ok":
        return f"ok, {len(row.modules)} modules"
    reason = " ".join(row.reason.split())[:160].replace("|", "\\|")
    return f"failed: {reason}" if row.build == "fail" else f"build {row.build}"


def line(row):
    if not row.version:
        raise RetrofiError(f"row {row.target} has no Debian version", where="report.json",
                           fix="pass a report written by a matrix run of this retrofi (older "
                               "reports lack the row's version)")
    built = row.build == "ok"
    seconds = f"{row.build_seconds:.0f}" if built else f"{row.seconds:.1f}"
    return (f"| {row.target} | {row.version} | {result(row)} | {seconds} | "
            f"{'0' if built else '-'} | {len(row.shims) if built else '-'} |")


def counts(rows):
    built = sum(1 for r in rows if r.build == "ok")
    refused = sum(1 for r in rows if r.early == "refused")
    unserved = sum(1 for r in rows if r.early == "not served")
    failed = len(rows) - built - refused - unserved
    return (f"**{len(rows)} rows: {built} built with 0 warnings, {refused} refused, "
            f"{unserved} not served by the archive, {failed} failed:**")


def block(rows):
    """The markdown between the markers (without them)."""
    if not rows:
        raise RetrofiError("the report has no rows", where="report.json",
                           fix="pass the report of a sweep (make matrix TARGETS=sweep-all)")
    return "\n".join([counts(rows), "", HEAD] + [line(r) for r in rows])


def read_report(path):
    try:
        data = json.load(open(path, encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RetrofiError(f"cannot read the report: {e}", where=path,
                           fix="pass out/report/report.json of a sweep run")
    return retrofi_report.from_json(data, path)


def _span(text, where):
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise RetrofiError(f"no {BEGIN} ... {END} block", where=where,
                           fix="put the markers around the sweep table")
    return start + len(BEGIN), end


def update_doc(page, rows):
    text = open(page, encoding="utf-8").read()
    start, end = _span(text, page)
    new = text[:start] + "\n" + block(rows) + "\n" + text[end:]
    with open(page + ".tmp", "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(page + ".tmp", page)


DOC = "docs/sweep.md"


def parse(text, where=DOC):
    """The block in text: (counts line, [cells of each table row])."""
    start, end = _span(text, where)
    lines = text[start:end].strip().splitlines()
    return lines[0], [[c.strip() for c in l.strip().strip("|").split(" | ")]
                      for l in lines[4:]]

