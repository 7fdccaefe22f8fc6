"""Debian version comparison (deb-version(7)), so that 'newest' means what
apt means by it: apt's own comparison (python3-apt's apt_pkg), not a copy
of it, and without calling dpkg once per pair."""

import functools
import re

import apt_pkg

apt_pkg.init_system()

# epoch:upstream-revision, as deb-version(7) allows it.
_VERSION_RE = re.compile(r"^(?:\d+:)?[0-9][A-Za-z0-9.+~:-]*$")


def _checked(version):
    if not isinstance(version, str) or not _VERSION_RE.match(version):
        raise ValueError(f"not a Debian version: {version!r}")
    return version


def compare(a, b):
    """-1, 0 or 1 as Debian version a is older than, equal to or newer than b."""
    c = apt_pkg.version_compare(_checked(a), _checked(b))
    return (c > 0) - (c < 0)


sort_key = functools.cmp_to_key(compare)


def satisfies(version, op, wanted):
    """Whether version satisfies a Depends relation such as (>= wanted)."""
    c = compare(version, wanted)
    return {"=": c == 0, ">=": c >= 0, "<=": c <= 0, ">>": c > 0, "<<": c < 0}[op]
