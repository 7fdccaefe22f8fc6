"""The Debian roots of the .deb's end-to-end test, and commands run in them.

One job: a root made by debootstrap (never this machine's own /), cached
by content under <cache>/e2e/, and commands chrooted into it or into an
overlay on it, each in a private mount namespace.

  base-<release>-<key>/    debootstrap --variant=minbase of the release
                           (key: release, mirrors, debootstrap's version)
  kernel-<release>-<kernels>-<key>/
                           base + the kernels' image and headers, dkms and
                           openssl (key: base key, packages)
A cycle never writes to them: it runs on an overlay (lower: the kernel
root, upper: a scratch directory, Cycle), so the upper layer is exactly
what the cycle changed.  Each command runs chrooted in its own mount
namespace (unshare): /proc, /sys, /dev, /run, /tmp and the overlay are
mounted there and vanish with the process, on success, error or kill.

The only network is the Debian mirror the private apt configuration uses
(retrofi_apt.mirrors()); signature checks stay on (debootstrap checks the
Release signature with Debian's archive keyring, the root's apt with the
keyring debootstrap installed).  Needs root (mount, chroot).
"""

import dataclasses
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Dict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import retrofi_apt  # noqa: E402
from retrofi_errors import RetrofiError  # noqa: E402

# The release each served kernel line comes from, and its matrix target.
RELEASE_TARGET = {"bookworm": "6.1", "bullseye": "5.10"}
# What the kernel root adds to the base, each with its reason:
#   dkms: builds the package's modules (the package depends on it anyway);
#   openssl: dkms makes its MOK signing key with it (dkms does not depend
#            on it; without it the modules stay unsigned, dkms says so).
# --no-install-recommends: dkms recommends linux-headers-amd64, the newest
# headers, which would build the stack for a second kernel.
ROOT_PACKAGES = ("dkms", "openssl")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROOT_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C.UTF-8",
              "DEBIAN_FRONTEND": "noninteractive", "HOME": "/root"}
DEB_MOUNT = "/tmp/retrofi-e2e"


@dataclasses.dataclass(frozen=True)
class Step:
    name: str
    seconds: float
    note: str = ""


@dataclasses.dataclass(frozen=True)
class Root:
    path: str          # the cached root directory
    key: str
    reused: bool


def log(msg):
    print(f"[e2e] {msg}", flush=True)


def _key(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(str(p).encode() + b"\0")
    return h.hexdigest()[:16]


def _tool_version(argv):
    try:
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True).stdout.strip()
    except FileNotFoundError:
        return ""


def _need_root_and_tools():
    if os.geteuid() != 0:
        raise RetrofiError("the end-to-end test of the .deb needs root (debootstrap, mount, "
                           "chroot)", fix="run it as root")
    for tool in ("debootstrap", "unshare", "chroot"):
        if not shutil.which(tool):
            raise RetrofiError(f"{tool} not found", where="PATH",
                               fix="run `make bootstrap` as root (it installs debootstrap)")


# The script every chrooted command runs under, in its own mount namespace.
# LOWER/UPPER/WORK: an overlay root (UPPER empty: LOWER itself, read-write).
_NS = r"""
set -eu
if [ -n "$UPPER" ]; then
    mount -t overlay retrofi-e2e -o lowerdir="$LOWER",upperdir="$UPPER",workdir="$WORK" "$MNT"
    R="$MNT"
else
    R="$LOWER"
    mount --bind "$R" "$R"
fi
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount --rbind /dev "$R/dev"
mount -t tmpfs tmpfs "$R/run"
mount -t tmpfs tmpfs "$R/tmp"
cp -L /etc/resolv.conf "$R/run/resolv.conf"
mount --bind "$R/run/resolv.conf" "$R/etc/resolv.conf" 2>/dev/null || true
if [ -n "$DEBDIR" ]; then
    mkdir -p "$R$DEB_MOUNT"
    mount --bind "$DEBDIR" "$R$DEB_MOUNT"
fi
exec chroot "$R" /usr/bin/env -i $CHROOT_ENV "$@"
"""


def chroot(lower, argv, upper="", work="", mnt="", debdir="", timeout=3600, what=""):
    """Run argv chrooted in lower (or the overlay lower+upper); its output."""
    env = dict(os.environ, LOWER=lower, UPPER=upper, WORK=work, MNT=mnt, DEBDIR=debdir,
               DEB_MOUNT=DEB_MOUNT,
               CHROOT_ENV=" ".join(f"{k}={v}" for k, v in CHROOT_ENV.items()))
    # resolv.conf must exist to be bound over: debootstrap writes one.
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", _NS,
                        "-", *argv], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if p.returncode != 0:
        tail = "\n".join(p.stdout.splitlines()[-40:])
        raise RetrofiError(f"{what or ' '.join(argv)} failed in the Debian root "
                           f"(exit {p.returncode}):\n{tail}", where=upper or lower,
                           fix="see the output above")
    return p.stdout


def _build_into(cache_dir, name, build):
    """A cached root directory <cache_dir>/<name>, made by build(tmpdir) the
    first time; a partial one never takes the name."""
    final = os.path.join(cache_dir, name)
    if os.path.isdir(final):
        return final, True
    os.makedirs(cache_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".tmp-{name}-", dir=cache_dir)
    try:
        build(tmp)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final, False


def base_root(cache, release) -> Root:
    """debootstrap --variant=minbase of release, cached by content."""
    _need_root_and_tools()
    mirrors = retrofi_apt.mirrors()
    key = _key("base", release, mirrors["debian"], mirrors["debian-security"],
               _tool_version(["debootstrap", "--version"]), retrofi_apt.KEYRING)

    def build(tmp):
        root = os.path.join(tmp, "root")
        log(f"debootstrap {release} from {mirrors['debian']} into {root}")
        p = subprocess.run(["unshare", "--mount", "--propagation", "private",
                            "debootstrap", "--variant=minbase",
                            f"--keyring={retrofi_apt.KEYRING}", release, root,
                            mirrors["debian"]], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            raise RetrofiError(f"debootstrap of {release} failed (exit {p.returncode}):\n"
                               + "\n".join(p.stdout.splitlines()[-20:]),
                               where=mirrors["debian"],
                               fix="check the network and the mirror (RETROFI_MIRROR=...)")
        with open(os.path.join(root, "etc", "apt", "sources.list"), "w") as f:
            f.write(f"deb {mirrors['debian']} {release} main\n"
                    f"deb {mirrors['debian-security']} {release}-security main\n")

    path, reused = _build_into(os.path.join(cache, "e2e"), f"base-{release}-{key}", build)
    return Root(os.path.join(path, "root"), key, reused)


def kernel_packages(kernelrelease):
    return (f"linux-image-{kernelrelease}", f"linux-headers-{kernelrelease}")


def kernel_root(cache, release, base: Root, kernelreleases) -> Root:
    """base + the kernels' image and headers, dkms and openssl, cached."""
    pkgs = tuple(p for k in kernelreleases for p in kernel_packages(k)) + ROOT_PACKAGES
    key = _key("kernel", base.key, *pkgs)

    def build(tmp):
        root = os.path.join(tmp, "root")
        log(f"copying the base root, installing {' '.join(pkgs)}")
        subprocess.run(["cp", "-a", base.path, root], check=True)
        chroot(root, ["apt-get", "update", "-q"], what="apt-get update")
        chroot(root, ["apt-get", "install", "-y", "-q", "--no-install-recommends", *pkgs],
               what=f"apt-get install {' '.join(pkgs)}")
        chroot(root, ["apt-get", "clean"], what="apt-get clean")

    name = f"kernel-{release}-{'+'.join(kernelreleases)}-{key}"
    path, reused = _build_into(os.path.join(cache, "e2e"), name, build)
    return Root(os.path.join(path, "root"), key, reused)


class Cycle:
    """An overlay on a kernel root, in a scratch directory: the cycle's
    changes are the upper layer."""

    def __init__(self, lower, scratch):
        self.lower = lower
        self.scratch = scratch
        self.upper, self.work, self.mnt = (os.path.join(scratch, n)
                                           for n in ("upper", "work", "mnt"))
        for d in (self.upper, self.work, self.mnt):
            os.makedirs(d, exist_ok=True)

    def run(self, argv, debdir="", what=""):
        return chroot(self.lower, argv, self.upper, self.work, self.mnt, debdir=debdir,
                      what=what)

    def canon(self, rel):
        """rel with the root's own directory symlinks resolved (bookworm's
        merged /usr: lib -> usr/lib), so that it names the upper layer's
        path; the last component is left as it is."""
        parts = [p for p in rel.strip("/").split("/") if p]
        out = []
        for i, part in enumerate(parts[:-1]):
            cur = "/".join(out + [part])
            for layer in (self.upper, self.lower):
                full = os.path.join(layer, cur)
                if os.path.islink(full):
                    target = os.readlink(full)
                    base = target.lstrip("/") if target.startswith("/") else \
                        os.path.normpath(os.path.join("/".join(out), target))
                    return self.canon("/".join([base] + parts[i + 1:]))
                if os.path.lexists(full):
                    break
            out.append(part)
        return "/".join(out + parts[-1:])

    def path(self, rel):
        """A path of the merged root, read from the upper layer or the lower."""
        rel = self.canon(rel)
        up = os.path.join(self.upper, rel)
        return up if os.path.lexists(up) else os.path.join(self.lower, rel)

    def write(self, rel, text):
        p = os.path.join(self.upper, rel.lstrip("/"))
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)


MODULE_SUFFIXES = (".ko", ".ko.xz", ".ko.zst", ".ko.gz")


def modules_of(cycle: Cycle, kernelrelease) -> Dict[str, str]:
    """{module name: path} under the merged root's lib/modules/<krel>/updates
    (dkms compresses them as the kernel's own are, if they are)."""
    out = {}
    rel = cycle.canon(f"lib/modules/{kernelrelease}/updates")
    for layer in (cycle.lower, cycle.upper):
        base = os.path.join(layer, rel)
        for d, _, files in os.walk(base):
            for f in files:
                for suffix in MODULE_SUFFIXES:
                    if f.endswith(suffix):
                        out[f[:-len(suffix)]] = cycle.path(os.path.relpath(
                            os.path.join(d, f), layer))
    return out
