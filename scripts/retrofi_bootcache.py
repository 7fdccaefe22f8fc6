"""The boot stage's store: the console of a finished boot, by its inputs.

A boot is keyed by everything the guest sees: the bytes of the kernel
image, of the initramfs (the backport's modules, the guest tests, their
config), of the QEMU binary and its firmware, and QEMU's argv with those three paths
replaced by their digests (memory, accelerator, kernel command line), and
the timeout.  A boot whose key is stored is not run again: its console is
copied back and judged afresh by the caller (retrofi_boot.judge), so a
change to the judge (an allowed splat, a declared skip) takes effect on a
stored console.  Every finished boot is stored, whatever its verdict: a
failure stays a failure until an input changes or the caller asks for a
new boot (`make matrix RERUN=1`); nothing here retries.

Layout: <cache>/boot/<key>/console.log, meta.json (when the boot ran, its
seconds, QEMU's exit code, whether it was killed at the timeout, the
accelerator it really ran under and the machine fault that made it rerun
under TCG), and console.log.kvm-fault for such a rerun's first console.
"""

import dataclasses
import datetime
import hashlib
import json
import os
import shutil
from typing import Optional

import retrofi_fs

# Bumped when what a key covers, or the entry's layout, changes.
FORMAT = 1
META = "meta.json"
# The firmware QEMU runs before the kernel (Debian's seabios, and the
# option ROMs of -kernel's direct boot of qemu-system-data): part of the
# machine, like the binary.
FIRMWARE = ("/usr/share/seabios/bios-256k.bin", "/usr/share/qemu/linuxboot_dma.bin",
            "/usr/share/qemu/kvmvapic.bin")


@dataclasses.dataclass(frozen=True)
class Stored:
    """A finished boot read back from the store."""
    key: str
    when: str                  # when the boot ran (UTC, ISO 8601)
    seconds: float             # how long it took then
    code: Optional[int]        # QEMU's exit status (None: killed)
    timed_out: bool
    accel: str                 # the accelerator it ran under
    rerun: str                 # the machine fault it was rerun under TCG for, or ""
    text: str                  # the console


# Digests of files already read in this process, by path, size, mtime, inode.
_DIGESTS = {}


def _file_digest(path):
    st = os.stat(path)
    ident = (os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ino)
    if ident not in _DIGESTS:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _DIGESTS[ident] = h.hexdigest()
    return _DIGESTS[ident]


def key(argv, files, timeout):
    """The key of a boot: argv (QEMU's, argv[0] its binary) with each path
    of files (the kernel image, the initramfs) and the binary replaced by
    the digest of its bytes, QEMU's firmware, and the timeout."""
    qemu = shutil.which(argv[0]) or argv[0]
    words = [f"qemu:{_file_digest(qemu)}"]
    words += [f"firmware:{_file_digest(f)}" for f in FIRMWARE if os.path.exists(f)]
    for a in argv[1:]:
        words.append(f"file:{_file_digest(a)}" if a in files else a)
    data = json.dumps({"format": FORMAT, "argv": words, "timeout": timeout})
    return hashlib.sha256(data.encode()).hexdigest()[:32]


def _entry(store, k):
    return os.path.join(store, k)


def load(store, k):
    """The stored boot of key k, or None."""
    d = _entry(store, k)
    try:
        meta = json.load(open(os.path.join(d, META)))
        text = open(os.path.join(d, "console.log"), "rb").read().decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    if meta.get("format") != FORMAT:
        return None
    return Stored(k, meta["when"], meta["seconds"], meta["code"], meta["timed_out"],
                  meta["accel"], meta["rerun"], text)


def restore(stored, store, log_path):
    """Write the stored console (and a rerun's first console) to log_path."""
    d = _entry(store, stored.key)
    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    shutil.copyfile(os.path.join(d, "console.log"), log_path)
    if os.path.exists(os.path.join(d, "console.log.kvm-fault")):
        shutil.copyfile(os.path.join(d, "console.log.kvm-fault"), log_path + ".kvm-fault")


def save(store, k, log_path, seconds, code, timed_out, accel, rerun):
    """Store the finished boot whose console is log_path; returns when it ran."""
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    os.makedirs(store, exist_ok=True)
    retrofi_fs.clean_stale(store, ".partial-")
    tmp = os.path.join(store, f".partial-{os.getpid()}-{k}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        shutil.copyfile(log_path, os.path.join(tmp, "console.log"))
        if rerun and os.path.exists(log_path + ".kvm-fault"):
            shutil.copyfile(log_path + ".kvm-fault", os.path.join(tmp, "console.log.kvm-fault"))
        with open(os.path.join(tmp, META), "w") as f:
            json.dump({"format": FORMAT, "when": when, "seconds": round(seconds, 1),
                       "code": code, "timed_out": timed_out, "accel": accel,
                       "rerun": rerun}, f, indent=1)
        final = _entry(store, k)
        # A new boot of the same inputs (RERUN=1) replaces the old one.
        shutil.rmtree(final, ignore_errors=True)
        retrofi_fs.publish_once(tmp, final, stamp=META)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return when
