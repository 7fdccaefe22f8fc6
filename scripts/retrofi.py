#!/usr/bin/python3
"""retrofi: put a new Linux wireless stack on older kernels.

A thin command line over the stages (retrofi_kernels, ...): each verb parses
its arguments, calls one stage and prints its result.  Run `retrofi.py -h`.
"""

import argparse
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import retrofi_boot  # noqa: E402
import retrofi_deb  # noqa: E402
import retrofi_fs  # noqa: E402
import retrofi_generate  # noqa: E402
import retrofi_interrupt  # noqa: E402
import retrofi_kernels  # noqa: E402
import retrofi_matrix  # noqa: E402
import retrofi_release  # noqa: E402
import retrofi_report  # noqa: E402
import retrofi_run  # noqa: E402
from retrofi_errors import RetrofiError  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _targets(value):
    """TARGETS="6.1 6.12" or "6.1,6.12"."""
    if not value:
        return []
    return [t for t in value.replace(",", " ").split() if t]


def _load(args):
    """The matrix, with the source SOURCE= names selected (a source's name,
    or the series of its pinned package: SOURCE=7.3)."""
    matrix = retrofi_matrix.load(args.matrix)
    name = os.environ.get("SOURCE", "")
    return matrix.with_source(_matrix_source_name(matrix, name)) if name else matrix


def _matrix_source_name(matrix, name):
    """The matrix's source a SOURCE value names, or None."""
    import retrofi_pins
    for s in matrix.all_sources():
        if name in (s.name, s.package):
            return s.name or s.package
    entries = retrofi_pins.load_lock(retrofi_pins.lock_path(matrix.path))
    for s in matrix.all_sources():
        pkgs = entries.get(s.key, {}).get("packages", [])
        if pkgs and pkgs[0]["name"] in (name, f"linux-source-{name}"):
            return s.name or s.package
    if name.startswith("linux-source-") or re.match(r"^\d+\.\d+$", name):
        return None
    return name          # with_source reports it, naming the sources


def cmd_kernels(args):
    matrix = _load(args)
    names = _targets(args.targets)
    if args.update:
        retrofi_kernels.update(matrix, names or None)
        return 0
    if args.verify:
        bad = retrofi_kernels.verify(matrix, names or None)
        if bad:
            raise RetrofiError(f"{len(bad)} cached package(s) do not match the lock file: "
                               + "; ".join(bad),
                               where=os.path.join(retrofi_kernels.cache_dir(), "debs"),
                               fix="run `make kernels`: it downloads them again")
        print("all cached packages verified")
        return 0
    if args.source_path:
        import contextlib
        with contextlib.redirect_stdout(sys.stderr):
            k = retrofi_kernels.fetch(matrix, names or None)
        print(k.source.path)
        return 0
    k = retrofi_kernels.fetch(matrix, names or None)
    if k.source:
        print(f"source  {k.source.package} {k.source.version}: {k.source.path}")
    for t in k.targets.values():
        print(f"target  {t.name:8} {t.kernelrelease} ({t.version}): KLIB={t.headers}")
    if k.unavailable:
        first = next(iter(k.unavailable.values()))
        raise RetrofiError(f"{len(k.unavailable)} target(s) cannot be fetched, the others are "
                           f"ready: {', '.join(k.unavailable)}; {first.what}",
                           where=first.where, fix=first.fix)
    return 0


def _source(matrix, package=None, suites=None):
    """The source tree record for the generator, fetched if needed.

    With a package the matrix does not name (refresh), it is pinned in a
    lock file in the cache, never in the committed kernel-matrix.lock.
    """
    path = matrix.path
    src = matrix.source
    if package:
        src = retrofi_matrix.Source(package=package, suites=tuple(suites))
        path = os.path.join(retrofi_kernels.cache_dir(), "refresh", "kernel-matrix.yaml")
        os.makedirs(os.path.dirname(path), exist_ok=True)
    only_source = retrofi_matrix.Matrix(path=path, source=src, targets=())
    return retrofi_kernels.fetch(only_source).source


def cmd_generate(args):
    matrix = _load(args)
    source = _source(matrix)
    result = retrofi_generate.generate(source, args.out, jobs=args.jobs, timeout=args.timeout)
    print(result.summary())
    return 0


def cmd_release(args):
    matrix = _load(args)
    source = _source(matrix)
    result = retrofi_generate.generate(source, args.out, jobs=args.jobs, timeout=args.timeout)
    print(result.summary())
    rel = retrofi_release.release(result.out_path, args.out, source.mtime)
    print(f"release {rel.tarball}\nsha256  {rel.sha256}")
    return 0


def cmd_deb(args):
    tarball = args.tarball
    if not tarball:
        matrix = _load(args)
        source = _source(matrix)
        result = retrofi_generate.generate(source, args.out, jobs=args.jobs,
                                           timeout=args.timeout)
        print(result.summary())
        tarball = retrofi_release.release(result.out_path, args.out, source.mtime).tarball
        print(f"release {tarball}")
    deb = retrofi_deb.build_deb(tarball, args.out, args.revision)
    print(f"deb     {deb.deb}\ndkms    retrofi/{deb.dkms_version} (/usr/src/retrofi-{deb.dkms_version})")
    return 0


def _refresh_source(matrix, wanted, suites):
    """What `make refresh` checks: (source tree, baseline tree or None).

    wanted: a source of the matrix (name, package or pinned series), a
    Debian package linux-source-X.Y (or X.Y), or "" for the newest
    linux-source the private apt lists know. Without suites, the suites
    that serve it are read from those lists (a suite whose Release expired,
    such as an old sid, is never needed)."""
    import retrofi_apt
    name = _matrix_source_name(matrix, wanted) if wanted else None
    if name is not None and not suites:
        chosen = matrix.with_source(name)
        tree = _source(chosen)
    else:
        package = wanted if not wanted or wanted.startswith("linux-source-") \
            else f"linux-source-{wanted}"
        if not suites:
            found = retrofi_apt.served(retrofi_kernels.cache_dir(), package or "linux-source-*")
            if not found:
                raise RetrofiError(f"no suite in the private apt lists serves "
                                   f"{package or 'a linux-source package'}",
                                   where=os.path.join(retrofi_kernels.cache_dir(), "apt"),
                                   fix="name the suites: make refresh SOURCE=... "
                                       "SOURCE_SUITES=trixie-backports (or run `make kernels` "
                                       "once, which fetches the matrix's lists)")
            package, suite = found[0][0], found[0][2]
            suites = [suite]
            print(f"refresh: {package} {found[0][1]} from {suite} (private apt lists)", flush=True)
        tree = _source(matrix, package, suites)
    # Baseline for "newly included" headers: the matrix's selected source,
    # or its long-term one when that is the source refreshed.
    base = None
    for cand in [matrix.source] + [s for s in matrix.all_sources() if s.lts]:
        b = _source(matrix.with_source(cand.name) if cand.name else matrix)
        if b.path != tree.path:
            base = b
            break
    return tree, base


def cmd_refresh(args):
    matrix = _load(args) if not args.source else retrofi_matrix.load(args.matrix)
    source, base = _refresh_source(matrix, args.source, _targets(args.suites))
    result = retrofi_generate.refresh(source, jobs=args.jobs, timeout=args.timeout,
                                      baseline=base)
    print(result.summary())
    return 0 if result.ok else 1


def cmd_matrix(args):
    matrix = _load(args)
    names = _targets(args.targets) + ([args.target] if args.target else [])
    selected = matrix.select(names or None)
    if args.list:
        print(json.dumps([{"name": t.name, "kind": t.kind} for t in selected]))
        return 0
    if args.stress and args.no_boot:
        raise RetrofiError("--stress boots the targets; it cannot go with --no-boot",
                           fix="drop one of them")
    mode = "stress" if args.stress else "tests"
    if not args.no_boot and any(t.kind != retrofi_matrix.BUILD_ONLY for t in selected) \
            and not shutil.which(retrofi_boot.QEMU):
        # Before any work: a build takes minutes, the boot would then fail.
        raise RetrofiError(f"{retrofi_boot.QEMU} not found",
                           fix="apt-get install qemu-system-x86 (scripts/bootstrap installs it), "
                               "or build without booting: make matrix-build")
    print(f"retrofi matrix: targets {', '.join(t.name for t in selected)}"
          + (" (build only: no boot)" if args.no_boot else "")
          + (" (stress: 50 reload cycles)" if args.stress else ""), flush=True)
    report = os.path.abspath(args.report or os.path.join(
        args.out, "report-stress" if args.stress else "report"))
    # The report directory appears complete or not at all: an interrupted
    # or failed run leaves the previous report and its logs as they were.
    with retrofi_fs.staged_dir(report) as staging:
        rows = retrofi_run.run(matrix, names or None, out_dir=args.out,
                               report_dir=staging, boot=not args.no_boot, mode=mode,
                               rerun=args.rerun)
        retrofi_fs.repoint(staging, staging, report, ("report.json", "junit.xml"))
        for r in rows:
            r.logs = {k: v.replace(staging, report, 1) for k, v in r.logs.items()}
    print()
    print(retrofi_report.table(rows))
    print(f"\nreport: {report}/report.json, {report}/junit.xml; logs in {report}/<target>/")
    return 0 if all(r.ok or (args.no_boot and r.build == "ok") for r in rows) else 1


def cmd_report_merge(args):
    rows = retrofi_report.merge(args.reports, args.out)
    print(retrofi_report.table(rows))
    return 0 if all(r.ok for r in rows) else 1


def cmd_sweep_table(args):
    import retrofi_sweep_table
    rows = retrofi_sweep_table.read_report(args.report)
    if args.update_doc:
        retrofi_sweep_table.update_doc(args.update_doc, rows)
        print(f"{args.update_doc}: sweep table rewritten from {args.report} ({len(rows)} rows)")
    else:
        print(retrofi_sweep_table.block(rows))
    return 0


def cmd_list(args):
    matrix = _load(args)
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
    g.add_argument("--source-path", action="store_true",
                   help="fetch, then print only the source tree's path (for scripts)")
    p.set_defaults(func=cmd_kernels)

    def gen_args(p):
        p.add_argument("--out", default=os.path.join(REPO, "out"),
                       help="where the output tree (and tarball) go (default: out/)")
        p.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                       help="parallel spatch runs (default: the core count)")
        p.add_argument("--timeout", type=int,
                       default=int(os.environ.get("RETROFI_SPATCH_TIMEOUT", "120")),
                       help="seconds one rule may take on one file (default 120, "
                            "or RETROFI_SPATCH_TIMEOUT)")

    p = sub.add_parser("generate", help="write the output tree out/<name>-<source version>/")
    gen_args(p)
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("release", help="generate, then pack the output tree as a reproducible tar.xz")
    gen_args(p)
    p.set_defaults(func=cmd_release)

    p = sub.add_parser("deb", help="release, then build the retrofi-dkms .deb from the tarball")
    gen_args(p)
    p.add_argument("--tarball", default=os.environ.get("TARBALL", ""),
                   help="build from this release tarball (default: generate and release first)")
    p.add_argument("--revision", type=int, default=int(os.environ.get("DEB_REVISION") or 1),
                   help="the Debian revision n of <source version>-n (default 1, or DEB_REVISION)")
    p.set_defaults(func=cmd_deb)

    p = sub.add_parser("refresh", help="dry-run the rules, the copy list and the Kbuild lists "
                                       "against a source; exit 1 on any drift")
    p.add_argument("--source", default=os.environ.get("SOURCE", ""),
                   help="a source of the matrix (newest, 6.12, 7.3) or a Debian package "
                        "(linux-source-7.2); default: the newest linux-source the private "
                        "apt lists know")
    p.add_argument("--suites", default=os.environ.get("SOURCE_SUITES", ""),
                   help="apt suites to find it in (default: those whose lists serve it)")
    gen_args(p)
    p.set_defaults(func=cmd_refresh)

    p = sub.add_parser("matrix", help="the main job: kernels, generate, build, boot, report")
    p.add_argument("--targets", default=os.environ.get("TARGETS", ""),
                   help="targets to run (default: the matrix's default ones)")
    p.add_argument("--target", default="", help="one target (a CI shard)")
    p.add_argument("--list", action="store_true",
                   help="print the selected targets as JSON (a CI job matrix) and stop")
    p.add_argument("--no-boot", action="store_true",
                   help="build only; the report marks every row as not booted")
    p.add_argument("--out", default=os.path.join(REPO, "out"), help="output directory")
    p.add_argument("--report", default="", help="report directory (default: <out>/report, "
                                                    "<out>/report-stress with --stress)")
    p.add_argument("--stress", action="store_true",
                   help="instead of the guest tests: 50 unload/reload cycles of the stack, "
                        "an association after every 10th (make stress)")
    p.add_argument("--rerun", action="store_true",
                   default=os.environ.get("RERUN", "") not in ("", "0"),
                   help="boot every row anew, even one whose kernel, initramfs and QEMU "
                        "a stored boot already ran (make matrix RERUN=1)")
    p.set_defaults(func=cmd_matrix)

    p = sub.add_parser("report-merge", help="combine shards' report.json into one report")
    p.add_argument("reports", nargs="+", help="report.json files of the shards")
    p.add_argument("--out", default=os.path.join(REPO, "out", "report"),
                   help="where the merged report goes (default: out/report)")
    p.set_defaults(func=cmd_report_merge)

    p = sub.add_parser("sweep-table", help="the sweep table of docs/sweep.md from a sweep's report.json")
    p.add_argument("report", help="report.json of a sweep (make matrix TARGETS=sweep-all)")
    p.add_argument("--update-doc", metavar="PAGE",
                   help="rewrite the block between that file's sweep-table markers")
    p.set_defaults(func=cmd_sweep_table)

    p = sub.add_parser("list", help="print the selected targets as JSON (for a CI job matrix)")
    p.add_argument("--targets", default=os.environ.get("TARGETS", ""))
    p.set_defaults(func=cmd_list)

    args = ap.parse_args(argv)
    retrofi_interrupt.install()
    try:
        return args.func(args)
    except RetrofiError as e:
        print(e.format(), file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("retrofi: interrupted; nothing half-written was kept (run the same command "
              "again: it reuses what was complete)", file=sys.stderr)
        return retrofi_interrupt.exit_code()


if __name__ == "__main__":
    sys.exit(main())
