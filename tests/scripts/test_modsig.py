"""retrofi_modsig: a module's appended signature checked against a
certificate with openssl, as the end-to-end test checks the modules DKMS
signed with its MOK key (/var/lib/dkms/mok.key, mok.pub).  The modules
are signed here by the kernel's own sign-file (from the cached 6.1
headers' kbuild package) with keys made the way dkms makes its own
(openssl req ... -outform DER, dkms 3.0.10)."""

import glob
import os
import shutil
import subprocess

import pytest

import retrofi_kernels
import retrofi_modsig


def _sign_file():
    found = sorted(glob.glob(os.path.join(retrofi_kernels.cache_dir(), "targets", "*", "root",
                                          "usr", "lib", "linux-kbuild-*", "scripts",
                                          "sign-file")))
    if not found:
        pytest.skip("no cached kernel headers with scripts/sign-file (make kernels)")
    return found[-1]


def _key(tmp_path, name):
    key, cert = tmp_path / f"{name}.key", tmp_path / f"{name}.der"
    subprocess.run(["openssl", "req", "-new", "-x509", "-nodes", "-days", "36500", "-subj",
                    f"/CN={name}", "-newkey", "rsa:2048", "-keyout", str(key),
                    "-outform", "DER", "-out", str(cert)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return str(key), str(cert)


def _module(tmp_path, name, signer=None):
    path = tmp_path / f"{name}.ko"
    path.write_bytes(b"\x7fELF" + os.urandom(4096))
    if signer:
        subprocess.run([_sign_file(), "sha256", signer[0], signer[1], str(path)], check=True)
    return str(path)


@pytest.fixture
def keys(tmp_path):
    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed")
    return _key(tmp_path, "DKMS module signing key"), _key(tmp_path, "another key")


def test_a_module_signed_with_the_certificates_key_verifies(tmp_path, keys):
    mok, _ = keys
    v = retrofi_modsig.verify(_module(tmp_path, "good", mok), mok[1])
    assert v.ok, v.reason


def test_an_unsigned_module_fails(tmp_path, keys):
    v = retrofi_modsig.verify(_module(tmp_path, "unsigned"), keys[0][1])
    assert not v.ok and v.reason.startswith("no appended signature"), v.reason


def test_a_module_signed_with_another_key_fails(tmp_path, keys):
    mok, other = keys
    v = retrofi_modsig.verify(_module(tmp_path, "other", other), mok[1])
    assert not v.ok and "signer certificate not found" in v.reason, v.reason


def test_a_module_changed_after_signing_fails(tmp_path, keys):
    mok, _ = keys
    path = _module(tmp_path, "changed", mok)
    with open(path, "r+b") as f:
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 1]))
    v = retrofi_modsig.verify(path, mok[1])
    assert not v.ok and "verification failure" in v.reason, v.reason


def test_the_cli_exits_1_naming_each_failing_module(tmp_path, keys, capsys):
    mok, _ = keys
    good, bad = _module(tmp_path, "a-good", mok), _module(tmp_path, "b-bad")
    assert retrofi_modsig.main([mok[1], good, bad]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"ok   {good}:") and out[1].startswith(f"FAIL {bad}: no appended")


def test_an_xz_compressed_signed_module_verifies(tmp_path, keys):
    # dkms signs, then compresses as the kernel's modules are (bookworm's 6.1: xz).
    import lzma
    mok, _ = keys
    path = _module(tmp_path, "packed", mok)
    with open(path, "rb") as f, lzma.open(path + ".xz", "wb",
                                          check=lzma.CHECK_CRC32) as out:
        out.write(f.read())
    v = retrofi_modsig.verify(path + ".xz", mok[1])
    assert v.ok, v.reason
