"""The build stage: one generated output tree built for one target.

In:  the output tree (GenerateResult.out_path) and a KernelTree.
Out: a BuildResult naming the built tree (a private copy per target and
     build settings, so targets build side by side), its log and warnings.

A target this machine cannot build for (its row's compiler missing, or a C
library older than its headers' host programs need) is built in its row's
toolchain root (retrofi_toolchain), and the root's key is part of the
build's; without one it is refused before any work.

The copy lives in <cache>/build/<target>[-api<API_LEVEL>][-<defconfig>]-<key>/,
key = hash of the output tree's content, the target's kernel, API_LEVEL and
defconfig.  It is built in place (Kbuild records absolute paths, so it is
never moved once built) and a stamp written last marks it complete: a
build with a stamp is reused and the stage is skipped.  A build without
one (killed, or failed) is resumed in place: Kbuild redoes every object it
did not finish (an object counts as done only with its .cmd file, written
after it; the objects of the last SUSPECT_SECONDS before an attempt stopped
are made again, as their .cmd files may be half written), and the build's
own log (.retrofi-build.log, appended by every attempt while it runs)
keeps the warnings of the earlier attempts, so a resumed build is judged
on all of them.  The copy appears under its final name only when complete.

Runs sharing a cache: <cache>/build/.<target>[...].lock guards the short steps
(look for the stamp, clean up, create, finish); building holds an exclusive
flock on the build directory (make inherits it: a make that outlives its
run still holds it), and a run holds a shared one on every build
it uses until it exits (or release()).  A second run building the same
thing waits for the first and reuses its result; older builds of a target
(of the same settings) are removed only when no run holds them.
"""

import contextlib
import dataclasses
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time

import retrofi_census
import retrofi_fs
import retrofi_kernels
import retrofi_progress
import retrofi_selection
import retrofi_toolchain
from retrofi_errors import RetrofiError

WARNING_RE = re.compile(r"\bwarning:|^WARNING:", re.M)
DISK_FULL_RE = re.compile(r"No space left on device|Disk quota exceeded")
LOG = ".retrofi-build.log"
STAMP = ".retrofi-build.json"
ENDED = "# retrofi: make ended at"     # + time in ns and make's exit status
# Kbuild may still append to a target's .cmd file this long after writing it.
SUSPECT_SECONDS = 30
# Debug info is off in these builds (-g0 after the kernel's -g, and so no
# BTF for the modules, which pahole makes from it): it changes no
# generated code (gcc's -fcompare-debug guarantee; test_build.py compares
# the .text) and is about a quarter of the compile (the whole stack for
# 6.1: 219 s with it, 168 s without).  RETROFI_DEBUG_INFO=1 keeps the
# kernel's own flags, for decoding a guest's oops to lines.  The release
# tarball and DKMS build with the kernel's flags.
DEBUG_INFO_ENV = "RETROFI_DEBUG_INFO"


def kcflags():
    """KCFLAGS of a build: the caller's, then -g0 unless RETROFI_DEBUG_INFO=1."""
    flags = os.environ.get("KCFLAGS", "").split()
    if os.environ.get(DEBUG_INFO_ENV) != "1":
        flags.append("-g0")
    return " ".join(flags)


def make_vars():
    """The variables every build's make gets: KCFLAGS, and without debug
    info no BTF step (it would fail on modules without DWARF)."""
    flags = kcflags()
    out = [f"KCFLAGS={flags}"] if flags else []
    if os.environ.get(DEBUG_INFO_ENV) != "1":
        out.append("CONFIG_DEBUG_INFO_BTF_MODULES=")
    return out


def settings(kernel, api_level=""):
    """The make arguments a build was made with, besides KLIB: a later make
    in the built tree (make install) needs the same ones, or Kbuild remakes
    every object whose command line changed."""
    return ([f"API_LEVEL={api_level}"] if api_level else []) \
        + ([f"CC={kernel.cc}"] if kernel.cc else []) + make_vars()


@dataclasses.dataclass(frozen=True)
class BuildResult:
    target: str
    ok: bool
    tree: str              # the built copy of the output tree
    log: str               # the build log
    seconds: float
    warnings: tuple        # compiler/modpost warning lines
    modules: tuple         # built .ko paths, relative to tree
    cached: bool = False
    reason: str = ""
    census: object = None  # retrofi_census.Census of the built modules (when ok)
    # What the configuration switched off (retrofi_selection): ("<module>.ko",
    # "RETROFI_CONFIG_X off: <why>"), e.g. a driver the target lacks a facility for.
    off: tuple = ()

    def summary(self):
        if self.cached:
            how = "cached"
        else:
            how = f"{self.seconds:.0f} s"
        if not self.ok:
            return f"build {self.target}: FAIL ({self.reason}) [{how}]; log: {self.log}"
        return (f"build {self.target}: ok, {len(self.modules)} modules, "
                f"{len(self.warnings)} warnings [{how}]"
                + "".join(f"; not selected: {m} ({why})" for m, why in self.off))


def log(msg):
    print(f"[build] {msg}", flush=True)


# Build products, left out of a tree's digest (a tree built in place is
# still the same input).
PRODUCT_RE = re.compile(r"(\.(o|ko|mod|mod\.c|cmd|d|symvers|order|s)$|^\..*\.cmd$|^probes\.h$"
                        r"|^Module\.symvers$|^modules\.order$|^\.retrofi-build)")


def tree_digest(tree):
    h = hashlib.sha256()
    for root, dirs, files in os.walk(tree):
        dirs.sort()
        for f in sorted(files):
            if PRODUCT_RE.search(f):
                continue
            p = os.path.join(root, f)
            h.update(os.path.relpath(p, tree).encode() + b"\0")
            with open(p, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def build_key(tree, kernel, api_level="", defconfig="wifi", toolchain_key=""):
    h = hashlib.sha256()
    # The kernel by its real path: a cache reached through symlinks (a test's
    # private cache) shares the builds of the cache it links to.
    for part in (tree_digest(tree), os.path.realpath(kernel.root), kernel.version, api_level,
                 defconfig, kernel.cc, " ".join(make_vars())):
        h.update(str(part).encode() + b"\0")
    if toolchain_key:
        # Built in a toolchain root: its packages' versions are the compiler.
        h.update(f"toolchain:{toolchain_key}".encode() + b"\0")
    return h.hexdigest()[:16]


def _modules(tree):
    try:
        order = open(os.path.join(tree, "modules.order")).read().split()
    except OSError:
        return ()
    out = []
    real = os.path.realpath(tree)
    for line in order:
        # Absolute entries (newer kbuild) name the directory make ran in,
        # which may be the real path of a tree reached through a symlink.
        rel = os.path.relpath(os.path.realpath(line), real) if os.path.isabs(line) else line
        out.append(re.sub(r"\.o$", ".ko", rel))
    return tuple(out)


# ---------------------------------------------------------------- locks

_held = {}                  # build directory -> fd with this process's shared flock
_held_lock = threading.Lock()


@contextlib.contextmanager
def _target_lock(parent, name):
    fd = os.open(os.path.join(parent, f".{name}.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"{name}: waiting for another retrofi run ({parent}/.{name}.lock)")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _lock_dir(path, op):
    """An fd of directory path with flock op, or None if op|LOCK_NB would block."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, op | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _hold(path, fd=None):
    """Keep a shared flock on a build directory for the rest of this process."""
    with _held_lock:
        if path in _held:
            if fd is not None:
                os.close(fd)
            return
        if fd is None:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(fd, fcntl.LOCK_SH)     # converts an exclusive lock
        _held[path] = fd


def release(tree):
    """This process no longer uses a build: other runs may remove it."""
    with _held_lock:
        fd = _held.pop(tree, None)
    if fd is not None:
        os.close(fd)


def forget(tree):
    """A build something else changed (a make install that rebuilt objects
    with other settings) is no longer the build its key names: without its
    stamp the next build() resumes it in place, and Kbuild remakes what
    was changed.  True if it was a complete build of this stage."""
    try:
        os.unlink(os.path.join(tree, STAMP))
        return True
    except FileNotFoundError:
        return False


def _build_dir_re(name):
    return re.compile(rf"^(\.copy-)?{re.escape(name)}-[0-9a-f]{{16}}(-\d+)?$")


def _remove_unused(parent, name, keep):
    """Remove the other builds of target `name` that no run holds, and the
    copies killed runs left (called under the target lock)."""
    pattern = _build_dir_re(name)
    for entry in sorted(os.listdir(parent)):
        path = os.path.join(parent, entry)
        if path == keep or not pattern.match(entry) or not os.path.isdir(path):
            continue
        with _held_lock:
            if path in _held:
                continue
        try:
            fd = _lock_dir(path, fcntl.LOCK_EX)
        except OSError:
            continue
        if fd is None:
            continue        # in use by another run; it goes once that run is done
        try:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)


# ---------------------------------------------------------------- the stage

def _cached(final, kernel, log_path, output_tree):
    data = json.load(open(os.path.join(final, STAMP)))
    shutil.copyfile(os.path.join(final, LOG), log_path)
    return _selected(BuildResult(kernel.name, True, final, log_path, data["seconds"],
                                 tuple(data["warnings"]), tuple(data["modules"]), cached=True),
                     output_tree)


def _selected(result, output_tree):
    """An ok build of an output tree is ok only when it holds every module
    its configuration selects and probes.h (retrofi_selection): make's
    exit status alone passes a stubbed or cut-short build.  output_tree:
    check even a tree that lacks the output tree's markers."""
    if not result.ok or not (output_tree or retrofi_selection.is_output_tree(result.tree)):
        return result
    problems = retrofi_selection.problems(result.tree, result.modules)
    if problems:
        return dataclasses.replace(result, ok=False,
                                   reason="make exited 0, but " + "; ".join(problems))
    return dataclasses.replace(result, off=retrofi_selection.selection(result.tree).off)


def _copy_tree(src, dst):
    """shutil.copytree(symlinks=True), but the first error stops it with its
    own errno (copytree gathers them into one shutil.Error)."""
    for root, dirs, files in os.walk(src):
        target = os.path.normpath(os.path.join(dst, os.path.relpath(root, src)))
        os.makedirs(target, exist_ok=True)
        for n in list(dirs) + files:
            path = os.path.join(root, n)
            if os.path.islink(path):
                os.symlink(os.readlink(path), os.path.join(target, n))
                if n in dirs:
                    dirs.remove(n)
            elif n in files:
                shutil.copy2(path, os.path.join(target, n))


def _claim(tree, parent, final, name):
    """Under the target lock: ("cached", None), ("mine", fd with an exclusive
    flock on final, which exists), or ("busy", None) when another run is
    building it."""
    if os.path.exists(os.path.join(final, STAMP)):
        _hold(final)
        return "cached", None
    _remove_unused(parent, name, keep=final)
    if os.path.isdir(final):
        fd = _lock_dir(final, fcntl.LOCK_EX)
        if fd is None:
            return "busy", None
        if os.path.exists(os.path.join(final, LOG)):
            return "mine", fd       # an unfinished build: resumed
        # Not a complete copy (an older retrofi built into its final name).
        shutil.rmtree(final)
        os.close(fd)
    copy = os.path.join(parent, f".copy-{os.path.basename(final)}-{os.getpid()}")
    shutil.rmtree(copy, ignore_errors=True)
    try:
        _copy_tree(tree, copy)
        with open(os.path.join(copy, LOG), "w") as f:
            f.write(f"# retrofi: build of {tree}\n")
        fd = _lock_dir(copy, fcntl.LOCK_EX)
        os.rename(copy, final)
    except BaseException:
        shutil.rmtree(copy, ignore_errors=True)
        raise
    return "mine", fd


class Jobserver:
    """One GNU make jobserver for builds that run at the same time.

    Each build's make joins it (MAKEFLAGS --jobserver-auth, no -j of its
    own) and runs one job of its own plus one for every token it takes from
    the pipe: a build alone gets every core, two at once share them (one job
    more than cores while both compile), and the last build of a matrix no
    longer runs at the -j its share was when the others were building."""

    def __init__(self, slots):
        self.slots = max(1, int(slots))
        self.read, self.write = os.pipe()
        os.write(self.write, b"+" * (self.slots - 1))

    def env(self):
        flags = f" -j --jobserver-auth={self.read},{self.write}"
        return dict(os.environ, MAKEFLAGS=flags)

    def fds(self):
        return (self.read, self.write)

    def describe(self):
        return f"a jobserver of {self.slots} slots shared with the other builds"

    def close(self):
        for fd in (self.read, self.write):
            try:
                os.close(fd)
            except OSError:
                pass


def build(tree, kernel, log_path, cache=None, api_level="", defconfig="wifi", jobs=None,
          output_tree=False):
    """Build tree for kernel; returns a BuildResult (never raises for a compile
    failure), with the census of its modules when it succeeded.

    jobs: make's -j (default: the cores), or a Jobserver shared with the
    builds running beside this one.
    output_tree: tree must be a retrofi output tree, whose build is ok only
    with every module its configuration selects (retrofi_selection; also
    checked for any tree that has the output tree's markers)."""
    result = _build(tree, kernel, log_path, cache, api_level, defconfig, jobs, output_tree)
    return _with_census(result)


def _with_census(result):
    """The shims in force in a successful build, read back from its modules."""
    if not result.ok:
        return result
    return dataclasses.replace(result,
                               census=retrofi_census.read(result.tree, result.modules))


def _build(tree, kernel, log_path, cache, api_level, defconfig, jobs, output_tree):
    cache = cache or retrofi_kernels.cache_dir()
    if defconfig != "wifi" and not os.path.isfile(os.path.join(tree, "defconfigs", defconfig)):
        known = sorted(os.listdir(os.path.join(tree, "defconfigs"))) \
            if os.path.isdir(os.path.join(tree, "defconfigs")) else []
        raise RetrofiError(f"unknown defconfig '{defconfig}'", where=tree,
                           fix="use one of: " + (", ".join(known) or "(the tree has none)"))
    # This machine's compiler and C library, or the row's toolchain root
    # (retrofi_toolchain) when they cannot build for the kernel.
    tc_root = retrofi_toolchain.for_kernel(kernel, cache)
    parent = os.path.join(cache, "build")
    variant = _variant(tree, kernel, api_level, defconfig)
    with _disk_errors(parent, kernel.name):
        os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
        os.makedirs(parent, exist_ok=True)
        while True:
            # The output tree is read under a shared lock: a concurrent
            # generate swaps a new one into its directory only when no one
            # reads it.
            with retrofi_fs.dir_lock(os.path.dirname(os.path.abspath(tree)), shared=True):
                final = _final(parent, variant, tree, kernel, api_level, defconfig, tc_root)
                with _target_lock(parent, variant):
                    state, fd = _claim(tree, parent, final, variant)
            if state == "cached":
                return _cached(final, kernel, log_path, output_tree)
            if state == "mine":
                break
            log(f"{kernel.name}: waiting for another retrofi run that is building {final}")
            wait = os.open(final, os.O_RDONLY | os.O_DIRECTORY)
            fcntl.flock(wait, fcntl.LOCK_SH)
            os.close(wait)
        try:
            result = _selected(_make(final, kernel, log_path, api_level, defconfig, jobs, fd,
                                     tc_root), output_tree)
            with _target_lock(parent, variant):
                if result.ok:
                    with open(os.path.join(final, STAMP + ".tmp"), "w") as f:
                        json.dump({"seconds": result.seconds, "warnings": list(result.warnings),
                                   "modules": list(result.modules)}, f)
                    os.rename(os.path.join(final, STAMP + ".tmp"), os.path.join(final, STAMP))
                    _hold(final, fd)
                    fd = None
        finally:
            if fd is not None:
                os.close(fd)
    return result


def _variant(tree, kernel, api_level, defconfig):
    """<target>[-src<series>][-api<level>][-<defconfig>]: one build is kept
    per target, source and settings (building the 2.6.21 shape of 6.1 does
    not remove the build of 6.1 itself, nor a build of the newest source
    the LTS source's)."""
    return kernel.name + _source_suffix(tree) + (f"-api{api_level}" if api_level else "") + \
        (f"-{defconfig}" if defconfig != "wifi" else "")


def _final(parent, variant, tree, kernel, api_level, defconfig, tc_root):
    key = build_key(tree, kernel, api_level, defconfig, tc_root.key if tc_root else "")
    return os.path.join(parent, f"{variant}-{key}")


def build_dir(tree, kernel, cache=None, api_level="", defconfig="wifi"):
    """Where build() builds (or finds complete) tree for kernel: a build is
    complete when this directory holds its stamp (STAMP)."""
    cache = cache or retrofi_kernels.cache_dir()
    return _final(os.path.join(cache, "build"), _variant(tree, kernel, api_level, defconfig),
                  tree, kernel, api_level, defconfig, retrofi_toolchain.for_kernel(kernel, cache))


def _source_suffix(tree):
    """"-src7.3": the source package's series, from the tree's versions file."""
    try:
        with open(os.path.join(tree, "versions"), encoding="utf-8") as f:
            m = re.search(r"^source-package: linux-source-(\S+)$", f.read(), re.M)
    except OSError:
        return ""
    return f"-src{m.group(1)}" if m else ""


def _make(work, kernel, log_path, api_level, defconfig, jobs, lock_fd, tc_root=None):
    shared = jobs if isinstance(jobs, Jobserver) else None
    argv = ["make", "-C", work] + ([] if shared else [f"-j{jobs or os.cpu_count() or 2}"]) \
        + [f"KLIB={kernel.headers}"] + settings(kernel, api_level)
    build_log = os.path.join(work, LOG)
    with open(build_log, errors="replace") as f:
        earlier = f.read()
    resumed = "\n$ make -C " in "\n" + earlier      # an earlier attempt started
    started = time.monotonic()
    with open(build_log, "a") as out:
        if resumed:
            redone = _forget_unfinished(work, earlier)
            log(f"{kernel.name}: resuming the unfinished build in {work}"
                + (f" ({redone} objects of the stopped attempt made again)" if redone else ""))
            out.write("# retrofi: resuming a build that did not finish\n")
        else:
            log(f"{kernel.name}: building in {work}")
        if defconfig != "wifi":
            out.write(f"$ make -C {work} defconfig-{defconfig}\n")
            out.flush()
            p = subprocess.run(["make", "-C", work, f"defconfig-{defconfig}"], stdout=out,
                               stderr=subprocess.STDOUT)
            if p.returncode != 0:
                shutil.copyfile(build_log, log_path)
                return BuildResult(kernel.name, False, work, log_path, 0.0, (), (),
                                   reason=f"make defconfig-{defconfig} failed")
        out.write("$ " + " ".join(argv) + (f"   # {shared.describe()}" if shared else "")
                  + (f"   # in the toolchain root {tc_root.path}" if tc_root else "") + "\n")
        out.flush()
        run_argv, env = retrofi_toolchain.wrap(tc_root, argv, rw=[work], ro=[kernel.root],
                                               env=shared.env() if shared else None)
        with _progress(kernel.name + (f" at API level {api_level}" if api_level else ""),
                       work, build_log):
            p = subprocess.run(run_argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                               pass_fds=(lock_fd,) + (shared.fds() if shared else ()))
        out.write(f"{ENDED} {time.time_ns()} {p.returncode}\n")
    seconds = time.monotonic() - started
    shutil.copyfile(build_log, log_path)
    text = open(build_log, errors="replace").read()
    warnings = tuple(l for l in text.splitlines() if WARNING_RE.search(l))
    if p.returncode != 0:
        attempt = text[text.rfind("\n$ make -C ") + 1:]
        if DISK_FULL_RE.search(attempt):
            return BuildResult(kernel.name, False, work, log_path, seconds, warnings, (),
                               reason=f"the disk is full ({work}); free some space or set "
                                      f"RETROFI_CACHE to a larger disk, then run again: "
                                      f"the build resumes")
        errors = [l for l in attempt.splitlines() if "error" in l.lower()]
        reason = errors[0].strip() if errors else f"make exited {p.returncode}"
        if p.returncode < 0:
            reason = (f"interrupted: make ended by {signal.Signals(-p.returncode).name}; "
                      f"the next run resumes the build")
        return BuildResult(kernel.name, False, work, log_path, seconds, warnings, (),
                           reason=reason[:300])
    modules = _modules(work)
    if warnings:
        return BuildResult(kernel.name, False, work, log_path, seconds, warnings, modules,
                           reason=f"{len(warnings)} compiler warnings (first: {warnings[0].strip()[:200]})")
    return BuildResult(kernel.name, True, work, log_path, seconds, warnings, modules)


# Progress while make runs (retrofi_progress): the objects compiled so far.
COMPILED_RE = re.compile(rb"^  CC \[M\]  ", re.M)


def _sources(work):
    """The C files of a tree: about the objects make compiles (a few are
    left out by its configuration)."""
    return sum(1 for _, _, files in os.walk(work) for f in files
               if f.endswith(".c") and not f.endswith(".mod.c"))


def _progress(name, work, build_log, stream=None):
    """Print "<name>: N of about M objects compiled" while the block runs,
    counted from the CC lines make writes to build_log after now."""
    total = _sources(work)
    start = os.path.getsize(build_log)

    def compiled(_seconds):
        n = retrofi_progress.count_since(build_log, start, COMPILED_RE)
        return f"{n} of about {total} objects compiled"
    return retrofi_progress.ticker(f"[build] {name}:", compiled, stream)


def _forget_unfinished(work, earlier_log):
    """Before resuming: Kbuild writes a target's .cmd file in place and
    appends to it in later steps of the same recipe, so the targets whose
    .cmd changed in the last SUSPECT_SECONDS of an attempt that stopped may
    be half made.  Delete them and their .cmd files (Kbuild makes them
    again); return how many.  The attempt's end is when make exited, or,
    for a run that died with it, the newest .cmd file."""
    last = earlier_log[earlier_log.rfind("\n$ make -C "):]
    ended = re.findall(rf"^{re.escape(ENDED)} (\d+) (-?\d+)$", last, re.M)
    if ended and ended[-1][1] == "0":
        return 0                                # make finished: nothing half made
    cmds = []
    for root, _, files in os.walk(work):
        for f in files:
            if f.startswith(".") and f.endswith(".cmd"):
                path = os.path.join(root, f)
                cmds.append((os.stat(path).st_mtime_ns, path))
    if not cmds:
        return 0
    until = int(ended[-1][0]) if ended else max(m for m, _ in cmds)
    redone = 0
    for mtime, path in cmds:
        if mtime >= until - SUSPECT_SECONDS * 10**9:
            target = os.path.join(os.path.dirname(path), os.path.basename(path)[1:-len(".cmd")])
            for f in (target, path):
                with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                    os.unlink(f)
            redone += 1
    return redone


@contextlib.contextmanager
def _disk_errors(where, name):
    """A full or read-only cache while copying or logging: one clear error."""
    try:
        yield
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            raise RetrofiError(f"the disk is full (building target {name})", where=where,
                               fix="free some space or set RETROFI_CACHE to a larger disk")
        if e.errno in (errno.EACCES, errno.EROFS, errno.EPERM):
            raise RetrofiError(f"cannot write the build cache ({e.strerror})",
                               where=e.filename or where,
                               fix="make it writable or set RETROFI_CACHE to a writable directory")
        raise
