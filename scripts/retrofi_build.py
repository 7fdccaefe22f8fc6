"""The build stage: one generated output tree built for one target.

In:  the output tree (GenerateResult.out_path) and a KernelTree.
Out: a BuildResult naming the built tree (a private copy per target and
     build settings, so targets build side by side), its log and warnings.

The copy lives in <cache>/build/<target>-<key>/, key = hash of the output
tree's content, the target's kernel, API_LEVEL and defconfig. It is built
in place (Kbuild records absolute paths, so it is never moved) and a stamp
written last marks it complete: a build with a stamp is reused and the
stage is skipped; one without (killed, failed) is started afresh.
"""

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import time

import retrofi_kernels
from retrofi_errors import RetrofiError

WARNING_RE = re.compile(r"\bwarning:|^WARNING:", re.M)


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

    def summary(self):
        if self.cached:
            how = "cached"
        else:
            how = f"{self.seconds:.0f} s"
        if not self.ok:
            return f"build {self.target}: FAIL ({self.reason}) [{how}]; log: {self.log}"
        return (f"build {self.target}: ok, {len(self.modules)} modules, "
                f"{len(self.warnings)} warnings [{how}]")


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


def build_key(tree, kernel, api_level="", defconfig="wifi"):
    h = hashlib.sha256()
    for part in (tree_digest(tree), kernel.root, kernel.version, api_level, defconfig, kernel.cc):
        h.update(str(part).encode() + b"\0")
    return h.hexdigest()[:16]


def _modules(tree):
    try:
        order = open(os.path.join(tree, "modules.order")).read().split()
    except OSError:
        return ()
    out = []
    for line in order:
        rel = os.path.relpath(line, tree) if os.path.isabs(line) else line
        out.append(re.sub(r"\.o$", ".ko", rel))
    return tuple(out)


def build(tree, kernel, log_path, cache=None, api_level="", defconfig="wifi", jobs=None):
    """Build tree for kernel; returns a BuildResult (never raises for a compile failure)."""
    cache = cache or retrofi_kernels.cache_dir()
    key = build_key(tree, kernel, api_level, defconfig)
    parent = os.path.join(cache, "build")
    final = os.path.join(parent, f"{kernel.name}-{key}")
    stamp = os.path.join(final, ".retrofi-build.json")
    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    if os.path.exists(stamp):
        data = json.load(open(stamp))
        shutil.copyfile(os.path.join(final, ".retrofi-build.log"), log_path)
        return BuildResult(kernel.name, True, final, log_path, data["seconds"],
                           tuple(data["warnings"]), tuple(data["modules"]), cached=True)
    os.makedirs(parent, exist_ok=True)
    for old in os.listdir(parent):
        if old.startswith(f"{kernel.name}-"):
            shutil.rmtree(os.path.join(parent, old), ignore_errors=True)
    work = final
    shutil.copytree(tree, work, symlinks=True)
    argv = ["make", "-C", work, f"-j{jobs or os.cpu_count() or 2}", f"KLIB={kernel.headers}"]
    if api_level:
        argv.append(f"API_LEVEL={api_level}")
    if kernel.cc:
        argv.append(f"CC={kernel.cc}")
    started = time.monotonic()
    with open(log_path, "w") as log:
        if defconfig != "wifi":
            p = subprocess.run(["make", "-C", work, f"defconfig-{defconfig}"], stdout=log,
                               stderr=subprocess.STDOUT)
            if p.returncode != 0:
                raise RetrofiError(f"unknown defconfig '{defconfig}'", where=work,
                                   fix="see make -C <tree> list-defconfigs")
        log.write("$ " + " ".join(argv) + "\n")
        log.flush()
        p = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT)
    seconds = time.monotonic() - started
    text = open(log_path, errors="replace").read()
    warnings = tuple(l for l in text.splitlines() if WARNING_RE.search(l))
    if p.returncode != 0:
        errors = [l for l in text.splitlines() if "error" in l.lower()]
        reason = errors[0].strip() if errors else f"make exited {p.returncode}"
        return BuildResult(kernel.name, False, work, log_path, seconds, warnings, (),
                           reason=reason[:300])
    modules = _modules(work)
    if warnings:
        return BuildResult(kernel.name, False, work, log_path, seconds, warnings, modules,
                           reason=f"{len(warnings)} compiler warnings (first: {warnings[0].strip()[:200]})")
    shutil.copyfile(log_path, os.path.join(work, ".retrofi-build.log"))
    with open(stamp + ".tmp", "w") as f:
        json.dump({"seconds": seconds, "warnings": list(warnings), "modules": list(modules)}, f)
    os.rename(stamp + ".tmp", stamp)
    return BuildResult(kernel.name, True, final, log_path, seconds, warnings, modules)
