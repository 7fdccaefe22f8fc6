"""A kernel upgrade under the installed package, in the .deb's end-to-end root.

One job: the root starts with an older ABI of its release's kernel line
(older_abi(): the newest ABI kernel-matrix.lock serves below the one the
cycle boots); once the package is installed, the root's own apt installs
the newer ABI's linux-image and linux-headers, and nothing else is run:
dkms's kernel hooks (/etc/kernel/postinst.d/dkms, the headers'
/etc/kernel/header_postinst.d/dkms: dkms_autoinstaller) must build and
install the stack for the newer kernel by themselves.  dkms status must
then say retrofi is installed for both kernels (dkms_status()).

The newer ABI's packages are fetched once into a cached root
(upgrade_root(): the older kernel's root with the packages in apt's own
archive cache, not installed), so a warm cycle installs them without the
network, from the same bytes each time.

After the purge, what the upgrade itself wrote (the newer kernel's files,
its initramfs, depmod's outputs) is not a leftover (upgrade_paths()), but
anything of the package's under it is (RETROFI_OWNED).
"""

import fnmatch
import os
import re
import subprocess
import sys
from typing import Dict, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from retrofi_e2e_root import (  # noqa: E402
    Cycle, Root, _build_into, _key, chroot, kernel_packages, log)
from retrofi_errors import RetrofiError  # noqa: E402

# <upstream>-<abi>-<flavour>: 6.1.0-57-amd64, 5.10.0-46-cloud-amd64 (a
# backports ABI such as 6.1.0-0.deb11.48-amd64 is another line).
_KREL = re.compile(r"^(?P<up>\d+\.\d+\.\d+)-(?P<abi>\d+)-(?P<flavour>[a-z][a-z0-9-]*)$")


def older_abi(kernelrelease, lock_entries) -> str:
    """The newest kernel release of kernelrelease's line and flavour that
    kernel-matrix.lock serves (its target:<kernelrelease> entries) with an
    ABI below kernelrelease's: 6.1.0-57-amd64 -> 6.1.0-56-amd64."""
    m = _KREL.match(kernelrelease)
    if not m:
        raise RetrofiError(f"kernel release {kernelrelease!r} is not <version>-<abi>-<flavour>",
                           fix="name the older kernel with --upgrade-from")
    older = []
    for key in lock_entries:
        o = _KREL.match(key[len("target:"):]) if key.startswith("target:") else None
        if o and o["up"] == m["up"] and o["flavour"] == m["flavour"] \
                and int(o["abi"]) < int(m["abi"]):
            older.append((int(o["abi"]), o.string))
    if not older:
        raise RetrofiError(f"kernel-matrix.lock serves no ABI of {m['up']} ({m['flavour']}) "
                           f"older than {kernelrelease}", where="kernel-matrix.lock",
                           fix="name the older kernel with --upgrade-from, or run the "
                               "cycle without the upgrade (--upgrade-from none)")
    return max(older)[1]


def upgrade_root(cache, release, kroot: Root, older, newer) -> Root:
    """The older kernel's root with the newer ABI's image and headers (and
    what they pull in) downloaded into apt's archive cache, not installed;
    cached by content."""
    pkgs = kernel_packages(newer)
    key = _key("upgrade", kroot.key, *pkgs)

    def build(tmp):
        root = os.path.join(tmp, "root")
        log(f"copying the {older} root, fetching {' '.join(pkgs)}")
        subprocess.run(["cp", "-a", kroot.path, root], check=True)
        chroot(root, ["apt-get", "update", "-q"], what="apt-get update")
        chroot(root, ["apt-get", "install", "-y", "-q", "--download-only",
                      "--no-install-recommends", *pkgs],
               what=f"apt-get install --download-only {' '.join(pkgs)}")

    name = f"upgrade-{release}-{older}-to-{newer}-{key}"
    path, reused = _build_into(os.path.join(cache, "e2e"), name, build)
    return Root(os.path.join(path, "root"), key, reused)


def upgrade(c: Cycle, newer):
    """The root's own apt installs the newer kernel's image and headers;
    no dkms or retrofi command.  Its output."""
    return c.run(["apt-get", "install", "-y", "-q", "--no-install-recommends",
                  *kernel_packages(newer)],
                 what=f"apt-get install {' '.join(kernel_packages(newer))}")


# dkms 3: "retrofi/7.3.4-1, 6.1.0-57-amd64, x86_64: installed (...)"
# dkms 2: "retrofi, 7.3.4-1, 5.10.0-46-amd64, x86_64: installed"
_STATUS = re.compile(r"^(?P<module>[^,/\s]+)(?:/|, )(?P<version>[^,]+), (?P<krel>[^,]+), "
                     r"(?P<arch>[^,:]+): (?P<state>\w+)")


def dkms_status(text, module="retrofi") -> Dict[str, str]:
    """{kernel release: state} of module in `dkms status`'s output, in
    dkms 3's form and dkms 2's; a module only added (no kernel) is absent."""
    out = {}
    for line in text.splitlines():
        m = _STATUS.match(line.strip())
        if m and m["module"] == module:
            out[m["krel"]] = m["state"]
    return out


def installed_for(c: Cycle, kernels) -> Tuple[Tuple[str, ...], List[str]]:
    """`dkms status` in the root, every module's (one call for dkms 2 and
    3 alike): (retrofi's lines, problems: each kernel of kernels retrofi
    is not installed for)."""
    out = c.run(["dkms", "status"], what="dkms status")
    states = dkms_status(out)
    lines = tuple(l.strip() for l in out.splitlines()
                  if l.strip().startswith(("retrofi/", "retrofi,")))
    problems = [f"dkms status shows retrofi {states.get(k, 'absent')} for {k}, not installed "
                f"(dkms status: {'; '.join(lines) or 'nothing'})"
                for k in kernels if states.get(k) != "installed"]
    return lines, problems


# What is the package's under the upgrade's own paths: a path the purge
# must take away even though it appeared during the kernel upgrade.
RETROFI_OWNED = ("lib/modules/*/updates", "lib/modules/*/updates/*",
                 "usr/lib/modules/*/updates", "usr/lib/modules/*/updates/*",
                 "var/lib/dkms/retrofi", "var/lib/dkms/retrofi/*",
                 "usr/src/retrofi-*")


def upgrade_paths(after_upgrade: Dict[str, str], before: Dict[str, str]) -> Dict[str, str]:
    """{path: kind} the kernel upgrade wrote to the upper layer (the upper
    layer after it less the one before the install), but the package's own
    (RETROFI_OWNED): those are leftovers if they outlive the purge."""
    return {rel: kind for rel, kind in after_upgrade.items()
            if before.get(rel) != kind
            and not any(fnmatch.fnmatchcase(rel, p) for p in RETROFI_OWNED)}


def foreign_modules(modules_dep_text) -> List[str]:
    """The module paths of a modules.dep that are not the kernel's own
    (kernel/): after the purge, none may be left."""
    return [line.split(":", 1)[0] for line in modules_dep_text.splitlines()
            if line.strip() and not line.startswith("kernel/")]
