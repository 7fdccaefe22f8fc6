"""The accelerator stage: which QEMU accelerator this machine can really use.

In:  a KernelTree to probe with (any bootable target kernel) and
     RETROFI_ACCEL (auto | kvm | tcg; default auto).
Out: an Accel record: "kvm" or "tcg", and why.

KVM is used only after proof.  `/dev/kvm` opening, or a stopped (-S) KVM
guest quitting cleanly, proves nothing under a nested hypervisor: there
every real guest may die after the firmware ("KVM internal error.
Suberror: 1 ... emulation failure") or hang silently.  So the probe is a
real boot: the kernel with a one-line /init that prints PROBE_MARKER and
powers off, under KVM, within PROBE_DEADLINE seconds.  Anything else (QEMU
refusing to start, the error above, silence) is a "no" with the reason
quoted from the console.

The verdict is kept for the run and in <cache>/accel/, keyed by the host
kernel, QEMU's version and the QEMU binary's digest, so it is probed once
per machine setup.  Only a finished probe is cached: an error of our own
(no initramfs) raises instead.

  RETROFI_ACCEL=auto  KVM if the probe proves it, else TCG (the default)
  RETROFI_ACCEL=tcg   TCG, no probe
  RETROFI_ACCEL=kvm   KVM; if the probe fails, one clear error
"""

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading

import retrofi_boot
import retrofi_initramfs
import retrofi_kernels
from retrofi_errors import RetrofiError

PROBE_MARKER = "RETROFI-ACCEL-PROBE-REACHED-USERSPACE"
PROBE_DEADLINE = 45
PROBE_ARG = "retrofi.accel_probe=1"
PROBE_INIT = f"#!/bin/sh\necho {PROBE_MARKER} >/dev/console && poweroff -f\n"
CHOICES = ("auto", "kvm", "tcg")


@dataclasses.dataclass(frozen=True)
class Accel:
    name: str              # "kvm" | "tcg"
    reason: str            # why this one
    cached: bool = False   # the verdict came from <cache>/accel/

    def describe(self):
        return f"{self.name} ({self.reason}{'; cached verdict' if self.cached else ''})"


def requested():
    """RETROFI_ACCEL, checked."""
    value = os.environ.get("RETROFI_ACCEL", "").strip() or "auto"
    if value not in CHOICES:
        raise RetrofiError(f"RETROFI_ACCEL={value} is not an accelerator retrofi knows",
                           where="RETROFI_ACCEL", fix="set it to auto, kvm or tcg (or unset it)")
    return value


def _qemu():
    qemu = shutil.which(retrofi_boot.QEMU)
    if not qemu:
        raise RetrofiError(f"{retrofi_boot.QEMU} not found",
                           fix="apt-get install qemu-system-x86 (scripts/bootstrap installs it)")
    return qemu


def machine_key(qemu):
    """(key, facts): the host kernel, QEMU's version and its binary's digest."""
    try:
        version = subprocess.run([qemu, "--version"], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RetrofiError(f"cannot run {qemu} --version: {e}", where=qemu,
                           fix="reinstall qemu-system-x86")
    version = (version.strip().splitlines() or ["?"])[0]
    with open(os.path.realpath(qemu), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    facts = {"host_kernel": os.uname().release, "qemu": version, "qemu_path": qemu,
             "qemu_sha256": digest}
    key = hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:20]
    return key, facts


def probe(kernel, qemu, cache):
    """(ok, reason): one real KVM boot of kernel to a userspace marker."""
    with tempfile.TemporaryDirectory(prefix="accel-probe-") as tmp:
        init = os.path.join(tmp, "init")
        with open(init, "w") as f:
            f.write(PROBE_INIT)
        initrd = retrofi_initramfs.build(kernel, None, cache=cache, init=init)
        log = os.path.join(tmp, "console.log")
        argv = retrofi_boot.qemu_argv(kernel.image, initrd.path, PROBE_ARG, 256, qemu,
                                      ["-accel", "kvm"])
        run = retrofi_boot.run_qemu(argv, log, PROBE_DEADLINE, watch_kvm=True,
                                    until=PROBE_MARKER)
        text = run.text
    if PROBE_MARKER in retrofi_boot.console_lines(text):
        return True, f"a KVM probe boot reached userspace in {run.seconds:.1f} s"
    if run.fault:
        return False, f"KVM probe boot: {run.fault}"
    if run.timed_out:
        return False, f"KVM probe boot did not reach userspace within {PROBE_DEADLINE} s"
    last = [l for l in text.replace("\r", "").splitlines() if l.strip()][-1:] or ["no output"]
    return False, f"KVM probe boot: QEMU exited {run.code}: {last[0].strip()[:200]}"


_lock = threading.Lock()
_verdicts = {}


def choose(kernel, cache=None, say=print):
    """The accelerator for this run's boots (probed once, printed once)."""
    want = requested()
    if want == "tcg":
        return Accel("tcg", "RETROFI_ACCEL=tcg")
    qemu = _qemu()
    cache = cache or retrofi_kernels.cache_dir()
    with _lock:
        key, facts = machine_key(qemu)
        verdict = _verdicts.get(key)
        if verdict is None:
            path = os.path.join(cache, "accel", f"{key}.json")
            try:
                data = json.load(open(path))
                verdict = Accel(data["accel"], data["reason"], cached=True)
            except (OSError, ValueError, KeyError):
                say(f"accel: probing KVM with a real boot of {kernel.kernelrelease} "
                    f"(deadline {PROBE_DEADLINE} s)")
                ok, reason = probe(kernel, qemu, cache)
                verdict = Accel("kvm" if ok else "tcg", reason)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                tmp = f"{path}.tmp{os.getpid()}"
                with open(tmp, "w") as f:
                    json.dump(dict(facts, accel=verdict.name, reason=reason), f, indent=1)
                os.replace(tmp, path)
            _verdicts[key] = verdict
            say(f"accel: {verdict.describe()}")
    if want == "kvm" and verdict.name != "kvm":
        raise RetrofiError(f"RETROFI_ACCEL=kvm, but KVM cannot boot a guest here: {verdict.reason}",
                           where=qemu, fix="unset RETROFI_ACCEL (auto falls back to TCG) "
                                           "or set RETROFI_ACCEL=tcg")
    if want == "kvm":
        return Accel("kvm", f"RETROFI_ACCEL=kvm; {verdict.reason}", verdict.cached)
    return verdict
