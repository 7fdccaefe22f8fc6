"""The matrix runner: every selected target through the stages.

kernels -> generate (once) -> per target, in parallel up to the core count:
build -> initramfs -> boot -> one report row. Each stage reuses its cached
result when its inputs are unchanged (kernels: stamps; generate: the spatch
cache; build: the build key; initramfs: the content hash; boot: the digests
of the kernel, the initramfs and QEMU, retrofi_bootcache, unless rerun).
The verdict of a boot comes from the KTAP the guest printed
(retrofi_boot.judge), judged anew on a stored console, never from QEMU's
exit status.
"""

import concurrent.futures
import os
import re
import subprocess
import threading
import time

import retrofi_accel
import retrofi_boot
import retrofi_build
import retrofi_census
import retrofi_firmware
import retrofi_generate
import retrofi_guest_drivers
import retrofi_initramfs
import retrofi_interrupt
import retrofi_kbuild
import retrofi_kernels
import retrofi_ktap
import retrofi_kunit
import retrofi_matrix
import retrofi_report
from retrofi_errors import RetrofiError

_print_lock = threading.Lock()


def say(target, msg):
    with _print_lock:
        print(f"[{target}] {msg}", flush=True)


def _test_rows(ktap, expected_skips=(), kunit_sets=None):
    """One row per guest test; a nested skip the target does not declare
    makes its parent test a failure (a skip is never a pass), and so does
    a declared skip that did not happen with its declared reason, and a
    KUnit suite test that did not run exactly the suites and cases the
    source declares (kunit_sets: retrofi_kunit.expected_sets())."""
    status = {"ok": "pass", "not ok": "fail", "skip": "skip"}
    declared = {e.test: e.reason for e in expected_skips}
    rows = []
    for t in ktap.tests:
        st = status[t.status]
        detail = "\n".join(t.diagnostics[-20:]) or t.directive
        if st == "skip" and t.name not in declared:
            st, detail = "fail", f"skipped, not an expected skip of this target: {t.directive}"
        if t.subtests is not None:
            bad = [(p, d) for p, d in retrofi_boot.unexpected_skips(t.subtests)
                   if f"{t.name}/{p}" not in declared]
            if bad and st == "pass":
                st = "fail"
                detail = "subtests skipped, not expected skips of this target: " + \
                    ", ".join(f"{p} ({d})" for p, d in bad) + "\n" + detail
        if kunit_sets and t.name in kunit_sets:
            wrong = retrofi_kunit.set_problems(t, kunit_sets[t.name])
            if wrong and st == "pass":
                st = "fail"
                detail = "not the source's KUnit set: " + "; ".join(wrong) + "\n" + detail
        cases = None
        if t.subtests is not None:
            c = retrofi_ktap.leaf_counts(t.subtests)
            cases = {"pass": c["ok"], "fail": c["not ok"], "skip": c["skip"]}
        rows.append(retrofi_report.TestRow(t.name, st, detail, _test_seconds(t), cases))
    for path, what in retrofi_boot.declared_skips_not_taken(ktap, expected_skips):
        row = next(r for r in rows if r.name == path.partition("/")[0])
        row.status = "fail"
        row.detail = f"declared as an expected skip of this target, but {path}: {what}\n" + \
            row.detail
    return rows


def _test_seconds(test):
    """A guest test's seconds, from the line the guest prints after it:
    "<name>: <start> s -> <end> s (guest uptime)"."""
    want = re.compile(rf"^(?:# )?{re.escape(test.name)}: (\d+\.\d+) s -> (\d+\.\d+) s \(guest uptime\)$")
    for line in test.diagnostics:
        m = want.match(line.strip())
        if m:
            return round(float(m.group(2)) - float(m.group(1)), 2)
    return None


def _census(target, b, row):
    """The row's shims in force; a shape whose build lacks a shim that must
    be in force at its API level fails its build (the stack would run the
    base kernel's own API there)."""
    row.shims = b.census.rows()
    say(target.name, f"{len(row.shims)} shims in force")
    if target.kind != "shape":
        return
    row.notes.append(f"shape: the API of {target.api_level} on {b.target}, "
                     f"{len(row.shims)} shims in force")
    cat = retrofi_census.catalog(b.tree)
    included = retrofi_census.included_files(b.tree)
    missing = retrofi_census.missing(b.census, cat, target.api_level, included)
    unused = len(retrofi_census.required(cat, target.api_level)) - \
        len(retrofi_census.required(cat, target.api_level, included))
    if unused:
        row.notes.append(f"{unused} shims newer than {target.api_level} not required: "
                         "their headers are in no object of this build")
    if missing:
        row.build = "fail"
        row.reason = (f"{len(missing)} shims that must be in force at API level "
                      f"{target.api_level} are in no module: {', '.join(missing)}")
        say(target.name, row.reason)


def _firmware(target, b, kernel, row, tdir):
    """The firmware report of a row built against a Debian kernel
    (docs/firmware.md): row.firmware (its line goes under the report's
    table), the table in <report>/<target>/firmware.txt.  A report that
    cannot be made (no network for a first fetch) says why there, never
    fails the row: the firmware is the user's to install."""
    try:
        data, text = retrofi_firmware.for_row(
            b.tree, b.modules, kernel, retrofi_kernels.cache_dir(),
            say=lambda m: say(target.name, m),
            offline=os.environ.get("RETROFI_FIRMWARE_OFFLINE") == "1")
    except RetrofiError as e:
        row.firmware = {"line": f"firmware report not made: {e.what} ({e.where})"}
        say(target.name, row.firmware["line"])
        return
    row.firmware = data
    row.logs["firmware"] = os.path.join(tdir, "firmware.txt")
    with open(row.logs["firmware"], "w") as f:
        f.write(text + "\n")
    say(target.name, data["line"])


def lacked_probes(tree):
    """The probed APIs (compat/probes.list) a built tree's target lacks,
    from the include/retrofi/probes.h compat/probe.sh wrote for it."""
    try:
        text = open(os.path.join(tree, "include", "retrofi", "probes.h")).read()
    except OSError:
        return ["(no probes.h)"]
    return re.findall(r"^#define RETROFI_HAVE_(\w+) 0$", text, re.M)


_PRINTK_RE = re.compile(r"^\[\s*(\d+\.\d+)\] (.*)$", re.M)


def guest_stages(console_log):
    """{"boot": seconds to /init, "tests": seconds from /init to the last
    kernel line}, by the guest's printk clock in the console ({} if the
    console lacks them)."""
    try:
        with open(console_log, errors="replace") as f:
            stamps = [(float(t), m) for t, m in _PRINTK_RE.findall(f.read())]
    except OSError:
        return {}
    init = [t for t, m in stamps if m.startswith("Run /init as init process")]
    if not init:
        return {}
    return {"boot": init[0], "tests": max(t for t, _ in stamps) - init[0]}


def preempt_rt(matrix, target):
    """Whether the matrix says target boots a PREEMPT_RT kernel: its real
    target's (a shape's base's) flavour is an rt one."""
    return matrix.real_target(target).flavour.startswith("rt-")


# RETROFI_DEFCONFIG=drivers (make matrix): the rows build that defconfig of
# the output tree instead of the default (wifi), e.g. with the vendor
# drivers, whose guest tests then run.
DEFCONFIG_ENV = "RETROFI_DEFCONFIG"


# Without it, a row whose target gets the stack's KUnit suites (with the
# tree's kunit.ko, or with the target's own KUnit where it has one) builds
# the tree's wifi-kunit (the wifi selection with kunit.ko and the stack's
# suites), where the tree has one, so that its guest runs the source's
# KUnit suites as well. The
# package's default, wifi, never installs test modules on a user's machine.
KUNIT_DEFCONFIG = "wifi-kunit"
# The matrix's ends (its oldest and newest default real target,
# Matrix.ends()) build every vendor driver as well, in the same one build:
# drivers-kunit where the KUnit is on, else drivers, where the tree has it.
DRIVERS_KUNIT_DEFCONFIG = "drivers-kunit"
DRIVERS_DEFCONFIG = "drivers"


def run_defconfig(tree=None, kernel=None, api_level="", drivers=False):
    """The defconfig a matrix row builds: $RETROFI_DEFCONFIG; else, for a
    row that builds the vendor drivers (drivers: one of Matrix.ends(), not
    a shape), DRIVERS_KUNIT_DEFCONFIG or DRIVERS_DEFCONFIG, and for any
    other row KUNIT_DEFCONFIG or wifi: the KUnit one where tree has it and
    its KUnit is on for kernel (at api_level, a shape's), each only where
    tree has it."""
    chosen = os.environ.get(DEFCONFIG_ENV)
    if chosen:
        return chosen
    kunit = tree is not None and kernel is not None and _kunit_on(tree, kernel, api_level)
    if drivers and not api_level and tree is not None:
        for name in ((DRIVERS_KUNIT_DEFCONFIG,) if kunit else ()) + (DRIVERS_DEFCONFIG,):
            if os.path.isfile(os.path.join(tree, "defconfigs", name)):
                return name
    return KUNIT_DEFCONFIG if kunit else "wifi"


def builds_drivers(matrix, target, ends=None):
    """Whether a matrix row builds every vendor driver (run_defconfig()'s
    drivers): the matrix's ends (Matrix.ends(), passed in as ends when the
    caller has them) and each build-only row of the sweep (every served
    ABI), never a shape or another real row."""
    ends = matrix.ends() if ends is None else ends
    return target.name in ends or target.kind == retrofi_matrix.BUILD_ONLY


def _kunit_on(tree, kernel, api_level=""):
    """Whether tree's KUNIT_DEFCONFIG builds the stack's suites for kernel
    (CFG80211_KUNIT_TEST on: with the tree's kunit.ko, RETROFI_KUNIT, or
    with the target's own KUnit): the tree's own config.sh --values (it
    writes nothing). A target it refuses is no KUnit row (the build then
    says why)."""
    defconfig = os.path.join(tree, "defconfigs", KUNIT_DEFCONFIG)
    if not os.path.isfile(defconfig):
        return False
    env = dict(os.environ)
    if api_level:
        env["RETROFI_API_CODE"] = str(retrofi_census.level_code(api_level))
    p = subprocess.run(["sh", os.path.join(tree, "config", "config.sh"), "--values", defconfig,
                        kernel.headers, tree], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=env)
    return p.returncode == 0 and any(l.split("\t")[:2] == ["CFG80211_KUNIT_TEST", "m"]
                                     for l in p.stdout.splitlines())


def guest_config(target, mode, census, rt, build=None):
    """The files of the guest's /etc that tests/guest/init reads.

    rt: whether the row is PREEMPT_RT by the matrix (preempt_rt()): the
    guest requires the booted kernel to be so exactly when it is.
    build: the BuildResult whose modules the guest gets: the vendor
    drivers' device IDs it made (retrofi_guest_drivers)."""
    config = {"etc/retrofi-mode": f"{mode}\n",
              "etc/retrofi-census": census.guest_lines(),
              "etc/retrofi-event-timeout": f"{target.event_timeout}\n",
              "etc/retrofi-preempt-rt": "1\n" if rt else "0\n"}
    if build is not None:
        config["etc/retrofi-driver-aliases"] = retrofi_guest_drivers.guest_lines(
            retrofi_guest_drivers.parse(), build.modules, build.off)
    return config


BASE_CHECK = os.path.join(retrofi_generate.REPO, "drivers", "out-tree", "config", "base.sh")


def refusal(kernel):
    """Why kernel cannot host the stack at all ("" if it can), from its
    .config alone (drivers/out-tree/config/base.sh, which the output tree's
    make runs too): the same error as the build's, in well under a second."""
    p = subprocess.run(["sh", BASE_CHECK, kernel.headers], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode == 0:
        return ""
    return " ".join(l.strip() for l in p.stdout.splitlines() if l.strip())


def _early_row(target, reason, seconds, report_dir, early, version):
    """The row of a target that fails before any work: build "fail" with
    the reason (also its build log), boot "not run"."""
    row = retrofi_report.Row(target.name, target.kind, "fail", "not run", reason=reason,
                             early=early, version=version)
    row.seconds = seconds
    os.makedirs(os.path.join(report_dir, target.name), exist_ok=True)
    row.logs["build"] = os.path.join(report_dir, target.name, "build.log")
    with open(row.logs["build"], "w") as f:
        f.write(reason + "\n")
    return row


def refused_row(target, kernel, report_dir):
    """The row of a target refused before any work, or None."""
    started = time.monotonic()
    why = refusal(kernel)
    if not why:
        return None
    row = _early_row(target, why, time.monotonic() - started, report_dir, "refused",
                     kernel.version)
    say(target.name, f"refused in {row.seconds:.2f} s: {why}")
    return row


def failed_row(target, error, report_dir):
    """The row of a target whose packages the archive would not serve."""
    row = _early_row(target, error.format(), 0.0, report_dir, "not served", target.version)
    say(target.name, row.reason)
    return row


def run_target(target, kernel, tree, report_dir, boot=True, jobs=None, accel=None,
               mode="tests", rt=False, drivers=False, store=None, reuse=True):
    """One target through build, initramfs and boot; returns a report Row.

    accel:   the run's retrofi_accel.Accel (TCG when None).
    rt:      whether the matrix makes the row PREEMPT_RT (preempt_rt()).
    drivers: whether the row builds every vendor driver (one of the
             matrix's ends, or a build-only row: run_defconfig()).
    store:   the directory of finished boots (retrofi_bootcache), or None.
    reuse:   whether a stored boot of the same inputs stands for the boot.
    mode:    what the guest runs: "tests" (every guest test) or "stress"
             (tests/guest/init reads it from /etc/retrofi-mode)."""
    started = time.monotonic()
    logs = {}
    tdir = os.path.join(report_dir, target.name)
    os.makedirs(tdir, exist_ok=True)
    logs["build"] = os.path.join(tdir, "build.log")
    say(target.name, f"build against {kernel.kernelrelease}"
        + (f" at API level {target.api_level}" if target.kind == "shape" else ""))
    row = retrofi_report.Row(target.name, target.kind, "not run", "not run", logs=logs,
                             version=kernel.version)
    try:
        t0 = time.monotonic()
        b = retrofi_build.build(tree, kernel, logs["build"], api_level=target.api_level,
                                jobs=jobs, output_tree=True,
                                defconfig=run_defconfig(tree, kernel, target.api_level,
                                                        drivers))
        row.stages["build"] = time.monotonic() - t0
    except RetrofiError as e:
        row.build, row.reason = "fail", e.format()
        say(target.name, row.reason)
        b = None
    if b is not None:
        say(target.name, b.summary())
        row.build = "ok" if b.ok else "fail"
        row.modules, row.build_seconds = list(b.modules), b.seconds
        if not b.ok:
            row.reason = b.reason
        else:
            row.notes += [f"not selected: {m} ({why})" for m, why in b.off]
            _census(target, b, row)
            which = retrofi_kunit.provider(b.modules, kernel.headers)
            if which:
                row.notes.append(f"KUnit: {which}")
            if target.kind in ("real", retrofi_matrix.BUILD_ONLY) and b.modules:
                _firmware(target, b, kernel, row, tdir)
            if target.kind == retrofi_matrix.BUILD_ONLY:
                lacks = lacked_probes(b.tree)
                row.notes.append("probes: the target lacks " + (", ".join(lacks) or "none")
                                 + f"; {len(row.shims)} shims in force")
    if b is not None and row.build == "ok" and boot:
        try:
            say(target.name, "initramfs")
            t0 = time.monotonic()
            initrd = retrofi_initramfs.build(kernel, b.tree,
                                             config=guest_config(target, mode, b.census, rt, b),
                                             api_level=target.api_level)
            row.stages["initramfs"] = time.monotonic() - t0
            row.initramfs_bytes = initrd.size
            logs["console"] = os.path.join(tdir, "console.log")
            say(target.name, f"boot (timeout {target.boot_timeout} s)")
            r = retrofi_boot.boot(kernel, initrd, logs["console"], timeout=target.boot_timeout,
                                  append=target.kernel_args,
                                  allowed_splats=target.allowed_splats,
                                  accel=accel.name if accel else "tcg",
                                  expected_skips=[(e.test, e.reason)
                                                  for e in target.expected_skips],
                                  name=target.name, store=store, reuse=reuse)
        except RetrofiError as e:
            row.boot, row.reason = "fail", e.format()
            say(target.name, row.reason)
        else:
            row.boot = r.status
            row.accel = r.accel
            if r.rerun:
                row.notes.append(f"rerun under tcg: {r.rerun}")
                say(target.name, f"rerun under tcg: {r.rerun}")
            if r.reused:
                row.boot_reused = r.reused
                note = (f"boot: the stored boot of {r.reused}, whose kernel, initramfs and "
                        f"QEMU are unchanged, judged again (RERUN=1 boots anew)")
                row.notes.append(note)
                say(target.name, note)
            row.tests = _test_rows(r.ktap, target.expected_skips,
                                   retrofi_kunit.expected_sets(tree))
            row.stages.update(guest_stages(logs["console"]))
            if not r.ok:
                row.reason = r.reason
            say(target.name, r.report().splitlines()[0])
    row.seconds = time.monotonic() - started
    return row


def run(matrix, names=None, out_dir=None, report_dir=None, boot=True, cache=None, mode="tests",
        rerun=False):
    """Run the selected targets; write the report; return the rows.

    A row's boot in the "tests" mode is stored by its inputs
    (retrofi_bootcache): an unchanged row is judged from its stored
    console unless rerun.  A stress run always boots."""
    selected = matrix.select(names or None)
    if not selected:
        raise RetrofiError("no targets selected", where=matrix.path,
                           fix="name targets with TARGETS=... or mark some default: true")
    out_dir = out_dir or os.path.join(retrofi_generate.REPO, "out")
    report_dir = report_dir or os.path.join(out_dir, "report")
    kernels = retrofi_kernels.fetch(matrix, [t.name for t in selected], cache=cache)
    rows = {}
    # A kernel the archive lists but does not serve fails its rows alone;
    # one that cannot host the stack at all is refused before any work.
    for t in selected:
        real = matrix.real_target(t)
        if real.name in kernels.unavailable:
            rows[t.name] = failed_row(t, kernels.unavailable[real.name], report_dir)
        elif real.kind != "build":
            row = refused_row(t, kernels.targets[real.name], report_dir)
            if row:
                rows[t.name] = row
    todo = [t for t in selected if t.name not in rows]
    # A build-only row (a family's) is never booted.
    booted = [t for t in todo if t.kind != retrofi_matrix.BUILD_ONLY]
    retrofi_kbuild.add_built(matrix, todo, kernels, cache=cache)
    # One output tree per source the selection builds (a row's source:).
    trees = {}
    for t in todo:
        src = matrix.source_of(t)
        if src.key not in trees:
            gen = retrofi_generate.generate(kernels.sources.get(src.key, kernels.source), out_dir)
            print(gen.summary(), flush=True)
            trees[src.key] = gen.out_path
    accel = None
    if boot and booted:
        first = kernels.targets[matrix.real_target(booted[0]).name]
        accel = retrofi_accel.choose(first, cache=cache)
    ends = matrix.ends()
    store = os.path.join(cache or retrofi_kernels.cache_dir(), "boot") if mode == "tests" \
        else None
    workers = max(1, min(len(todo), os.cpu_count() or 1))
    # The builds share the cores through one make jobserver: a build that
    # runs alone (the last of a matrix, or while the others boot) gets them
    # all.
    jobs = retrofi_build.Jobserver(os.cpu_count() or 1)
    try:
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            futs = {pool.submit(run_target, t, kernels.targets[matrix.real_target(t).name],
                                trees[matrix.source_of(t).key], report_dir,
                                boot and t in booted, jobs, accel, mode,
                                preempt_rt(matrix, t), builds_drivers(matrix, t, ends),
                                store, not rerun): t
                    for t in todo}
            try:
                for fut in retrofi_interrupt.completed(futs):
                    t = futs[fut]
                    rows[t.name] = fut.result()
            except BaseException:
                # Interrupted (or a row's own bug): the rows not started
                # yet never start; the running ones end with their children.
                pool.shutdown(wait=True, cancel_futures=True)
                raise
    finally:
        jobs.close()
    ordered = [rows[t.name] for t in selected]
    retrofi_report.write(ordered, report_dir,
                         accel={"name": accel.name, "reason": accel.reason} if accel else None)
    return ordered
