"""The boot stage: run a target's kernel with an initramfs in QEMU and judge it.

In:  a KernelTree (its vmlinuz), an initramfs (retrofi_initramfs), where to
     write the console log, a timeout (the matrix's boot_timeout) and the
     target's allowed splats.
Out: a BootResult: "pass", "fail" or "timeout", why, the parsed KTAP, the
     kernel splats, the console log path and the last console lines.

QEMU runs with TCG (`-accel tcg -cpu max`); KVM is used only when a
stopped KVM guest can be created here (see kvm_usable), never required
(RETROFI_ACCEL=tcg forces TCG).  The guest has no network device
and powers itself off when its tests are done; a guest that does not is
killed at the timeout.  The verdict comes from the guest's KTAP and the
splat scan of the whole log, never from QEMU's exit status.
"""

import dataclasses
import os
import shutil
import subprocess
import time
from typing import Optional, Tuple

import retrofi_ktap
from retrofi_errors import RetrofiError

DEFAULT_TIMEOUT = 180
TAIL_LINES = 30
QEMU = "qemu-system-x86_64"
# Console: warnings and worse (level <= 4) live, so a splat is on the console
# even when the guest hangs; the guest dumps the full dmesg when done.
KERNEL_ARGS = "console=ttyS0 panic=-1 oops=panic loglevel=5 printk.time=1 " \
              "hung_task_timeout_secs=30 softlockup_panic=0"


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

    @property
    def ok(self):
        return self.status == "pass"

    def report(self):
        """A human summary: verdict, failures with their diagnostics, splats."""
        out = [f"target {self.target}: {self.status.upper()} ({self.reason}) "
               f"in {self.seconds:.1f} s [{self.accel}]; console log: {self.log}"]
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


_KVM = {}


def kvm_usable(qemu=QEMU):
    """Whether QEMU can run a -cpu max guest with KVM here (checked once).

    /dev/kvm opening is not enough: nested hypervisors may refuse the MSRs
    of -cpu max, which QEMU only finds when it resets the vCPU.  So QEMU is
    started stopped (-S) with KVM and asked to quit: exit 0 means usable.
    """
    if qemu in _KVM:
        return _KVM[qemu]
    ok = False
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
        p = subprocess.run([qemu, "-accel", "kvm", "-cpu", "max", "-m", "64", "-nodefaults",
                            "-display", "none", "-S", "-monitor", "stdio"], input="quit\n",
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
                           timeout=30)
        ok = p.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    _KVM[qemu] = ok
    return ok


def accel_args(qemu=QEMU):
    """(argv, name): KVM when it demonstrably works here, else TCG."""
    if os.environ.get("RETROFI_ACCEL", "") != "tcg" and kvm_usable(qemu):
        return ["-accel", "kvm"], "kvm"
    return ["-accel", "tcg"], "tcg"


def qemu_argv(kernel, initrd, append="", memory=1024, qemu=QEMU, accel=None):
    accel = accel if accel is not None else accel_args()[0]
    return [qemu, *accel, "-cpu", "max", "-m", str(memory), "-nic", "none",
            "-nographic", "-no-reboot",
            "-kernel", kernel, "-initrd", initrd,
            "-append", f"{KERNEL_ARGS} {append}".strip()]


def judge(text, allowed_splats=(), timed_out=False):
    """(status, reason, ktap, splats) for a console log."""
    ktap = retrofi_ktap.parse(text)
    splats = retrofi_ktap.scan_splats(text, allowed_splats)
    fatal = retrofi_ktap.fatal_splats(splats)
    if timed_out:
        reason = "guest did not power off before the timeout"
        if ktap.version is not None:
            reason += f" ({ktap.summary()})"
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
    if fatal:
        reasons.append("kernel splat: " + "; ".join(
            f"{s.kind} at line {s.line}: {retrofi_ktap.KERNEL_LINE.sub('', s.text[0]).strip()}"
            for s in fatal[:3]))
    if reasons:
        return "fail", "; ".join(reasons), ktap, splats
    return "pass", ktap.summary(), ktap, splats


def boot(target, initrd, log_path, timeout=DEFAULT_TIMEOUT, allowed_splats=(), append="",
         memory=1024):
    """Boot target.image with initrd; the console goes to log_path.

    target: a retrofi_kernels.KernelTree; initrd: a path or an Initramfs.
    allowed_splats: (regex, reason) pairs, or the matrix's AllowedSplat records.
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
    allowed = [(a.match, a.reason) if hasattr(a, "match") else tuple(a) for a in allowed_splats]
    accel, accel_name = accel_args(qemu)
    argv = qemu_argv(target.image, initrd, append, memory, qemu, accel)
    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    started = time.monotonic()
    timed_out = False
    with open(log_path, "wb") as logf:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.kill()
            proc.wait()
            code = None
        except BaseException:
            proc.kill()
            proc.wait()
            raise
    seconds = time.monotonic() - started
    text = open(log_path, "rb").read().decode("utf-8", errors="replace")
    status, reason, ktap, splats = judge(text, allowed, timed_out)
    if status == "pass" and code != 0:
        status, reason = "fail", f"QEMU exited {code} after the tests passed"
    lines = [l for l in text.replace("\r", "").split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    return BootResult(target.name, status, reason, seconds, log_path, accel_name, code, ktap,
                      tuple(splats), tuple(lines[-TAIL_LINES:]))
