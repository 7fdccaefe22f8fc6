"""What `make bench` measures: each function times one thing and its
baseline in the same run, on the same machine, and returns plain numbers
(retrofi_bench turns them into figures against their goals).

    generation(...)   generate with an empty spatch cache, again warm, and
                      the floor: one `spatch --jobs` run per rule over
                      copies of the same files (no cache, no bookkeeping)
    builds(...)       the generated tree built, and a plain `make M=` of
                      the same unmodified upstream files with the same
                      object lists, headers and -j; then both rebuilt after
                      touching one mac80211 .c file
    matrix_run(...)   `retrofi.py matrix` as a subprocess, timed, with the
                      rows of the report it wrote
"""

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time

import retrofi_generate
from retrofi_errors import RetrofiError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"
# The file touched for the incremental rebuild (in both trees).
TOUCHED = "net/mac80211/main.c"


def _timed(fn, *args, **kw):
    t0 = time.monotonic()
    out = fn(*args, **kw)
    return time.monotonic() - t0, out


def _rewritten_files(tree_src, repo):
    """The copy list's .c and .h files (what spatch rewrites)."""
    copy_list = os.path.join(repo, "drivers", "copy-list")
    files = retrofi_generate.resolve_copy_list(
        retrofi_generate.parse_copy_list(copy_list, retrofi_generate.tree_series(tree_src)),
        tree_src)
    return [f for f in files if f.endswith(retrofi_generate.REWRITE_SUFFIXES)]


def spatch_floor(source_path, repo, work, jobs, spatch=None):
    """Seconds of one `spatch --jobs` run per cocci rule, in order, over
    plain copies of the files generate rewrites (the copying not timed)."""
    floor = os.path.join(work, "floor")
    shutil.rmtree(floor, ignore_errors=True)
    for rel in _rewritten_files(source_path, repo):
        dst = os.path.join(floor, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(os.path.join(source_path, rel), dst)
    rules = [r for r in retrofi_generate.load_rules(os.path.join(repo, "semantic-patches"))
             if r.kind == "cocci"]
    t0 = time.monotonic()
    for rule in rules:
        p = subprocess.run([spatch or retrofi_generate.SPATCH, "--sp-file", rule.path,
                            *retrofi_generate.SPATCH_OPTIONS,
                            *retrofi_generate.REPORT_OPTIONS, "--in-place",
                            "--jobs", str(jobs), "--include-headers", "--dir", floor],
                           capture_output=True, text=True, cwd=work)
        if p.returncode != 0:
            raise RetrofiError(f"the floor's spatch run of {rule.name} failed "
                               f"(exit {p.returncode}): {p.stderr.strip()[-500:]}",
                               where=floor, fix="run the rule by hand on that directory")
    return time.monotonic() - t0


def generation(source, repo, work, jobs, spatch=None):
    """{"cold", "warm", "floor"} seconds, and the generated tree's path."""
    # The floor first: the cold run is not the one that warms the page
    # cache for the source files and spatch.
    floor = spatch_floor(source.path, repo, work, jobs, spatch)
    cache = os.path.join(work, "spatch-cache")
    shutil.rmtree(cache, ignore_errors=True)
    out = os.path.join(work, "generated")
    cold, res = _timed(retrofi_generate.generate, source, out, repo=repo, cache_dir=cache,
                       jobs=jobs, spatch=spatch)
    if res.cache_hits:
        raise RetrofiError(f"the cold generation found {res.cache_hits} cached results",
                           where=cache, fix="the bench's spatch cache must start empty")
    warm, res2 = _timed(retrofi_generate.generate, source, out, repo=repo, cache_dir=cache,
                        jobs=jobs, spatch=spatch)
    return {"cold": cold, "warm": warm, "floor": floor, "files": res.file_count,
            "spatch_runs": res.cache_misses, "warm_runs": res2.cache_misses}, res.out_path


# ---------------------------------------------------------------- builds


def plain_tree(generated, source_path, repo, dst):
    """The plain baseline's tree: the copy list's files as upstream has
    them, the generated tree's per-directory Kbuild files (the same object
    lists), and a top Kbuild naming the same directories, without compat/
    or the compat headers."""
    shutil.rmtree(dst, ignore_errors=True)
    copy_list = os.path.join(repo, "drivers", "copy-list")
    for rel in retrofi_generate.resolve_copy_list(
            retrofi_generate.parse_copy_list(copy_list, retrofi_generate.tree_series(source_path)),
            source_path):
        if rel.startswith("include/"):
            continue                 # the headers' own copies are the same upstream files
        os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
        shutil.copyfile(os.path.join(source_path, rel), os.path.join(dst, rel))
    for root, _, files in os.walk(generated):
        rel = os.path.relpath(root, generated)
        if "Kbuild" in files and rel != "." and not rel.startswith("compat"):
            os.makedirs(os.path.join(dst, rel), exist_ok=True)
            shutil.copyfile(os.path.join(root, "Kbuild"), os.path.join(dst, rel, "Kbuild"))
    with open(os.path.join(generated, "Kbuild")) as f:
        subdirs = [l for l in f.read().splitlines()
                   if re.match(r"^obj-\S+\s*\+=\s*\S+/\s*$", l) and "compat/" not in l]
    with open(os.path.join(dst, "Kbuild"), "w") as f:
        f.write("# plain baseline: the upstream files, the same module directories\n"
                + "\n".join(subdirs) + "\n")
    return dst


def plain_variables(generated):
    """make variables the per-directory Kbuild files read from the generated
    tree's top (the defconfig's RETROFI_<DRIVER> and, when the tree has
    them, RETROFI_CONFIG_<NAME>), for the plain build's command line."""
    out = []
    for path, pat in ((os.path.join(generated, "defconfigs", "wifi"),
                       r"^(RETROFI_[A-Z0-9_]+)=(\S*)$"),
                      (os.path.join(generated, "include", "retrofi", "config.mk"),
                       r"^(RETROFI_CONFIG_[A-Z0-9_]+)\s*:?=\s*(\S*)$")):
        if os.path.exists(path):
            with open(path) as f:
                out += [f"{m.group(1)}={m.group(2)}" for m in
                        (re.match(pat, l) for l in f.read().splitlines()) if m]
    return out


def _objects(tree):
    return sum(1 for _, _, fs in os.walk(tree) for f in fs
               if f.endswith(".o") and not f.endswith(".mod.o"))


def _modules(tree):
    return sum(1 for _, _, fs in os.walk(tree) for f in fs if f.endswith(".ko"))


def _make(argv, log):
    with open(log, "a") as out:
        out.write("$ " + " ".join(argv) + "\n")
        out.flush()
        t0 = time.monotonic()
        c0 = _children_cpu()
        p = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT)
        seconds = time.monotonic() - t0
        cpu = _children_cpu() - c0
    if p.returncode != 0:
        with open(log, errors="replace") as f:
            tail = [l for l in f.read().splitlines() if "rror" in l][-5:]
        raise RetrofiError(f"{' '.join(argv[:4])} ... exited {p.returncode}: "
                           + " | ".join(tail), where=log,
                           fix="the bench needs both builds to succeed")
    return seconds, cpu


def _children_cpu():
    """User + system CPU seconds of this process's finished children: a
    build's CPU time depends far less than its wall time on what else the
    machine runs."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def builds(gen_tree, plain, gen_argv, plain_argv_of, work, touched=TOUCHED):
    """Full build of both trees, then both again after touching one file.
    gen_argv: the generated tree's make command line; plain_argv_of(): the
    plain one's (the same -j), asked for after the generated tree built."""
    log = os.path.join(work, "build.log")
    full_gen, full_gen_cpu = _make(gen_argv, log)
    plain_argv = plain_argv_of()
    full_plain, full_plain_cpu = _make(plain_argv, log)
    now = time.time()
    for tree in (gen_tree, plain):
        os.utime(os.path.join(tree, touched), (now, now))
    inc_gen, _ = _make(gen_argv, log)
    inc_plain, _ = _make(plain_argv, log)
    return {"full": full_gen, "full_plain": full_plain, "incremental": inc_gen,
            "full_cpu": full_gen_cpu, "full_plain_cpu": full_plain_cpu,
            "incremental_plain": inc_plain, "objects": _objects(gen_tree),
            "modules": _modules(gen_tree),
            "objects_plain": _objects(plain), "log": log}


def kernel_builds(generated, source_path, kernel, repo, work, jobs):
    """builds() for the real stack against one target's headers."""
    gen_tree = os.path.join(work, "build-generated")
    shutil.rmtree(gen_tree, ignore_errors=True)
    shutil.copytree(generated, gen_tree, symlinks=True)
    plain = plain_tree(gen_tree, source_path, repo, os.path.join(work, "build-plain"))
    cc = [f"CC={kernel.cc}"] if kernel.cc else []
    gen_argv = ["make", "-C", gen_tree, f"-j{jobs}", f"KLIB={kernel.headers}", *cc]
    # After the generated tree's build: its config (config.mk) is written then.
    return builds(gen_tree, plain, gen_argv,
                  lambda: ["make", "-C", kernel.headers, f"M={plain}", f"-j{jobs}", *cc,
                           *plain_variables(gen_tree), "modules"], work)


def defconfig_build(generated, kernel, work, jobs, defconfig):
    """The generated tree copied and built with one of its defconfigs
    (drivers, wifi): wall and CPU seconds and the modules made."""
    tree = os.path.join(work, f"build-{defconfig}")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(generated, tree, symlinks=True)
    log = os.path.join(work, f"build-{defconfig}.log")
    _make(["make", "-C", tree, f"defconfig-{defconfig}"], log)
    cc = [f"CC={kernel.cc}"] if kernel.cc else []
    seconds, cpu = _make(["make", "-C", tree, f"-j{jobs}", f"KLIB={kernel.headers}", *cc], log)
    modules = _modules(tree)
    shutil.rmtree(tree, ignore_errors=True)
    return {"seconds": seconds, "cpu": cpu, "modules": modules, "log": log}


# ---------------------------------------------------------------- matrix


def matrix_run(out, env=None, targets=""):
    """`retrofi.py matrix` (the default targets, or targets); returns
    (seconds, exit status, report rows as dicts, accel)."""
    report = os.path.join(out, "report")
    env = dict(os.environ, **(env or {}))
    if targets:
        env["TARGETS"] = targets
    argv = [PYTHON, os.path.join(REPO, "scripts", "retrofi.py"), "matrix", "--out", out]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "matrix.log"), "a") as log:
        t0 = time.monotonic()
        p = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=REPO)
        seconds = time.monotonic() - t0
    try:
        with open(os.path.join(report, "report.json")) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = {}
    return seconds, p.returncode, data.get("targets", []), (data.get("accel") or {}).get("name")


def loadavg():
    try:
        return [float(x) for x in open("/proc/loadavg").read().split()[:3]]
    except OSError:
        return []


if __name__ == "__main__":
    sys.exit("run scripts/retrofi_bench.py")
