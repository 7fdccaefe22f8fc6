"""Module signatures checked against a certificate, with openssl.

One job: say whether a kernel module file carries an appended signature
made by the key of a given certificate (DKMS's MOK, /var/lib/dkms/mok.pub,
DER), over exactly the module's bytes.  The layout is the kernel's
(scripts/sign-file.c, include/linux/module_signature.h):

    <module> <PKCS#7 DER, detached> <struct module_signature> MAGIC

struct module_signature is 12 bytes: algo, hash, id_type, signer_len,
key_id_len (u8 each), 3 bytes of padding and sig_len (big-endian u32);
id_type 2 is PKEY_ID_PKCS7.  openssl cms -verify checks the detached
signature over the module's bytes with the certificate given
(-certfile: sign-file leaves the certificate out of the signature;
-noverify: the certificate is the trust anchor itself, no chain to check).
"""

import dataclasses
import os
import struct
import subprocess
import sys
import tempfile
from typing import List, Tuple

import retrofi_census

MAGIC = b"~Module signature appended~\n"
SIG_STRUCT = struct.Struct(">BBBBB3xI")
PKEY_ID_PKCS7 = 2


@dataclasses.dataclass(frozen=True)
class Verdict:
    module: str
    ok: bool
    reason: str


class NotSigned(Exception):
    pass


def split(data: bytes) -> Tuple[bytes, bytes]:
    """(the module's bytes, the PKCS#7 signature) of a signed module."""
    if not data.endswith(MAGIC):
        raise NotSigned("no appended signature (the file does not end with "
                        "'~Module signature appended~')")
    end = len(data) - len(MAGIC) - SIG_STRUCT.size
    if end < 0:
        raise NotSigned("too short for a signature trailer")
    _, _, id_type, _, _, sig_len = SIG_STRUCT.unpack(data[end:end + SIG_STRUCT.size])
    if id_type != PKEY_ID_PKCS7:
        raise NotSigned(f"signature id type {id_type}, not PKCS#7 ({PKEY_ID_PKCS7})")
    if sig_len == 0 or sig_len > end:
        raise NotSigned(f"signature length {sig_len} does not fit the file")
    return data[:end - sig_len], data[end - sig_len:end]


def verify(module: str, cert: str) -> Verdict:
    """Whether module is signed by cert's key (cert: DER or PEM)."""
    if module.endswith((".zst", ".gz")):
        return Verdict(module, False, "compressed module: decompress it first")
    # dkms signs, then compresses as the kernel does (bookworm: xz).
    data = retrofi_census.module_bytes(module)
    try:
        content, sig = split(data)
    except NotSigned as e:
        return Verdict(module, False, str(e))
    with tempfile.TemporaryDirectory(prefix="retrofi-modsig-") as tmp:
        paths = {n: os.path.join(tmp, n) for n in ("content", "sig", "cert.pem")}
        with open(paths["content"], "wb") as f:
            f.write(content)
        with open(paths["sig"], "wb") as f:
            f.write(sig)
        with open(cert, "rb") as f:
            pem = f.read().startswith(b"-----BEGIN")
        p = subprocess.run(["openssl", "x509", "-inform", "PEM" if pem else "DER", "-in", cert,
                            "-out", paths["cert.pem"]], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            return Verdict(module, False, f"cannot read the certificate {cert}: "
                                          f"{p.stdout.strip()[-300:]}")
        p = subprocess.run(["openssl", "cms", "-verify", "-binary", "-inform", "DER",
                            "-in", paths["sig"], "-content", paths["content"],
                            "-certfile", paths["cert.pem"], "-nointern", "-noverify",
                            "-out", os.devnull], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        lines = [l for l in p.stdout.splitlines() if l.strip()]
        return Verdict(module, False, "the signature does not verify with the certificate: "
                                      + "; ".join(lines[-3:]))
    return Verdict(module, True, "signed by the certificate's key")


def verify_all(modules, cert) -> List[Verdict]:
    return [verify(m, cert) for m in sorted(modules)]


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        print("usage: retrofi_modsig.py CERT MODULE.ko...", file=sys.stderr)
        return 64
    bad = 0
    for v in verify_all(args[1:], args[0]):
        print(f"{'ok  ' if v.ok else 'FAIL'} {v.module}: {v.reason}")
        bad += not v.ok
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
