"""The matrix runner: every selected target through the stages.

kernels -> generate (once) -> per target, in parallel up to the core count:
build -> initramfs -> boot -> one report row. Each stage reuses its cached
result when its inputs are unchanged (kernels: stamps; generate: the spatch
cache; build: the build key; initramfs: the content hash); the boot always
runs, because it is the test. The verdict of a boot comes from the KTAP the
guest printed (retrofi_boot.judge), never from QEMU's exit status.
"""

import concurrent.futures
import os
import threading
import time

import retrofi_boot
import retrofi_build
import retrofi_generate
import retrofi_initramfs
import retrofi_kernels
import retrofi_report
from retrofi_errors import RetrofiError

_print_lock = threading.Lock()


def say(target, msg):
    with _print_lock:
        print(f"[{target}] {msg}", flush=True)


def _test_rows(ktap):
    status = {"ok": "pass", "not ok": "fail", "skip": "skip"}
    return [retrofi_report.TestRow(t.name, status[t.status],
                                   "\n".join(t.diagnostics[-20:]) or t.directive)
            for t in ktap.tests]


def run_target(target, kernel, tree, report_dir, boot=True, jobs=None):
    """One target through build, initramfs and boot; returns a report Row."""
    started = time.monotonic()
    logs = {}
    tdir = os.path.join(report_dir, target.name)
    os.makedirs(tdir, exist_ok=True)
    logs["build"] = os.path.join(tdir, "build.log")
    say(target.name, f"build against {kernel.kernelrelease}"
        + (f" at API level {target.api_level}" if target.kind == "shape" else ""))
    row = retrofi_report.Row(target.name, target.kind, "not run", "not run", logs=logs)
    try:
        b = retrofi_build.build(tree, kernel, logs["build"], api_level=target.api_level,
                                jobs=jobs)
    except RetrofiError as e:
        row.build, row.reason = "fail", e.format()
        say(target.name, row.reason)
        b = None
    if b is not None:
        say(target.name, b.summary())
        row.build = "ok" if b.ok else "fail"
        if not b.ok:
            row.reason = b.reason
    if b is not None and b.ok and boot:
        try:
            say(target.name, "initramfs")
            initrd = retrofi_initramfs.build(kernel, b.tree)
            logs["console"] = os.path.join(tdir, "console.log")
            say(target.name, f"boot (timeout {target.boot_timeout} s)")
            r = retrofi_boot.boot(kernel, initrd, logs["console"], timeout=target.boot_timeout,
                                  allowed_splats=target.allowed_splats)
        except RetrofiError as e:
            row.boot, row.reason = "fail", e.format()
            say(target.name, row.reason)
        else:
            row.boot = r.status
            row.tests = _test_rows(r.ktap)
            if not r.ok:
                row.reason = r.reason
            say(target.name, r.report().splitlines()[0])
    row.seconds = time.monotonic() - started
    return row


def run(matrix, names=None, out_dir=None, report_dir=None, boot=True, cache=None):
    """Run the selected targets; write the report; return the rows."""
    selected = matrix.select(names or None)
    if not selected:
        raise RetrofiError("no targets selected", where=matrix.path,
                           fix="name targets with TARGETS=... or mark some default: true")
    out_dir = out_dir or os.path.join(retrofi_generate.REPO, "out")
    report_dir = report_dir or os.path.join(out_dir, "report")
    kernels = retrofi_kernels.fetch(matrix, [t.name for t in selected], cache=cache)
    gen = retrofi_generate.generate(kernels.source, out_dir)
    print(gen.summary(), flush=True)
    workers = max(1, min(len(selected), os.cpu_count() or 1))
    jobs = max(1, (os.cpu_count() or 1) // workers)
    rows = {}
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futs = {pool.submit(run_target, t, kernels.targets[matrix.real_target(t).name],
                            gen.out_path, report_dir, boot, jobs): t for t in selected}
        for fut in concurrent.futures.as_completed(futs):
            t = futs[fut]
            rows[t.name] = fut.result()
    ordered = [rows[t.name] for t in selected]
    retrofi_report.write(ordered, report_dir)
    return ordered
