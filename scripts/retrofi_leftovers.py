"""The leftover check: what a package leaves behind once purged.

One job: install a .deb and purge it again in a scratch root, and list
every path the two left there.  The scratch root is an overlay whose
lower layer is this machine's / (read-only: nothing is written to it) and
whose upper layer is a temporary directory, mounted in a private mount
namespace (unshare), so that the mounts vanish with the process; dpkg and
the maintainer scripts run chrooted into it, with the machine's own
dpkg, dkms and shell.  Whatever the install and the purge wrote shows in
the upper layer: a path there that was not there before the install, and
is not dpkg's own record-keeping (its database and log) or man-db's index
(rebuilt by its trigger), is a leftover.

Needs root (mount, chroot).  The package's dependencies must be installed
on this machine (scripts/bootstrap installs dkms).
"""

import os
import shlex
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from typing import List, Tuple

from retrofi_errors import RetrofiError

# What dpkg and triggers write on every install and purge: not the package's.
IGNORED = ("var/lib/dpkg/", "var/log/dpkg.log", "var/cache/man/", "var/cache/debconf/",
           "var/cache/ldconfig/", "etc/ld.so.cache")


@dataclass(frozen=True)
class LeftoverResult:
    package: str
    installed: List[str]      # the package's paths present after the install
    leftovers: List[Tuple[str, str]]  # (path, what it is) after the purge
    log: str                  # dpkg's output


def walk_upper(upper):
    """{relative path: kind} of the upper layer; kind: dir, file, link, deleted."""
    out = {}
    for d, dirs, files in os.walk(upper):
        for n in dirs + files:
            full = os.path.join(d, n)
            rel = os.path.relpath(full, upper)
            st = os.lstat(full)
            if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
                out[rel] = "deleted"   # an overlay whiteout: a lower file removed
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = "dir"
            elif stat.S_ISLNK(st.st_mode):
                out[rel] = "link"
            else:
                out[rel] = "file"
    return out


def _changes(upper, lower="/"):
    """The paths the upper layer adds, changes or deletes."""
    out = {}
    for rel, kind in walk_upper(upper).items():
        if kind == "dir" and os.path.isdir(os.path.join(lower, rel)):
            continue   # a copied-up directory of the lower layer
        if rel.startswith(IGNORED) or (rel + "/").startswith(IGNORED):
            continue
        if kind == "deleted":
            out[rel] = "deleted from /"
        elif os.path.lexists(os.path.join(lower, rel)):
            out[rel] = f"{kind} changed"
        else:
            out[rel] = f"new {kind}"
    return out


SCRIPT = r"""
set -eu
mount -t overlay retrofi-leftovers -o lowerdir=/,upperdir="$UPPER",workdir="$WORK" "$ROOT"
mount --bind /dev "$ROOT/dev"
mount -t proc proc "$ROOT/proc"
mount -t tmpfs tmpfs "$ROOT/run"
mkdir -p "$ROOT/tmp/.retrofi-leftovers"
mount --bind "$DEBDIR" "$ROOT/tmp/.retrofi-leftovers"
rc=0
echo "== install" && chroot "$ROOT" dpkg -i "/tmp/.retrofi-leftovers/$DEB" || rc=$?
if [ $rc = 0 ]; then
    chroot "$ROOT" dpkg-query -L "$PACKAGE" > "$LIST" || rc=$?
fi
echo "== purge" && chroot "$ROOT" dpkg --purge "$PACKAGE" || rc=$((rc ? rc : $?))
umount "$ROOT/tmp/.retrofi-leftovers"
rmdir "$ROOT/tmp/.retrofi-leftovers"
umount "$ROOT/run" "$ROOT/proc" "$ROOT/dev"
umount "$ROOT"
exit $rc
"""


def check(deb: str, timeout: int = 600) -> LeftoverResult:
    """Install deb, purge it, in an overlay of /; return what remains."""
    deb = os.path.abspath(deb)
    if os.geteuid() != 0:
        raise RetrofiError("the leftover check needs root (mount, chroot)", where=deb,
                           fix="run it as root (make check runs as root in CI)")
    for tool in ("unshare", "chroot", "dpkg-deb"):
        if not shutil.which(tool):
            raise RetrofiError(f"{tool} not found", where="PATH",
                               fix="apt-get install util-linux coreutils dpkg")
    package = subprocess.run(["dpkg-deb", "-f", deb, "Package"], stdout=subprocess.PIPE,
                             text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="retrofi-leftovers-") as tmp:
        upper, work, root = (os.path.join(tmp, n) for n in ("upper", "work", "root"))
        for d in (upper, work, root):
            os.mkdir(d)
        listing = os.path.join(tmp, "list")
        env = dict(os.environ, UPPER=upper, WORK=work, ROOT=root, DEBDIR=os.path.dirname(deb),
                   DEB=os.path.basename(deb), PACKAGE=package, LIST=listing,
                   DEBIAN_FRONTEND="noninteractive", LC_ALL="C.UTF-8")
        p = subprocess.run(["unshare", "--mount", "--propagation", "private",
                            "sh", "-c", SCRIPT], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout)
        if p.returncode != 0:
            raise RetrofiError(f"installing and purging {package} in the scratch root failed "
                               f"(exit {p.returncode}):\n" + "\n".join(p.stdout.splitlines()[-30:]),
                               where=deb, fix="see dpkg's output above")
        installed = []
        if os.path.exists(listing):
            with open(listing) as f:
                installed = [l for l in f.read().splitlines() if l and l != "/."]
        changes = _changes(upper)
        # The mount point of the package's directory, made and removed by SCRIPT.
        changes.pop("tmp/.retrofi-leftovers", None)
        leftovers = sorted(changes.items())
    return LeftoverResult(package, installed, leftovers, p.stdout)


def describe(result: LeftoverResult) -> str:
    return "\n".join(f"  /{path}: {what}" + (" (one of the package's files)"
                                              if "/" + path in result.installed else "")
                     for path, what in result.leftovers)


def main(argv=None):
    import sys
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: retrofi_leftovers.py PACKAGE.deb", file=sys.stderr)
        return 64
    try:
        r = check(args[0])
    except RetrofiError as e:
        print(e.format(), file=sys.stderr)
        return e.code
    if r.leftovers:
        print(f"{r.package}: {len(r.leftovers)} path(s) left after the purge:\n{describe(r)}")
        return 1
    print(f"{r.package}: installed {len(r.installed)} paths, nothing left after the purge "
          f"({shlex.quote(args[0])})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
