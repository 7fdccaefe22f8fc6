"""Debian version comparison (deb-version(7)), so that 'newest' means what
apt means by it without calling dpkg once per pair."""

import functools
import re

_VERSION_RE = re.compile(r"^(?:(\d+):)?([0-9][A-Za-z0-9.+~-]*?)(?:-([A-Za-z0-9.+~]+))?$")


def _order(c):
    if c == "~":
        return -1
    if c.isdigit():
        return 0
    if c.isalpha():
        return ord(c)
    return ord(c) + 256


def _compare_part(a, b):
    while a or b:
        a_str = re.match(r"^[^0-9]*", a).group(0)
        b_str = re.match(r"^[^0-9]*", b).group(0)
        a, b = a[len(a_str):], b[len(b_str):]
        for i in range(max(len(a_str), len(b_str))):
            ca = _order(a_str[i]) if i < len(a_str) else 0
            cb = _order(b_str[i]) if i < len(b_str) else 0
            if ca != cb:
                return -1 if ca < cb else 1
        a_num = re.match(r"^[0-9]*", a).group(0)
        b_num = re.match(r"^[0-9]*", b).group(0)
        a, b = a[len(a_num):], b[len(b_num):]
        na, nb = int(a_num or 0), int(b_num or 0)
        if na != nb:
            return -1 if na < nb else 1
    return 0


def split(version):
    m = _VERSION_RE.match(version)
    if not m:
        raise ValueError(f"not a Debian version: {version!r}")
    return int(m.group(1) or 0), m.group(2), m.group(3) or "0"


def compare(a, b):
    """-1, 0 or 1 as Debian version a is older than, equal to or newer than b."""
    ea, ua, ra = split(a)
    eb, ub, rb = split(b)
    if ea != eb:
        return -1 if ea < eb else 1
    return _compare_part(ua, ub) or _compare_part(ra, rb)


sort_key = functools.cmp_to_key(compare)


def satisfies(version, op, wanted):
    """Whether version satisfies a Depends relation such as (>= wanted)."""
    c = compare(version, wanted)
    return {"=": c == 0, ">=": c >= 0, "<=": c <= 0, ">>": c > 0, "<<": c < 0}[op]
