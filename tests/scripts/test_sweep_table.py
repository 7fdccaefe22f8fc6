"""The sweep table of docs/sweep.md: written from a sweep's report.json by
retrofi_sweep_table, and checked here against what can be known without
the sweep itself: the lock's sweep-all rows and their pinned versions,
the modules the wifi defconfig selects, and the generator's own output
for the rows the table states (its counts line included)."""

import json
import os
import re

import pytest

import retrofi_matrix
import retrofi_report
import retrofi_selection
import retrofi_sweep_table
from conftest import REPO, wifi_tree
from retrofi_errors import RetrofiError

PAGE = os.path.join(REPO, retrofi_sweep_table.DOC)


def page_block():
    return retrofi_sweep_table.parse(open(PAGE, encoding="utf-8").read())


def row_of(cells):
    """The report row a table row of the page states (what the generator needs)."""
    target, version, result, seconds, warnings, shims = cells
    common = dict(target=target, kind="build-only", boot="not run", version=version)
    if result == retrofi_sweep_table.NOT_SERVED:
        return retrofi_report.Row(build="fail", early="not served", seconds=float(seconds),
                                  reason="the archive lists it but serves no file (404)",
                                  **common)
    if result.startswith("refused: "):
        options = re.findall(r"`(CONFIG_[A-Z0-9_]+)`", result)
        return retrofi_report.Row(
            build="fail", early="refused", seconds=float(seconds),
            reason="retrofi: error: <klib>: this kernel cannot load a Wi-Fi stack: it lacks "
                   + "; ".join(f"{o} (why)" for o in options), **common)
    m = re.match(r"^ok, (\d+) modules$", result)
    assert m, f"{target}: unknown result {result!r}"
    assert warnings == "0", f"{target}: a built row has no warnings (any fails the build)"
    return retrofi_report.Row(build="ok", build_seconds=float(seconds),
                              modules=[f"m{i}.ko" for i in range(int(m.group(1)))],
                              shims=[{"name": f"s{i}"} for i in range(int(shims))], **common)


def test_the_docs_sweep_table_is_what_the_generator_writes_for_the_rows_it_states():
    """Its counts line counts its rows, and every line has the generator's
    form: a hand edit of one cell or of the counts fails here."""
    text = open(PAGE, encoding="utf-8").read()
    start, end = text.index(retrofi_sweep_table.BEGIN), text.index(retrofi_sweep_table.END)
    written = text[start + len(retrofi_sweep_table.BEGIN):end].strip()
    _, cells = page_block()
    assert retrofi_sweep_table.block([row_of(c) for c in cells]) == written


def test_the_docs_sweep_table_has_every_sweep_all_row_with_its_pinned_version():
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    want = [(t.name, t.version) for t in m.select([retrofi_matrix.SWEEP_ALL])]
    _, cells = page_block()
    assert [(c[0], c[1]) for c in cells] == want, \
        "the lock's rows moved: run the sweep again and `make sweep-table-docs`"


def test_every_built_row_of_the_docs_sweep_table_has_the_modules_the_wifi_defconfig_selects(tmp_path):
    sel = retrofi_selection.selection(wifi_tree(str(tmp_path / "t")))
    assert sel.errors == () and len(sel.modules) == 9, sel
    _, cells = page_block()
    built = [c for c in cells if c[2].startswith("ok, ")]
    assert built and all(c[2] == f"ok, {len(sel.modules)} modules" for c in built)


def test_the_generator_writes_each_kind_of_row_from_a_report(tmp_path):
    rows = [
        retrofi_report.Row("6.1.0-57-amd64", "build-only", "ok", "not run", seconds=2.0,
                           version="6.1.192-3", modules=["compat/compat.ko", "a.ko"],
                           build_seconds=369.4, shims=[{"name": "x"}, {"name": "y"}]),
        retrofi_report.Row("6.1.0-57-cloud-amd64", "build-only", "fail", "not run", seconds=0.06,
                           version="6.1.192-3", early="refused",
                           reason="retrofi: error: /k: this kernel cannot load a Wi-Fi stack: it "
                                  "lacks CONFIG_CFG80211 (no cfg80211; see include/linux/"
                                  "netdevice.h); CONFIG_CRYPTO_LIB_ARC4 (WEP and TKIP)\n"
                                  "  fix: use a kernel built with them"),
        retrofi_report.Row("6.1.0-0.deb11.48-amd64", "build-only", "fail", "not run",
                           version="6.1.172-1~deb11u1", early="not served", reason="404"),
        retrofi_report.Row("5.10.0-30-amd64", "build-only", "fail", "not run", seconds=300.0,
                           version="5.10.218-1", reason="net/wireless/nl80211.c:1: error: a|b"),
    ]
    report = tmp_path / "report.json"
    report.write_text(json.dumps(retrofi_report.to_json(rows)))
    assert retrofi_sweep_table.block(retrofi_sweep_table.read_report(str(report))).splitlines() == [
        "**4 rows: 1 built with 0 warnings, 1 refused, 1 not served by the archive, 1 failed:**",
        "",
        "| row | kernel (Debian version) | result | seconds | warnings | shims in force |",
        "|---|---|---|---|---|---|",
        "| 6.1.0-57-amd64 | 6.1.192-3 | ok, 2 modules | 369 | 0 | 2 |",
        "| 6.1.0-57-cloud-amd64 | 6.1.192-3 | refused: no `CONFIG_CFG80211`, "
        "no `CONFIG_CRYPTO_LIB_ARC4` | 0.1 | - | - |",
        "| 6.1.0-0.deb11.48-amd64 | 6.1.172-1~deb11u1 | not served: the index lists its headers, "
        "the pool answers 404 | 0.0 | - | - |",
        "| 5.10.0-30-amd64 | 5.10.218-1 | failed: net/wireless/nl80211.c:1: error: a\\|b | "
        "300.0 | - | - |",
    ]
    page = tmp_path / "sweep.md"
    page.write_text(f"before\n{retrofi_sweep_table.BEGIN}\nold\n{retrofi_sweep_table.END}\nafter\n")
    retrofi_sweep_table.update_doc(str(page), rows)
    text = page.read_text()
    assert text.startswith(f"before\n{retrofi_sweep_table.BEGIN}\n**4 rows:") and \
        text.endswith(f"| - | - |\n{retrofi_sweep_table.END}\nafter\n") and "old" not in text


def test_a_report_whose_rows_lack_the_version_is_refused_naming_the_row(tmp_path):
    """A report of an older retrofi has no versions: one error, nothing written."""
    rows = [retrofi_report.Row("6.1.0-57-amd64", "build-only", "ok", "not run")]
    page = tmp_path / "sweep.md"
    page.write_text(f"{retrofi_sweep_table.BEGIN}\nold\n{retrofi_sweep_table.END}\n")
    with pytest.raises(RetrofiError) as e:
        retrofi_sweep_table.update_doc(str(page), rows)
    assert "row 6.1.0-57-amd64 has no Debian version" in str(e.value)
    assert "old" in page.read_text()
