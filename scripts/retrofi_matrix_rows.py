"""The families' build-only rows, from the lock file.

One job: a matrix's `kind: family` entries name a kernel line and its
flavours; `make kernels-update` pins every ABI the archive serves as a lock
entry "target:<abi>-<flavour>" with "family". with_rows() turns those
entries into the matrix's build-only rows (retrofi_matrix.load calls it);
this module reads the lock file for that, and never writes it
(retrofi_pins does).
"""

import dataclasses
import re

from retrofi_errors import RetrofiError


def lock_path(matrix_path):
    base = matrix_path[:-5] if matrix_path.endswith(".yaml") else matrix_path
    return base + ".lock"


def with_rows(matrix, entries):
    """The matrix with its families' build-only rows, as the lock file's
    entries pin them (an entry "target:<abi>-<flavour>" with "family")."""
    if not matrix.families:
        return matrix
    names = {t.name for t in matrix.targets}
    rows, majors = [], []
    for key, e in sorted(entries.items()):
        if key.startswith("target:") and not e.get("family") and key[7:] in names:
            m = re.match(r"^(\d+\.\d+)", e.get("version", ""))
            if m and m.group(1) not in majors:
                majors.append(m.group(1))
        if not key.startswith("target:") or not e.get("family"):
            continue
        fam = next((f for f in matrix.families if f.name == e["family"]), None)
        if fam is None or e.get("flavour") not in fam.flavours:
            continue          # a family since removed or changed: kernels-update drops it
        t = fam.target(e["flavour"], e["abi"], e["version"])
        if t.name != key[7:] or t.name in names:
            raise RetrofiError(f"lock entry {key} does not name its row {t.name}, or clashes "
                               f"with a target", where=lock_path(matrix.path),
                               fix="run `make kernels-update`")
        rows.append(t)
    import retrofi_debversion
    order = {f.name: i for i, f in enumerate(matrix.families)}
    rows.sort(key=lambda t: (retrofi_debversion.sort_key(t.major), order[t.family],
                             retrofi_debversion.sort_key(t.version),
                             matrix.family(t.family).flavours.index(t.flavour)))
    return dataclasses.replace(matrix, targets=matrix.targets + tuple(rows),
                               real_majors=tuple(majors))


def _lock_entries(path):
    """The lock file's entries, or {} (retrofi_pins owns the file and its errors)."""
    import json
    try:
        data = json.load(open(lock_path(path)))
        return data["entries"] if isinstance(data.get("entries"), dict) else {}
    except (OSError, ValueError, AttributeError, KeyError):
        return {}
