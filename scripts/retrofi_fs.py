"""Putting a finished directory in place, shared by the stages that write
one (the kernel stage's unpacked trees, the generator's output tree), and
the lock that keeps a reader of such a tree from seeing it swapped."""

import contextlib
import ctypes
import fcntl
import os
import shutil

_RENAME_EXCHANGE = 2


def swap_into_place(tmp, final):
    """Put tmp at final; the previous final, if any, is returned to be
    deleted. Uses renameat2(RENAME_EXCHANGE) where available so that there
    is no moment without a complete output tree."""
    if not os.path.exists(final):
        os.rename(tmp, final)
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
        fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                       ctypes.c_char_p, ctypes.c_uint]
        AT_FDCWD = -100
        if fn(AT_FDCWD, os.fsencode(tmp), AT_FDCWD, os.fsencode(final),
              _RENAME_EXCHANGE) == 0:
            return tmp  # tmp now holds the previous output
    except (AttributeError, OSError):
        pass
    old = final + ".old"
    if os.path.exists(old):
        shutil.rmtree(old)
    os.rename(final, old)
    os.rename(tmp, final)
    return old


def publish_once(tmp, final, stamp="stamp.json"):
    """Put the finished directory tmp at final, unless another run published
    the same content there first (final holds its stamp): then tmp is
    deleted.  For content-keyed directories, whose every copy is equal."""
    try:
        os.rename(tmp, final)
    except OSError:
        if not os.path.exists(os.path.join(final, stamp)):
            raise
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def dir_lock(path, shared):
    """An flock on directory path itself: shared for the readers of a tree
    in it (the build stage copying an output tree, the release packing it),
    exclusive for the writer that swaps a new tree into it."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def clean_stale(parent, prefix):
    """Remove parent/<prefix><pid>[-...] left by runs that are no longer alive."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for n in names:
        if not n.startswith(prefix):
            continue
        pid = n[len(prefix):].split("-", 1)[0]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
            continue        # still running
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        shutil.rmtree(os.path.join(parent, n), ignore_errors=True)


@contextlib.contextmanager
def staged_dir(final):
    """Yield a fresh sibling directory to fill; when the block ends without
    an exception it replaces final at once, else it is removed."""
    parent, name = os.path.split(os.path.abspath(final))
    os.makedirs(parent, exist_ok=True)
    prefix = f".{name}.partial-"
    clean_stale(parent, prefix)
    staging = os.path.join(parent, f"{prefix}{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    try:
        yield staging
        old = swap_into_place(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if old:
        shutil.rmtree(old, ignore_errors=True)


def repoint(directory, old, new, names):
    """Rewrite the path old as new in the named text files of directory
    (files written in a staging directory that name their own paths)."""
    for n in names:
        path = os.path.join(directory, n)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            continue
        if old in text:
            tmp = path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new))
            os.replace(tmp, path)
