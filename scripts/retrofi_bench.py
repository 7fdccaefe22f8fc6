#!/usr/bin/python3
"""retrofi bench: how fast retrofi is, against baselines measured in the
same run on the same machine.  `make bench` (COLD=1 adds a cold matrix).

Every figure is a ratio to a baseline measured in this run, or a wall time
in this run, shown with its goal and whether it is met; the results go to
bench/results/<date>-<host>.json and are compared with the newest earlier
result there.  The machine's load average before and after is recorded:
figures taken on a loaded machine say so.

--smoke runs the same code on a tiny synthetic project (a few files, two
rules, a user-space make instead of Kbuild) in seconds, without kernels or
QEMU; `make check` runs it (tests/scripts/test_bench.py).
"""

import argparse
import dataclasses
import datetime
import json
import os
import re
import shutil
import socket
import sys
import tempfile
import textwrap
from typing import Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import retrofi_bench_measure as measure  # noqa: E402
import retrofi_generate  # noqa: E402
from retrofi_errors import RetrofiError  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "bench", "results")
FORMAT = 1

# key -> (what is measured, unit, goal: at most this)
GOALS = {
    "generate_cold_s": ("generation, cold (empty spatch cache)", "s", 10.0),
    "generate_cold_vs_floor": ("generation cold / floor (1 spatch --jobs per rule)", "x", 1.2),
    "generate_warm_s": ("generation, warm", "s", 1.5),
    "build_vs_plain": ("build / plain make M= (6.12 headers, same -j)", "x", 1.05),
    "build_cpu_vs_plain": ("build CPU time / plain make M= CPU time", "x", 1.05),
    "incremental_vs_plain": ("rebuild after touching one mac80211 .c / plain", "x", 1.1),
    "build_drivers_vs_stack": ("build with every vendor driver (defconfig drivers) / the "
                               "stack alone (wifi), 6.12 headers", "x", 4.0),
    "boot_tests_s": ("boot and guest tests, one target (TCG)", "s", 30.0),
    "matrix_warm_s": ("make matrix, warm (default targets)", "s", 60.0),
    "matrix_cold_s": ("make matrix, cold (empty cache, downloads)", "s", 25 * 60.0),
}


@dataclasses.dataclass
class Figure:
    key: str                  # a GOALS key, or "boot_tests_s:<target>"
    value: Optional[float]    # None: not measured (detail says why)
    detail: str = ""

    @property
    def goal(self):
        return GOALS[self.key.split(":")[0]][2]

    @property
    def unit(self):
        return GOALS[self.key.split(":")[0]][1]

    @property
    def name(self):
        what = GOALS[self.key.split(":")[0]][0]
        if ":" not in self.key:
            return what
        which = self.key.split(":", 1)[1]
        return what.replace("one target", which) if "one target" in what \
            else f"{what}, source {which}"

    @property
    def met(self):
        return None if self.value is None else self.value <= self.goal

    def to_json(self):
        return {"key": self.key, "name": self.name, "value": self.value, "unit": self.unit,
                "goal": self.goal, "met": self.met, "detail": self.detail}


def _fmt(value, unit):
    if value is None:
        return "-"
    return f"{value:.2f}x" if unit == "x" else f"{value:.1f} s"


def table(figures, previous=None):
    """The figures as a text table; previous: {key: value} of the last result."""
    previous = previous or {}
    head = ("figure", "value", "goal", "met", "previous", "detail")
    lines = [head]
    for f in figures:
        prev = previous.get(f.key)
        lines.append((f.name, _fmt(f.value, f.unit), "<= " + _fmt(f.goal, f.unit),
                      {True: "yes", False: "NO", None: "not run"}[f.met],
                      _fmt(prev, f.unit), f.detail))
    widths = [max(len(l[i]) for l in lines) for i in range(len(head) - 1)]
    out = ["  ".join([v.ljust(w) for v, w in zip(l[:-1], widths)] + [l[-1]]).rstrip()
           for l in lines]
    out.insert(1, "-" * len(out[0]))
    measured = [f for f in figures if f.met is not None]
    out.append(f"{sum(1 for f in measured if f.met)} of {len(measured)} measured goals met"
               + (f"; {len(figures) - len(measured)} not run" if len(measured) < len(figures)
                  else ""))
    return "\n".join(out)


# ---------------------------------------------------------------- results


def previous_result(results_dir):
    """(path, {key: value}) of the newest result (by the date it records;
    a later run of the same day and host has the higher .N), or (None, {})."""
    try:
        names = sorted(n for n in os.listdir(results_dir) if n.endswith(".json"))
    except FileNotFoundError:
        return None, {}
    newest = None
    for name in names:
        path = os.path.join(results_dir, name)
        try:
            with open(path) as f:
                data = json.load(f)
            when = str(data["date"])
            figures = {x["key"]: x["value"] for x in data["figures"]}
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise RetrofiError(f"not a bench result ({e.__class__.__name__}: {e})", where=path,
                               fix="remove or repair it; bench results are written by "
                                   "scripts/retrofi_bench.py")
        seq = re.search(r"\.(\d+)\.json$", name)
        order = (when, int(seq.group(1)) if seq else 1)
        if newest is None or order > newest[0]:
            newest = (order, path, figures)
    return (newest[1], newest[2]) if newest else (None, {})


def result_path(results_dir, when, host):
    """<date>-<host>.json, or <date>-<host>.N.json for the Nth run of that
    day on that host: a result is never overwritten."""
    base = os.path.join(results_dir, f"{when:%Y-%m-%d}-{host}")
    path, n = f"{base}.json", 1
    while os.path.exists(path):
        n += 1
        path = f"{base}.{n}.json"
    return path


def write_result(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".bench-")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------- figures


def generation_figures(g, source_name=""):
    """The generation figures of one source: the selected one's keys are
    plain ("generate_cold_s"), another source's carry its name
    ("generate_cold_s:newest")."""
    suffix = f":{source_name}" if source_name else ""
    return [
        Figure("generate_cold_s" + suffix, g["cold"],
               f"{g['files']} files, {g['spatch_runs']} (rule, file) results computed"),
        Figure("generate_cold_vs_floor" + suffix, g["cold"] / g["floor"],
               f"cold {g['cold']:.1f} s, floor {g['floor']:.1f} s"),
        Figure("generate_warm_s" + suffix, g["warm"], f"{g['warm_runs']} spatch results computed"),
    ]


def build_figures(b):
    return [
        Figure("build_vs_plain", b["full"] / b["full_plain"],
               f"{b['full']:.1f} s ({b['objects']} objects) vs plain {b['full_plain']:.1f} s "
               f"({b['objects_plain']} objects)"),
        Figure("build_cpu_vs_plain", b["full_cpu"] / b["full_plain_cpu"],
               f"{b['full_cpu']:.1f} CPU s vs plain {b['full_plain_cpu']:.1f} CPU s "
               f"(user + system; less sensitive to the machine's load than wall time)"),
        Figure("incremental_vs_plain", b["incremental"] / b["incremental_plain"],
               f"{b['incremental']:.1f} s vs plain {b['incremental_plain']:.1f} s "
               f"(touched {measure.TOUCHED})"),
    ]


def boot_figures(rows):
    out = []
    for r in rows:
        st = r.get("stages") or {}
        if r.get("boot") == "not run" or "build" not in st:
            out.append(Figure(f"boot_tests_s:{r['target']}", None, f"boot: {r.get('boot')}"))
            continue
        if r.get("boot_reused"):
            out.append(Figure(f"boot_tests_s:{r['target']}", None,
                              f"not booted in this run (the stored boot of {r['boot_reused']})"))
            continue
        wall = r["seconds"] - st.get("build", 0) - st.get("initramfs", 0)
        guest = (f"; guest clock: to /init {st['boot']:.1f} s, tests {st['tests']:.1f} s"
                 if "boot" in st and "tests" in st else "")
        out.append(Figure(f"boot_tests_s:{r['target']}", wall,
                          f"{r.get('accel') or '?'}, {r.get('boot')}{guest}"))
    return out


def _matrix_detail(seconds, code, rows, accel):
    builds = ", ".join(f"{r['target']} {(r.get('stages') or {}).get('build', 0):.0f}"
                       for r in rows)
    reused = sum(1 for r in rows if r.get("boot_reused"))
    return (f"exit {code}, accel {accel or '?'}, {sum(1 for r in rows if r.get('ok'))}/"
            f"{len(rows)} rows ok; build s: {builds}; stored boots reused: {reused}")


# ---------------------------------------------------------------- smoke input

SMOKE_RULE = """\
// must-match: yes
// upstream: "foo: add foo_new()" (v9.9, synthetic: the bench's smoke input)
// targets: < 9.9
@@
expression E;
@@
-foo_new(E);
+foo_old(E);
"""

SMOKE_MAKEFILE = """\
SRCS := $(shell find . -name '*.c')
all: $(SRCS:.c=.o)
%.o: %.c
\t$(CC) -c -o $@ $<
"""


def smoke_world(root):
    """A tiny project and source tree: (repo, SourceTree)."""
    files = {
        "repo/drivers/copy-list": "dir net/mac80211 *.c *.h\n",
        "repo/drivers/out-tree/Makefile": SMOKE_MAKEFILE,
        "repo/include/linux/compat-x.h": "/* compat */\n",
        "repo/compat/main.c": "int compat_main(void) { return 0; }\n",
        "repo/semantic-patches/0001-foo.cocci": SMOKE_RULE,
        "repo/semantic-patches/0002-bar.cocci": SMOKE_RULE.replace("foo", "bar"),
        "src/Makefile": "# kernel\n",
        "src/net/mac80211/foo.h": "void foo_new(int);\nvoid foo_old(int);\n"
                                  "void bar_new(int);\nvoid bar_old(int);\n",
    }
    for i in range(6):
        files[f"src/net/mac80211/f{i}.c"] = textwrap.dedent(f"""\
            #include "foo.h"
            void f{i}(void)
            {{
            \tfoo_new({i});
            \tbar_new({i});
            }}
            """)
    files["src/net/mac80211/main.c"] = '#include "foo.h"\nint main_x(void) { return 1; }\n'
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    src = retrofi_generate.SourceTree("linux-source-9.9", "9.9.1-1",
                                      os.path.join(root, "src"), 1700000000)
    return os.path.join(root, "repo"), src


def smoke_builds(generated, source, repo, work, jobs):
    gen_tree = os.path.join(work, "build-generated")
    plain = os.path.join(work, "build-plain")
    for t in (gen_tree, plain):
        shutil.rmtree(t, ignore_errors=True)
    shutil.copytree(generated, gen_tree)
    shutil.copytree(os.path.join(source.path, "net"), os.path.join(plain, "net"))
    with open(os.path.join(plain, "Makefile"), "w") as f:
        f.write(SMOKE_MAKEFILE)
    return measure.builds(gen_tree, plain, ["make", "-C", gen_tree, f"-j{jobs}"],
                          lambda: ["make", "-C", plain, f"-j{jobs}"], work)


# ---------------------------------------------------------------- the run


def run(args):
    results_dir = os.path.abspath(args.results_dir)
    prev_path, previous = previous_result(results_dir)
    now = datetime.datetime.now(datetime.timezone.utc)
    host = socket.gethostname().split(".")[0] + ("-smoke" if args.smoke else "")
    path = result_path(results_dir, now, host)
    jobs = args.jobs or os.cpu_count() or 2
    data = {"format": FORMAT, "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "host": host,
            "smoke": args.smoke, "cores": os.cpu_count(), "jobs": jobs,
            "commit": _checkout(REPO), "project_version": retrofi_generate.project_version(REPO),
            "load_before": measure.loadavg(),
            "previous": os.path.basename(prev_path) if prev_path else None, "figures": []}
    figures = []

    def record(new):
        figures.extend(new)
        data["figures"] = [f.to_json() for f in figures]
        data["load_after"] = measure.loadavg()
        write_result(path, data)
        for f in new:
            print(f"[bench] {f.name}: {_fmt(f.value, f.unit)} "
                  f"(goal <= {_fmt(f.goal, f.unit)}) {f.detail}", flush=True)

    work = tempfile.mkdtemp(prefix="retrofi-bench-", dir=args.work_dir)
    try:
        others = []      # (name, SourceTree) of the matrix's other sources
        if args.smoke:
            repo, source = smoke_world(os.path.join(work, "world"))
            kernel = None
        else:
            repo = REPO
            source, kernel, others = _kernels()
        print(f"[bench] generation: {source.package} {source.version}, -j{jobs}", flush=True)
        g, generated = measure.generation(source, repo, work, jobs)
        record(generation_figures(g))
        lines = [(source, generated)]
        for name, other in others:
            print(f"[bench] generation, source {name}: {other.package} {other.version}, "
                  f"-j{jobs}", flush=True)
            other_work = os.path.join(work, f"source-{name}")
            os.makedirs(other_work)
            g, other_tree = measure.generation(other, repo, other_work, jobs)
            record(generation_figures(g, name))
            lines.append((other, other_tree))
        # The plain build of the upstream files needs headers of their own
        # line: the source of the kernel's line when the matrix has one.
        bsource, btree = next(((s, t) for s, t in lines if kernel and _same_line(s, kernel)),
                              (source, generated))
        print(f"[bench] builds: generated tree and plain make M= ({bsource.package})",
              flush=True)
        try:
            if args.smoke:
                b = smoke_builds(generated, source, repo, work, jobs)
            else:
                b = measure.kernel_builds(btree, bsource.path, kernel, repo, work, jobs)
        except RetrofiError as e:
            # The other figures are still worth having; this one says why not.
            print(e.format(), file=sys.stderr)
            record([Figure(k, None, f"not measured: {e.what} ({e.where})")
                    for k in ("build_vs_plain", "build_cpu_vs_plain",
                              "incremental_vs_plain")])
        else:
            record(build_figures(b))
        record([_drivers_figure(args, generated, kernel, work, jobs)])
        record(_matrix_figures(args, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(f"retrofi bench at {data['commit']} on {host} ({data['cores']} cores), load average "
          f"before {data['load_before']}, after {data['load_after']}")
    print(table(figures, previous))
    print(f"\nresult: {path}" + (f"; previous: {prev_path}" if prev_path else "; no previous"))
    return 0


def _checkout(repo):
    """The checkout the bench ran from (HEAD, "-dirty" with local changes)."""
    p = retrofi_generate._git(repo, "describe", "--always", "--dirty", "--abbrev=12")
    return p.stdout.strip() if p is not None and p.returncode == 0 else "unknown"


def _kernels():
    """The selected source, the 6.12 target the builds use, and every other
    source of the matrix as (name, SourceTree): generation is measured for
    each."""
    import retrofi_kernels
    import retrofi_matrix
    matrix = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    k = retrofi_kernels.fetch(matrix, ["6.12"])
    others = [(s.name, retrofi_kernels.fetch(matrix.with_source(s.name), ["6.12"]).source)
              for s in matrix.sources if s.name != matrix.source.name]
    return k.source, k.target("6.12"), others


def _same_line(source, kernel):
    """Whether source is of kernel's line (6.12.118-1 and 6.12.118+deb12)."""
    return source.version.split(".")[:2] == kernel.version.split(".")[:2]


def _drivers_figure(args, generated, kernel, work, jobs):
    """A row's build cost with every vendor driver against the stack alone:
    the selected source's generated tree built with defconfig drivers and
    with defconfig wifi, the same headers and -j, one after the other."""
    if args.smoke:
        return Figure("build_drivers_vs_stack", None,
                      "not measured (smoke mode: the synthetic tree has no vendor drivers)")
    try:
        print("[bench] build with every vendor driver (defconfig drivers)", flush=True)
        d = measure.defconfig_build(generated, kernel, work, jobs, "drivers")
        print("[bench] build of the stack alone (defconfig wifi)", flush=True)
        w = measure.defconfig_build(generated, kernel, work, jobs, "wifi")
    except RetrofiError as e:
        print(e.format(), file=sys.stderr)
        return Figure("build_drivers_vs_stack", None, f"not measured: {e.what} ({e.where})")
    return Figure("build_drivers_vs_stack", d["seconds"] / w["seconds"],
                  f"{d['seconds']:.1f} s ({d['modules']} modules) vs {w['seconds']:.1f} s "
                  f"({w['modules']} modules); CPU {d['cpu']:.1f} s vs {w['cpu']:.1f} s "
                  f"({d['cpu'] / w['cpu']:.2f}x)")


def _matrix_figures(args, work):
    if args.smoke or args.no_matrix:
        why = "smoke mode" if args.smoke else "--no-matrix"
        return [Figure("boot_tests_s", None, f"not run ({why})"),
                Figure("matrix_warm_s", None, f"not run ({why})"),
                Figure("matrix_cold_s", None, f"not run ({why})")]
    out = []
    mout = os.path.join(work, "matrix")
    head = retrofi_generate.project_version(REPO)
    env = None
    if args.cold:
        # The cold run, in an empty cache of its own, is also the warm-up
        # of the warm run that follows in the same cache.
        env = {"RETROFI_CACHE": os.path.join(work, "cold-cache")}
        print("[bench] make matrix, cold: empty cache, downloads included (timed)", flush=True)
        s, code, booted, accel = measure.matrix_run(mout, env=env)
        out.append(Figure("matrix_cold_s", s, _matrix_detail(s, code, booted, accel)))
    else:
        # Every row boots anew here: the per-target boot figures come from
        # this run; the timed warm run below reuses its stored boots.
        print("[bench] make matrix RERUN=1: warms the caches, times the boots", flush=True)
        _, _, booted, _ = measure.matrix_run(mout, env={"RERUN": "1"})
    print("[bench] make matrix, warm (timed)", flush=True)
    s, code, rows, accel = measure.matrix_run(mout, env=env)
    detail = _matrix_detail(s, code, rows, accel)
    if retrofi_generate.project_version(REPO) != head:
        detail += "; NOT WARM: the tree's inputs changed during the run (new build keys)"
    out.append(Figure("matrix_warm_s", s, detail))
    out += boot_figures(booted)
    if not args.cold:
        out.append(Figure("matrix_cold_s", None, "not run (make bench COLD=1)"))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="retrofi_bench", description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="a tiny synthetic input, in seconds")
    ap.add_argument("--cold", action="store_true",
                    help="also a cold make matrix (empty cache, downloads; long)")
    ap.add_argument("--no-matrix", action="store_true", help="leave out the matrix figures")
    ap.add_argument("--jobs", type=int, default=0, help="make -j and spatch --jobs (cores)")
    ap.add_argument("--results-dir", default=RESULTS)
    ap.add_argument("--work-dir", default=None, help="where the scratch trees go (TMPDIR)")
    args = ap.parse_args(argv)
    try:
        return run(args)
    except RetrofiError as e:
        print(e.format(), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("retrofi bench: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
