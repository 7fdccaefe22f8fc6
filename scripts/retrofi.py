#!/usr/bin/python3
"""retrofi: put a new Linux wireless stack on older kernels.

A thin command line over the stages (retrofi_kernels, ...): each verb parses
its arguments, calls one stage and prints its result.  Run `retrofi.py -h`.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import retrofi_kernels  # noqa: E402
import retrofi_matrix  # noqa: E402
from retrofi_errors import RetrofiError  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _targets(value):
    """TARGETS="6.1 6.12" or "6.1,6.12"."""
    if not value:
        return []
    return [t for t in value.replace(",", " ").split() if t]


def cmd_kernels(args):
    matrix = retrofi_matrix.load(args.matrix)
    names = _targets(args.targets)
    if args.update:
        retrofi_kernels.update(matrix, names or None)
        return 0
    if args.verify:
        bad = retrofi_kernels.verify(matrix, names or None)
        for b in bad:
            print(f"retrofi: {b}")
        print("all cached packages verified" if not bad else f"{len(bad)} problem(s)")
        return 1 if bad else 0
    k = retrofi_kernels.fetch(matrix, names or None)
    if k.source:
        print(f"source  {k.source.package} {k.source.version}: {k.source.path}")
    for t in k.targets.values():
        print(f"target  {t.name:8} {t.kernelrelease} ({t.version}): KLIB={t.headers}")
    return 0


def cmd_matrix(args):
    matrix = retrofi_matrix.load(args.matrix)
    names = _targets(args.targets)
    selected = matrix.select(names or None)
    print(f"retrofi matrix: targets {', '.join(t.name for t in selected)}")
    retrofi_kernels.fetch(matrix, names or None)
    print("retrofi matrix: kernels ready. Not built yet in this version: generate, build, "
          "initramfs, boot and report (issues #4, #5, #6).")
    return 0


def cmd_list(args):
    import json
    matrix = retrofi_matrix.load(args.matrix)
    sel = matrix.select(_targets(args.targets) or None)
    print(json.dumps([{"name": t.name, "kind": t.kind} for t in sel]))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="retrofi", description=__doc__.splitlines()[0])
    ap.add_argument("--matrix", default=os.path.join(REPO, "kernel-matrix.yaml"),
                    help="the matrix file (default: kernel-matrix.yaml)")
    sub = ap.add_subparsers(dest="verb", required=True)

    p = sub.add_parser("kernels", help="fetch, verify and unpack the source and target kernels")
    p.add_argument("--targets", default=os.environ.get("TARGETS", ""),
                   help="targets to fetch (default: the matrix's default ones)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--update", action="store_true",
                   help="re-resolve the pins in the lock file to the newest packages (no download)")
    g.add_argument("--verify", action="store_true",
                   help="re-check every cached package against the lock file's sha256")
    p.set_defaults(func=cmd_kernels)

    p = sub.add_parser("matrix", help="the main job: kernels, generate, build, boot, report")
    p.add_argument("--targets", default=os.environ.get("TARGETS", ""))
    p.set_defaults(func=cmd_matrix)

    p = sub.add_parser("list", help="print the selected targets as JSON (for a CI job matrix)")
    p.add_argument("--targets", default=os.environ.get("TARGETS", ""))
    p.set_defaults(func=cmd_list)

    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except RetrofiError as e:
        print(e.format(), file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("retrofi: interrupted; nothing half-written was kept", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
