"""The boot stage: run a target's kernel with an initramfs in QEMU and judge it.

In:  a KernelTree (its vmlinuz), an initramfs (retrofi_initramfs), where to
     write the console log, a timeout (the matrix's boot_timeout) and the
     target's allowed splats.
Out: a BootResult: "pass", "fail" or "timeout", why, the parsed KTAP, the
     kernel splats, the console log path and the last console lines.

QEMU runs with the accelerator the caller chose (retrofi_accel proves KVM
with a real probe boot first; TCG by default).  Under KVM the console is
watched for faults of the machine (KVM_FAULT_RE, or silence after the
firmware): such a boot is killed and run once more under TCG, and the
result names the fault (.rerun).  The guest has no network device
and powers itself off when its tests are done; a guest that does not is
killed at the timeout.  The verdict comes from the guest's KTAP and the
splat scan of the whole log, never from QEMU's exit status.  Given a store
(retrofi_bootcache), a boot whose inputs are all unchanged is not run
again: its stored console is judged, and the result says when it ran.
"""

import dataclasses
import os
import re
import shutil
import signal
import subprocess
import time
from typing import Optional, Tuple

import retrofi_bootcache
import retrofi_ktap
import retrofi_progress
from retrofi_errors import RetrofiError

DEFAULT_TIMEOUT = 180
TAIL_LINES = 30
QEMU = "qemu-system-x86_64"
# Console: warnings and worse (level <= 4) live, so a splat is on the console
# even when the guest hangs; the guest dumps the full dmesg when done. That
# dump must reach back to the boot ("Run /init as init process": the
# report's boot and tests stages): Debian's 128 KiB log buffer
# (CONFIG_LOG_BUF_SHIFT=17) wraps before a row with iwlwifi's KUnit suites
# is done, so the buffer is 4 MiB.
KERNEL_ARGS = "console=ttyS0 panic=-1 oops=panic loglevel=5 printk.time=1 " \
              "log_buf_len=4M hung_task_timeout_secs=30 softlockup_panic=0"


@dataclasses.dataclass(frozen=True)
class BootResult:
    target: str
    status: str                    # "pass" | "fail" | "timeout"
    reason: str
    seconds: float
    log: str                       # the console log file
    accel: str
    exit_code: Optional[int]       # QEMU's (None when killed at the timeout)
    ktap: retrofi_ktap.KtapResult
    splats: Tuple[retrofi_ktap.Splat, ...]
    tail: Tuple[str, ...]          # the last console lines
    rerun: str = ""                # the machine fault that made it rerun under TCG
    reused: str = ""               # when the stored boot of the same inputs ran
                                   # (retrofi_bootcache; "": booted now)

    @property
    def ok(self):
        return self.status == "pass"

    def report(self):
        """A human summary: verdict, failures with their diagnostics, splats."""
        how = self.accel + (f"; the stored boot of {self.reused}, inputs unchanged"
                            if self.reused else "")
        out = [f"target {self.target}: {self.status.upper()} ({self.reason}) "
               f"in {self.seconds:.1f} s [{how}]; console log: {self.log}"]
        if self.rerun:
            out.append(f"  rerun under tcg: {self.rerun} (first console: {self.log}.kvm-fault)")
        for t in self.ktap.failures:
            out.append(f"  not ok {t.number} {t.name}")
            out += [f"    # {d}" for d in t.diagnostics[-10:]]
        for s in self.splats:
            tag = f"allowed: {s.allowed}" if s.allowed else "splat"
            out.append(f"  {tag} ({s.kind}) at log line {s.line}:")
            out += [f"    {l}" for l in s.text]
        if self.status == "timeout" or not self.ktap.complete:
            out.append("  last console lines:")
            out += [f"    {l}" for l in self.tail]
        return "\n".join(out)


# What a fault of the machine looks like under KVM: QEMU's own message when
# the host cannot emulate an instruction for the guest ("KVM internal
# error"), refuses an MSR of `-cpu max` (QEMU aborts at once: "failed to set
# MSR 0x10a to 0x69"), or cannot enter the guest any more, even after the
# kernel has started ("KVM: entry failed, hardware error 0x80000021": the
# guest is stopped and would only end at the timeout).  None of them is a
# test result: the boot is rerun under TCG.
KVM_FAULT_RE = re.compile(r"KVM internal error\.?[^\n]*|kvm run failed[^\n]*|"
                          r"Could not access KVM kernel module[^\n]*|failed to set MSR[^\n]*|"
                          r"KVM: entry failed, hardware error 0x[0-9a-fA-F]+")
# The first sign that the kernel runs (the console replays the log from here).
KERNEL_STARTED_RE = re.compile(r"Linux version \d|^(?:<\d+>)?\[\s*\d+\.\d+\]", re.M)
# Under KVM a kernel prints within seconds; silence this long after QEMU
# started is a machine that hangs after the firmware.
KVM_SILENCE_DEADLINE = 60


@dataclasses.dataclass(frozen=True)
class QemuRun:
    code: Optional[int]    # QEMU's exit status (None when killed)
    timed_out: bool
    fault: str             # a fault of the machine seen on the console, or ""
    seconds: float
    text: str              # the console log


# The guest's top-level KTAP plan and results start their console lines;
# the nested subtests are indented and kernel messages carry a timestamp.
TOP_PLAN_RE = re.compile(r"^1\.\.(\d+)\r?$", re.M)
TOP_RESULT_RE = re.compile(r"^(?:not )?ok \d+\b", re.M)


def guest_progress(text):
    """"N of M guest tests done" from the console so far, or None before
    the guest has printed its plan."""
    m = TOP_PLAN_RE.search(text)
    if not m:
        return None
    return f"{len(TOP_RESULT_RE.findall(text, m.end()))} of {m.group(1)} guest tests done"


def _console_progress(name, log_path, stream=None, every=None):
    def read(_seconds):
        with open(log_path, "rb") as f:
            return guest_progress(f.read().decode("utf-8", errors="replace"))
    return retrofi_progress.ticker(f"[boot] {name}:", read, stream, every)


def console_lines(text):
    return [l.strip() for l in text.replace("\r", "").split("\n")]


def _kvm_fault(text, seconds):
    m = KVM_FAULT_RE.search(text)
    if m:
        return " ".join(m.group(0).split())
    if seconds > KVM_SILENCE_DEADLINE and not KERNEL_STARTED_RE.search(text):
        return f"nothing on the console after the firmware within {KVM_SILENCE_DEADLINE} s"
    return ""


PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """In QEMU's child before exec: SIGKILL when the thread that started it
    dies, so a run that is itself killed (SIGKILL: no cleanup runs) leaves
    no QEMU behind.  QEMU runs in a session of its own (start_new_session),
    so nothing else would stop it."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def run_qemu(argv, log_path, timeout, watch_kvm=False, until=None):
    """Run QEMU with the console in log_path until it exits or timeout.

    watch_kvm: kill it as soon as the console shows a fault of the machine
    (KVM_FAULT_RE, or silence after the firmware), reported in .fault.
    until: stop as soon as a console line equals this marker (the probe).
    """
    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    started = time.monotonic()
    timed_out, fault, code = False, "", None
    with open(log_path, "wb") as logf:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=_die_with_parent)
        try:
            while True:
                try:
                    code = proc.wait(timeout=0.5)
                    break
                except subprocess.TimeoutExpired:
                    pass
                seconds = time.monotonic() - started
                if watch_kvm or until:
                    text = open(log_path, "rb").read().decode("utf-8", errors="replace")
                    if until and until in console_lines(text):
                        break
                    if watch_kvm:
                        fault = _kvm_fault(text, seconds)
                        if fault:
                            break
                if seconds > timeout:
                    timed_out = True
                    break
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
                code = None if code is None else code
    text = open(log_path, "rb").read().decode("utf-8", errors="replace")
    if watch_kvm and not fault:
        m = KVM_FAULT_RE.search(text)
        fault = " ".join(m.group(0).split()) if m else ""
    return QemuRun(code, timed_out and not fault, fault, time.monotonic() - started, text)


def qemu_argv(kernel, initrd, append="", memory=1024, qemu=QEMU, accel=None):
    """QEMU's argv; accel: extra accelerator arguments (default TCG)."""
    accel = accel if accel is not None else ["-accel", "tcg"]
    # pci-testdev (1b36:0005, no guest driver): a PCI device with memory
    # and I/O BARs that the compat selftest binds to exercise the PCI
    # shims of a driver's probe.
    return [qemu, *accel, "-cpu", "max", "-m", str(memory), "-nic", "none",
            "-device", "pci-testdev", "-nographic", "-no-reboot",
            "-kernel", kernel, "-initrd", initrd,
            "-append", f"{KERNEL_ARGS} {append}".strip()]


def _declared(expected_skips):
    """{test path: reason} of expected_skips ((test, reason) pairs or the
    matrix's ExpectedSkip records)."""
    return {getattr(e, "test", None) or e[0]: getattr(e, "reason", None) or e[1]
            for e in expected_skips}


def unexpected_skips(ktap, expected_skips=()):
    """The skips (top level or nested, as "parent/name") that the target
    does not declare, each as (path, directive)."""
    declared = _declared(expected_skips)
    return [(path, d) for path, d in retrofi_ktap.skips(ktap) if path not in declared]


def _find(ktap, path):
    """The test at path ("name" or "parent/name") in ktap, or None."""
    head, _, rest = path.partition("/")
    for t in ktap.tests:
        if t.name == head:
            if not rest:
                return t
            return _find(t.subtests, rest) if t.subtests is not None else None
    return None


def skip_reason(directive):
    """The reason of a "SKIP reason" directive."""
    return directive[4:].strip() if directive.upper().startswith("SKIP") else directive


def declared_skips_not_taken(ktap, expected_skips=()):
    """The declared skips whose top-level test ran but that did not skip
    with the declared reason, each as (path, what happened instead).

    A declared skip is a claim about the guest: the case skips, and why.
    One that passed, failed, went missing from its parent's results or
    skipped for another reason is a result the target did not expect. A
    declared skip whose top-level test is not in the log at all (a mode
    that runs other tests, such as stress) is not judged here; a guest
    that died early fails for that already.
    """
    out = []
    for path, reason in _declared(expected_skips).items():
        top = path.partition("/")[0]
        if _find(ktap, top) is None:
            continue
        t = _find(ktap, path)
        if t is None:
            out.append((path, "not in the results"))
        elif t.status != "skip":
            out.append((path, "passed" if t.status == "ok" else "failed"))
        elif skip_reason(t.directive) != reason:
            out.append((path, f"skipped for another reason: {skip_reason(t.directive)!r}, "
                              f"declared {reason!r}"))
    return sorted(out)


# The guest's leak scan on a kernel with kmemleak (tests/guest/init): the
# report between these lines, or the line that says the scan failed.
KMEMLEAK_BEGIN = "---- kmemleak report"
KMEMLEAK_END = "---- end of kmemleak report"
KMEMLEAK_FAILED = "kmemleak: scan failed"


def has_kmemleak(kernel):
    """Whether kernel (a KernelTree) was built with kmemleak: its guest must
    then print a leak scan (judge(kmemleak=True))."""
    try:
        with open(os.path.join(kernel.headers, ".config")) as f:
            return any(l.strip() == "CONFIG_DEBUG_KMEMLEAK=y" for l in f)
    except (OSError, TypeError):
        return False


def kmemleak_problem(text):
    """Why a console log holds no complete kmemleak scan, or ""."""
    lines = [l for l in console_lines(text) if not retrofi_ktap.KERNEL_LINE.match(l)]
    if KMEMLEAK_FAILED in lines:
        return f"no leak scan: the guest said '{KMEMLEAK_FAILED}'"
    if KMEMLEAK_BEGIN not in lines:
        return (f"no leak scan: the kernel has kmemleak but the guest printed no "
                f"'{KMEMLEAK_BEGIN}' (debugfs or /sys/kernel/debug/kmemleak missing?)")
    if KMEMLEAK_END not in lines[lines.index(KMEMLEAK_BEGIN):]:
        return f"no leak scan: the kmemleak report has no '{KMEMLEAK_END}'"
    return ""


def judge(text, allowed_splats=(), timed_out=False, expected_skips=(), kmemleak=False):
    """(status, reason, ktap, splats) for a console log.

    A skip is never a pass: a skipped test or subtest fails the boot unless
    the target declares it (expected_skips: (test path, reason) pairs), and
    a declared skip that did not happen, or happened for another reason,
    fails it too. kmemleak: the kernel has kmemleak, so the log must hold
    the guest's complete leak scan (a debug row never passes without one).
    """
    ktap = retrofi_ktap.parse(text)
    splats = retrofi_ktap.scan_splats(text, allowed_splats)
    fatal = retrofi_ktap.fatal_splats(splats)
    if timed_out:
        # The results so far; not the parser's "died early", since the
        # guest was stopped, not dead.
        reason = "guest did not power off before the timeout"
        if ktap.version is not None:
            c = ktap.counts()
            reason += (f" ({c['ok']} passed, {c['not ok']} failed, {c['skip']} skipped of "
                       f"{ktap.plan if ktap.plan is not None else '?'} planned)")
        return "timeout", reason, ktap, splats
    reasons = []
    if ktap.version is None or ktap.plan is None:
        reasons.append("guest died early: no KTAP plan")
    elif len(ktap.tests) < ktap.plan:
        reasons.append(f"guest died early: {len(ktap.tests)} of {ktap.plan} results")
    elif ktap.errors:
        reasons.append("malformed KTAP: " + "; ".join(ktap.errors))
    if ktap.failures:
        reasons.append("failed: " + ", ".join(f"{t.number} {t.name}" for t in ktap.failures))
    skipped = unexpected_skips(ktap, expected_skips)
    if skipped:
        reasons.append("skipped, and not declared as an expected skip of this target: " +
                       ", ".join(f"{p} ({d})" for p, d in skipped))
    not_taken = declared_skips_not_taken(ktap, expected_skips)
    if not_taken:
        reasons.append("declared as an expected skip of this target, but " +
                       ", ".join(f"{p}: {what}" for p, what in not_taken))
    if kmemleak and kmemleak_problem(text):
        reasons.append(kmemleak_problem(text))
    if fatal:
        reasons.append("kernel splat: " + "; ".join(
            f"{s.kind} at line {s.line}: {retrofi_ktap.KERNEL_LINE.sub('', s.text[0]).strip()}"
            for s in fatal[:3]))
    if reasons:
        return "fail", "; ".join(reasons), ktap, splats
    return "pass", ktap.summary(), ktap, splats


def _accel_name(accel):
    name = getattr(accel, "name", accel) or "tcg"
    if name not in ("kvm", "tcg"):
        raise ValueError(f"unknown accelerator {name!r}")
    return name


def boot(target, initrd, log_path, timeout=DEFAULT_TIMEOUT, allowed_splats=(), append="",
         memory=1024, accel="tcg", expected_skips=(), progress=None, name=None, store=None,
         reuse=True):
    """Boot target.image with initrd; the console goes to log_path.

    target: a retrofi_kernels.KernelTree; initrd: a path or an Initramfs.
    allowed_splats: (regex, reason) pairs, or the matrix's AllowedSplat records.
    accel: "tcg" or "kvm" (or a retrofi_accel.Accel).  Under KVM a fault of
    the machine (KVM internal error, silence after the firmware) is not a
    test result: the boot is run again, once, under TCG, and the result
    says so in .rerun.  While it runs, a line tells how many of the
    guest's planned tests are done (on progress, a stream; default stdout).
    name: the matrix row booted (a shape's, not its base kernel's), which
    the progress lines and the result carry (default: the kernel's).
    store: a directory of finished boots (retrofi_bootcache).  A boot of
    the same kernel, initramfs, QEMU and arguments found there is not run
    again: its console is judged anew and the result says when it ran
    (.reused); a boot that runs is stored there.  None: always boot.
    reuse: False boots even when the store has the boot (and replaces it).
    """
    initrd = getattr(initrd, "path", initrd)
    qemu = shutil.which(QEMU)
    if not qemu:
        raise RetrofiError(f"{QEMU} not found", fix="apt-get install qemu-system-x86 "
                                                    "(scripts/bootstrap installs it)")
    if not target.image or not os.path.isfile(target.image):
        raise RetrofiError(f"target {target.name} has no kernel image to boot",
                           where=target.image or target.root,
                           fix="check the target's image: package (it must ship boot/vmlinuz-*)")
    if not os.path.isfile(initrd):
        raise RetrofiError("the initramfs is missing", where=initrd,
                           fix="build it with retrofi_initramfs.build()")
    allowed = [(a.match, f"{a.reason} ({a.link})" if a.link else a.reason)
               if hasattr(a, "match") else tuple(a) for a in allowed_splats]
    accel_name = _accel_name(accel)
    rerun = reused = ""
    argv = qemu_argv(target.image, initrd, append, memory, qemu, ["-accel", accel_name])
    key = retrofi_bootcache.key(argv, {target.image, initrd}, timeout) if store else ""
    stored = retrofi_bootcache.load(store, key) if store and reuse else None
    if stored:
        retrofi_bootcache.restore(stored, store, log_path)
        run = QemuRun(stored.code, stored.timed_out, "", stored.seconds, stored.text)
        rerun, accel_name, reused = stored.rerun, stored.accel, stored.when
    else:
        with _console_progress(name or target.name, log_path, progress):
            run = run_qemu(argv, log_path, timeout, watch_kvm=accel_name == "kvm")
            if run.fault:
                rerun = run.fault
                os.replace(log_path, log_path + ".kvm-fault")
                accel_name = "tcg"
                argv = qemu_argv(target.image, initrd, append, memory, qemu, ["-accel", "tcg"])
                first = run.seconds
                run = run_qemu(argv, log_path, timeout)
                run = dataclasses.replace(run, seconds=run.seconds + first)
        if store:
            retrofi_bootcache.save(store, key, log_path, run.seconds, run.code, run.timed_out,
                                   accel_name, rerun)
    status, reason, ktap, splats = judge(run.text, allowed, run.timed_out, expected_skips,
                                         kmemleak=has_kmemleak(target))
    if status == "pass" and run.code != 0:
        status, reason = "fail", f"QEMU exited {run.code} after the tests passed"
    lines = [l for l in run.text.replace("\r", "").split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    return BootResult(name or target.name, status, reason, run.seconds, log_path, accel_name,
                      run.code, ktap, tuple(splats), tuple(lines[-TAIL_LINES:]), rerun,
                      reused)
