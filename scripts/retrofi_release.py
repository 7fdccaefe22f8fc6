"""The `release` stage: output tree -> reproducible tar.xz + .sha256.

The same output tree gives the same bytes every time: entries sorted by
path, every mtime set to the source package's timestamp, owner and group 0
with empty names, modes reduced to 0644/0755, no pax/extended headers that
carry host data, and xz with fixed options (preset 6, CRC64, one thread).
The tarball and its .sha256 are written to temporary names and renamed into
place only when complete.
"""

import hashlib
import io
import lzma
import os
import stat
import tarfile
import tempfile
from dataclasses import dataclass

from retrofi_errors import RetrofiError
from retrofi_fs import dir_lock

XZ_PRESET = 6
XZ_CHECK = lzma.CHECK_CRC64


@dataclass(frozen=True)
class ReleaseResult:
    tarball: str     # path of the .tar.xz
    sha256_file: str  # path of the .tar.xz.sha256
    sha256: str
    entries: int


def _entries(tree):
    """(relative path, full path) of every dir/file/symlink, sorted."""
    out = []
    for d, dirs, files in os.walk(tree):
        dirs.sort()
        for n in dirs + files:
            full = os.path.join(d, n)
            out.append((os.path.relpath(full, tree), full))
    out.sort(key=lambda e: e[0].encode())
    return out


def _info(arcname, full, mtime):
    st = os.lstat(full)
    ti = tarfile.TarInfo(arcname)
    ti.mtime = mtime
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = ""
    if stat.S_ISDIR(st.st_mode):
        ti.type = tarfile.DIRTYPE
        ti.mode = 0o755
    elif stat.S_ISLNK(st.st_mode):
        ti.type = tarfile.SYMTYPE
        ti.linkname = os.readlink(full)
        ti.mode = 0o777
    elif stat.S_ISREG(st.st_mode):
        ti.type = tarfile.REGTYPE
        ti.size = st.st_size
        ti.mode = 0o755 if st.st_mode & 0o111 else 0o644
    else:
        raise RetrofiError("not a regular file, directory or symlink",
                           where=full, fix="remove it from the output tree")
    return ti


def tar_bytes(tree, prefix, mtime):
    """The uncompressed tar stream of tree, entries under prefix/."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        top = tarfile.TarInfo(prefix)
        top.type, top.mode, top.mtime = tarfile.DIRTYPE, 0o755, mtime
        top.uid = top.gid = 0
        top.uname = top.gname = ""
        tf.addfile(top)
        for rel, full in _entries(tree):
            ti = _info(f"{prefix}/{rel}", full, mtime)
            if ti.type == tarfile.REGTYPE:
                with open(full, "rb") as f:
                    tf.addfile(ti, f)
            else:
                tf.addfile(ti)
    return buf.getvalue()


def release(tree: str, dest_dir: str, mtime: int) -> ReleaseResult:
    """Pack the output tree into dest_dir/<basename(tree)>.tar.xz (+.sha256).

    mtime is the fixed timestamp (SourceTree.mtime). The archive's top
    directory is the tree's basename (e.g. retrofi-6.12.118-1~deb12u1)."""
    tree = os.path.abspath(tree)
    if not os.path.isfile(os.path.join(tree, "versions")):
        raise RetrofiError("not a generated output tree (no versions file)",
                           where=tree, fix="run make generate first")
    name = os.path.basename(tree)
    try:
        os.makedirs(dest_dir, exist_ok=True)
        # A concurrent generate swaps a new tree in only when no one reads it.
        with dir_lock(os.path.dirname(tree), shared=True):
            data = tar_bytes(tree, name, int(mtime))
        xz = lzma.compress(data, format=lzma.FORMAT_XZ, check=XZ_CHECK,
                           preset=XZ_PRESET)
        digest = hashlib.sha256(xz).hexdigest()
        tarball = os.path.join(dest_dir, name + ".tar.xz")
        sumfile = tarball + ".sha256"
        pending = []  # (temporary name, final name)
        for path, content in ((tarball, xz),
                              (sumfile, f"{digest}  {name}.tar.xz\n"
                               .encode())):
            fd, tmp = tempfile.mkstemp(dir=dest_dir, prefix=".tmp-release-")
            pending.append((tmp, path))
            with os.fdopen(fd, "wb") as f:
                f.write(content)
            os.chmod(tmp, 0o644)
        for tmp, path in pending:
            os.replace(tmp, path)
    except OSError as e:
        for tmp, _ in locals().get("pending", []):
            if os.path.exists(tmp):
                os.unlink(tmp)
        raise RetrofiError(f"cannot write the release: {e.strerror or e}",
                           where=getattr(e, "filename", None) or dest_dir,
                           fix="free disk space or choose a writable "
                               "directory")
    return ReleaseResult(tarball, sumfile, digest, len(_entries(tree)) + 1)
