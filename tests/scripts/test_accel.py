"""KVM only after proof, and a fault of the machine is never a test result.

A stand-in QEMU (tests/scripts/fakes/qemu-system-x86_64) acts out the
machines where /dev/kvm opens but no guest runs: after SeaBIOS it prints
"KVM internal error. Suberror: 1 ... emulation failure" and hangs, or it
hangs silently.  Under TCG it is the real QEMU, so what runs there is a
real boot.  The end-to-end runs through the matrix runner are in
test_matrix_run.py.
"""

import os
import shutil

import pytest

import retrofi_accel
import retrofi_boot
import retrofi_initramfs
from conftest import REPO, oldest_default_real, private_cache
from faultcheck import saw
from retrofi_errors import RetrofiError

FAKE = os.path.join(REPO, "tests", "scripts", "fakes", "qemu-system-x86_64")
FIXTURES = os.path.join(REPO, "tests", "guest", "fixtures")


def fake_qemu(tmp_path, monkeypatch, mode):
    """Put the stand-in first on PATH (a fresh copy: its own verdict key),
    with a cache of its own for the verdicts."""
    real = shutil.which("qemu-system-x86_64")
    assert real, "qemu-system-x86 is installed by scripts/bootstrap"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy(FAKE, bindir / "qemu-system-x86_64")
    calls = tmp_path / "qemu-calls"
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    monkeypatch.setenv("REAL_QEMU", real)
    monkeypatch.setenv("FAKE_QEMU_MODE", mode)
    monkeypatch.setenv("FAKE_QEMU_CALLS", str(calls))
    monkeypatch.setattr(retrofi_accel, "_verdicts", {})
    monkeypatch.setenv("RETROFI_CACHE", private_cache(tmp_path / "cache"))
    return calls


def boots(calls):
    """The calls of the stand-in that booted a kernel (not --version)."""
    return [l for l in calls.read_text().splitlines() if "-kernel" in l] if calls.exists() else []


# ---------------------------------------------------------------- no network

def test_an_unknown_retrofi_accel_is_one_clear_error(monkeypatch):
    monkeypatch.setenv("RETROFI_ACCEL", "hvf")
    with pytest.raises(RetrofiError) as e:
        retrofi_accel.choose(None)
    assert "RETROFI_ACCEL=hvf" in e.value.what and "auto, kvm or tcg" in e.value.fix


def test_forced_tcg_boots_without_a_probe(monkeypatch, tmp_path):
    monkeypatch.setenv("RETROFI_ACCEL", "tcg")
    monkeypatch.setenv("PATH", str(tmp_path))      # no QEMU at all: nothing is run
    a = retrofi_accel.choose(None)
    assert (a.name, a.reason) == ("tcg", "RETROFI_ACCEL=tcg")


def test_qemu_runs_under_tcg_unless_told_otherwise():
    argv = retrofi_boot.qemu_argv("k", "i")
    assert argv[1:3] == ["-accel", "tcg"] and "kvm" not in argv
    for opt in ("-nographic", "-no-reboot", "-cpu", "max", "-nic", "none"):
        assert opt in argv
    # the compat selftest's PCI device
    assert argv[argv.index("-device") + 1] == "pci-testdev"
    assert "panic=-1" in argv[argv.index("-append") + 1]


@pytest.mark.parametrize("console,fault", [
    ("qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69\n"
     "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3217: kvm_buf_set_msrs: Assertion "
     "`ret == cpu->kvm_msr_buf->nmsrs' failed.\n", "failed to set MSR 0x10a to 0x69"),
    ("SeaBIOS (version 1.16.2-debian-1.16.2-1)\nBooting from ROM..\n"
     "[    0.000000] Linux version 6.12.48+deb12-amd64\n[    1.204000] Run /init as init process\n"
     "KTAP version 1\n1..12\nKVM: entry failed, hardware error 0x80000021\n\n"
     "EAX=00000000 EBX=00000000\n", "KVM: entry failed, hardware error 0x80000021")],
    ids=["msr-abort", "entry-failed-after-the-kernel-started"])
def test_a_fault_of_the_machine_is_named_from_the_console(console, fault):
    """QEMU's own words for a machine fault; a kernel that had started does
    not make one a test result."""
    assert retrofi_boot._kvm_fault(console, 1.0) == fault


def test_a_guest_that_prints_nothing_like_a_fault_has_none():
    console = ("SeaBIOS\nBooting from ROM..\n[    0.000000] Linux version 6.12\n"
               "KTAP version 1\n1..1\nnot ok 1 entry_failed_on_purpose # KVM: entry\n")
    assert retrofi_boot._kvm_fault(console, 100.0) == ""


# ---------------------------------------------------------------- real boots

@pytest.fixture(scope="module")
def kernel(fetched):
    return fetched.targets[oldest_default_real().name]


@pytest.mark.network
@pytest.mark.parametrize("mode,why", [
    ("internal-error", "KVM probe boot: KVM internal error. Suberror: 1"),
    ("silent", "did not reach userspace within 12 s"),
    ("msr-abort", "KVM probe boot: failed to set MSR 0x10a to 0x69"),
    ("entry-failed", "KVM probe boot: KVM: entry failed, hardware error 0x80000021")])
def test_kvm_that_cannot_boot_a_guest_is_not_chosen(kernel, tmp_path, monkeypatch, mode, why):
    monkeypatch.delenv("RETROFI_ACCEL", raising=False)
    if mode == "silent":
        monkeypatch.setattr(retrofi_accel, "PROBE_DEADLINE", 12)
    calls = fake_qemu(tmp_path, monkeypatch, mode)
    said = []
    a = retrofi_accel.choose(kernel, say=said.append)
    assert a.name == "tcg" and why in a.reason, a
    assert len(boots(calls)) == 1 and "-accel kvm" in boots(calls)[0], "one real probe boot under KVM"
    assert said[-1] == f"accel: {a.describe()}"
    saw("test_accel.py::test_kvm_that_cannot_boot_a_guest_is_not_chosen", said[-1])


@pytest.mark.network
def test_forced_kvm_that_cannot_boot_is_one_clear_error(kernel, tmp_path, monkeypatch):
    monkeypatch.setenv("RETROFI_ACCEL", "kvm")
    fake_qemu(tmp_path, monkeypatch, "internal-error")
    with pytest.raises(RetrofiError) as e:
        retrofi_accel.choose(kernel, say=lambda m: None)
    assert "RETROFI_ACCEL=kvm, but KVM cannot boot a guest here: KVM probe boot: " \
           "KVM internal error" in e.value.what
    assert "RETROFI_ACCEL=tcg" in e.value.fix
    lines = e.value.format().splitlines()       # as the CLI prints it
    assert len(lines) == 2 and lines[1].startswith("  fix: ")
    saw("test_accel.py::test_forced_kvm_that_cannot_boot_is_one_clear_error", lines[0])


@pytest.mark.network
def test_the_verdict_is_probed_once_and_kept_in_the_cache(kernel, tmp_path, monkeypatch):
    monkeypatch.delenv("RETROFI_ACCEL", raising=False)
    calls = fake_qemu(tmp_path, monkeypatch, "internal-error-after-probe")
    said = []
    first = retrofi_accel.choose(kernel, say=said.append)
    assert first.name == "kvm" and "reached userspace" in first.reason and not first.cached
    again = retrofi_accel.choose(kernel, say=said.append)      # the same run
    monkeypatch.setattr(retrofi_accel, "_verdicts", {})
    later = retrofi_accel.choose(kernel, say=said.append)      # a later run
    assert again == first and later.cached and later.name == "kvm"
    assert len(boots(calls)) == 1, "probed once"
    verdicts = os.listdir(tmp_path / "cache" / "accel")
    assert len(verdicts) == 1, "kept in the test's own cache, not the shared one"
    assert sum(1 for m in said if m.startswith("accel: kvm")) == 2, "printed once per run"


def _fixture_initrd(kernel, name):
    return retrofi_initramfs.build(kernel, None, init=os.path.join(FIXTURES, name))


@pytest.mark.network
@pytest.mark.parametrize("mode,fault,first", [
    ("internal-error-after-probe", "KVM internal error. Suberror: 1", "SeaBIOS"),
    ("silent-after-probe", "nothing on the console after the firmware within 10 s", "SeaBIOS"),
    # After the kernel has started: without the pattern, a timeout.
    ("entry-failed-after-probe", "KVM: entry failed, hardware error 0x80000021",
     "Booting from ROM")])
def test_a_kvm_fault_during_a_boot_reruns_it_once_under_tcg(kernel, tmp_path, monkeypatch,
                                                           mode, fault, first):
    if mode.startswith("silent"):
        monkeypatch.setattr(retrofi_boot, "KVM_SILENCE_DEADLINE", 10)
    calls = fake_qemu(tmp_path, monkeypatch, mode)
    log = tmp_path / "console.log"
    r = retrofi_boot.boot(kernel, _fixture_initrd(kernel, "passes"), str(log), timeout=90,
                          accel="kvm")
    print(r.report())
    assert (r.status, r.accel, r.rerun) == ("pass", "tcg", fault)
    assert [("-accel kvm" in c) for c in boots(calls)] == [True, False], "once under KVM, once under TCG"
    kvm_console = (tmp_path / "console.log.kvm-fault").read_text()
    assert first in kvm_console
    if mode.startswith("entry-failed"):
        started = kvm_console.split("Booting from ROM", 1)[1].split(fault, 1)[0]
        assert started.strip(), "the fault came after the firmware: the kernel had started"
    assert f"rerun under tcg: {fault}" in r.report()


@pytest.mark.network
def test_a_failing_guest_under_kvm_is_not_rerun(kernel, tmp_path, monkeypatch):
    """A test failure is the guest's, not the machine's: no rerun hides it."""
    calls = fake_qemu(tmp_path, monkeypatch, "works")
    r = retrofi_boot.boot(kernel, _fixture_initrd(kernel, "fails"), str(tmp_path / "log"),
                          timeout=90, accel="kvm")
    assert (r.status, r.accel, r.rerun) == ("fail", "kvm", "")
    assert len(boots(calls)) == 1
