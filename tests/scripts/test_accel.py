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
from conftest import REPO, oldest_default_real
from retrofi_errors import RetrofiError

FAKE = os.path.join(REPO, "tests", "scripts", "fakes", "qemu-system-x86_64")
FIXTURES = os.path.join(REPO, "tests", "guest", "fixtures")


def fake_qemu(tmp_path, monkeypatch, mode):
    """Put the stand-in first on PATH (a fresh copy: its own verdict key)."""
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
    assert "panic=-1" in argv[argv.index("-append") + 1]


# ---------------------------------------------------------------- real boots

@pytest.fixture(scope="module")
def kernel(fetched):
    return fetched.targets[oldest_default_real().name]


@pytest.mark.network
@pytest.mark.parametrize("mode,why", [("internal-error", "KVM internal error. Suberror: 1"),
                                      ("silent", "did not reach userspace within 12 s")])
def test_kvm_that_cannot_boot_a_guest_is_not_chosen(kernel, tmp_path, monkeypatch, mode, why):
    monkeypatch.delenv("RETROFI_ACCEL", raising=False)
    monkeypatch.setattr(retrofi_accel, "PROBE_DEADLINE", 12)
    calls = fake_qemu(tmp_path, monkeypatch, mode)
    said = []
    a = retrofi_accel.choose(kernel, say=said.append)
    assert a.name == "tcg" and why in a.reason, a
    assert len(boots(calls)) == 1 and "kvm" in boots(calls)[0], "one real probe boot under KVM"
    assert said[-1] == f"accel: {a.describe()}"


@pytest.mark.network
def test_forced_kvm_that_cannot_boot_is_one_clear_error(kernel, tmp_path, monkeypatch):
    monkeypatch.setenv("RETROFI_ACCEL", "kvm")
    fake_qemu(tmp_path, monkeypatch, "internal-error")
    with pytest.raises(RetrofiError) as e:
        retrofi_accel.choose(kernel, say=lambda m: None)
    assert "RETROFI_ACCEL=kvm, but KVM cannot boot a guest here: KVM probe boot: " \
           "KVM internal error" in e.value.what
    assert "RETROFI_ACCEL=tcg" in e.value.fix


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
    assert sum(1 for m in said if m.startswith("accel: kvm")) == 2, "printed once per run"


def _fixture_initrd(kernel, name):
    return retrofi_initramfs.build(kernel, None, init=os.path.join(FIXTURES, name))


@pytest.mark.network
@pytest.mark.parametrize("mode,fault", [
    ("internal-error-after-probe", "KVM internal error. Suberror: 1"),
    ("silent-after-probe", "nothing on the console after the firmware within 10 s")])
def test_a_kvm_fault_during_a_boot_reruns_it_once_under_tcg(kernel, tmp_path, monkeypatch,
                                                           mode, fault):
    monkeypatch.setattr(retrofi_boot, "KVM_SILENCE_DEADLINE", 10)
    calls = fake_qemu(tmp_path, monkeypatch, mode)
    log = tmp_path / "console.log"
    r = retrofi_boot.boot(kernel, _fixture_initrd(kernel, "passes"), str(log), timeout=90,
                          accel="kvm")
    print(r.report())
    assert (r.status, r.accel, r.rerun) == ("pass", "tcg", fault)
    assert [("kvm" in c) for c in boots(calls)] == [True, False], "once under KVM, once under TCG"
    assert "SeaBIOS" in (tmp_path / "console.log.kvm-fault").read_text()
    assert f"rerun under tcg: {fault}" in r.report()


@pytest.mark.network
def test_a_failing_guest_under_kvm_is_not_rerun(kernel, tmp_path, monkeypatch):
    """A test failure is the guest's, not the machine's: no rerun hides it."""
    calls = fake_qemu(tmp_path, monkeypatch, "works")
    r = retrofi_boot.boot(kernel, _fixture_initrd(kernel, "fails"), str(tmp_path / "log"),
                          timeout=90, accel="kvm")
    assert (r.status, r.accel, r.rerun) == ("fail", "kvm", "")
    assert len(boots(calls)) == 1
