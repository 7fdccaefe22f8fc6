"""Putting a finished directory in place, shared by the stages that write
one (the kernel stage's unpacked trees, the generator's output tree)."""

import ctypes
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
