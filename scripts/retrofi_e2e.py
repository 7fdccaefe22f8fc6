"""The .deb end to end, as a user lives with it, in a Debian root.

One job: the cycle of the retrofi-dkms package in a debootstrapped root
(retrofi_e2e_root): `apt-get install ./retrofi-dkms_*.deb` has DKMS build
and install the stack for the root's kernel, an older ABI of the line; the
root's apt then installs the newer ABI's image and headers and dkms's
kernel hooks alone build the stack for it (retrofi_e2e_upgrade); the
modules of each kernel are the selection's (RETROFI_DEFCONFIG in
/etc/default/retrofi), each signed by dkms's MOK key (retrofi_modsig) and
given by modules.dep from updates/; the newer kernel boots in QEMU with
them (guest mode dkms); `apt-get purge` leaves nothing (leftovers()), the
modules of both kernels are gone and modules.dep is each kernel's own
again; the newer kernel boots with its own stack (guest mode in-tree).
Each step is timed.  docs/deb-e2e.md says more.
"""

import dataclasses
import os
import shutil
import sys
import tempfile
import time
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from retrofi_e2e_root import (  # noqa: E402
    DEB_MOUNT, RELEASE_TARGET, REPO, Cycle, Step, base_root, kernel_root,
    log, modules_of)
from retrofi_errors import RetrofiError  # noqa: E402
from retrofi_leftovers import walk_upper  # noqa: E402


# What apt, dpkg and dkms write on an install and purge that is not the
# package's, each with its reason (a path under one of these is no leftover):
IGNORED = (
    ("var/lib/dpkg/", "dpkg's database (status, file lists, triggers) records the "
                      "install and the purge"),
    ("var/log/", "apt's and dpkg's logs (history.log, term.log, dpkg.log)"),
    ("var/cache/apt/", "apt's package cache (pkgcache.bin, srcpkgcache.bin)"),
    ("var/lib/apt/extended_states", "apt's record of automatically installed packages"),
    ("var/cache/debconf/", "debconf's database"),
    ("var/cache/ldconfig/", "ldconfig's trigger"),
    ("etc/ld.so.cache", "ldconfig's trigger"),
    ("var/lib/dkms/mok.key", "dkms's own signing key, made on its first signing build, "
                             "shared by every DKMS package and kept by design (its "
                             "certificate is the one enrolled as MOK)"),
    ("var/lib/dkms/mok.pub", "the certificate of dkms's signing key (see mok.key)"),
    ("usr/lib/python3/dist-packages/__pycache__/",
     "the bytecode Python caches when a Debian tool first runs as root (bullseye's "
     "dkms 2.8 runs lsb_release, whose module writes lsb_release.cpython-39.pyc)"),
)


def _same(a, b):
    if os.path.islink(a) or os.path.islink(b):
        return os.path.islink(a) and os.path.islink(b) and os.readlink(a) == os.readlink(b)
    if not (os.path.isfile(a) and os.path.isfile(b)):
        return False
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def leftovers(cycle: Cycle, before: Dict[str, str],
              upgraded: Optional[Dict[str, str]] = None) -> List[Tuple[str, str]]:
    """What the upper layer holds now that it did not before the install:
    (path, what) for each, but for IGNORED paths, directories of the lower
    root, files identical to the lower root's (a copied-up file that
    depmod or a trigger rewrote with the same bytes) and what a kernel
    upgrade during the cycle wrote (upgraded: {path: kind},
    retrofi_e2e_upgrade.upgrade_paths)."""
    out = []
    upgraded = upgraded or {}
    for rel, kind in sorted(walk_upper(cycle.upper).items()):
        if before.get(rel) == kind and kind == "dir":
            continue
        if upgraded.get(rel) == kind:
            continue
        if any(rel == p.rstrip("/") or rel.startswith(p) for p, _ in IGNORED):
            continue
        low = os.path.join(cycle.lower, rel)
        if kind == "dir":
            if os.path.isdir(low) or before.get(rel) == "dir":
                continue
            out.append((rel, "new directory"))
        elif kind == "deleted":
            out.append((rel, "deleted from the root"))
        elif os.path.lexists(low):
            if not _same(os.path.join(cycle.upper, rel), low):
                out.append((rel, f"{kind} changed"))
        elif before.get(rel) != kind:
            out.append((rel, f"new {kind}"))
    return out


def expected_modules(c: Cycle, kernelrelease, defconfig):
    """The modules dkms installs for kernelrelease with a selection: what the
    installed package's tree lists for that kernel's headers in the root
    (its config/modules.sh, which dkms.conf takes BUILT_MODULE_NAME from;
    tests/scripts/test_dkms_modules.py compares it with real builds'
    modules.order)."""
    import glob
    import subprocess
    trees = sorted(glob.glob(os.path.join(c.upper, "usr", "src", "retrofi-*", "config", "modules.sh")))
    if len(trees) != 1:
        raise RetrofiError(f"{len(trees)} retrofi source trees in the root's /usr/src after the "
                           f"install, not one", where=os.path.join(c.upper, "usr", "src"),
                           fix="see the install's output above")
    tree = os.path.dirname(os.path.dirname(trees[0]))
    headers = c.path(f"usr/src/linux-headers-{kernelrelease}")
    p = subprocess.run(["sh", trees[0], headers,
                        os.path.join(tree, "defconfigs", defconfig or "wifi")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RetrofiError(f"config/modules.sh failed (exit {p.returncode}): {p.stderr.strip()}",
                           where=tree, fix="see the error above")
    return sorted(os.path.basename(l.split()[1])[:-3] for l in p.stdout.splitlines()
                  if l.startswith("m "))


def in_updates(path):
    """Whether a modules.dep path (relative to the kernel's directory) is in updates/."""
    return ("/" + path).startswith("/updates/")


def resolves(cycle: Cycle, kernelrelease, modules) -> Dict[str, str]:
    """{module: the path modules.dep of the merged root gives it}."""
    dep = cycle.path(f"lib/modules/{kernelrelease}/modules.dep")
    found = {}
    with open(dep) as f:
        for line in f:
            path = line.split(":", 1)[0]
            name = os.path.basename(path).split(".ko")[0].replace("-", "_")
            if name in modules and name not in found:
                found[name] = path
    return found


GUEST_INIT = os.path.join(REPO, "tests", "guest", "init")


def kernel_layer(cycle: Cycle, kernelrelease):
    """The overlay layer that holds kernelrelease's image and modules: the
    lower root's own kernel, or the upper layer's for a kernel installed
    during the cycle (a kernel upgrade)."""
    image = cycle.canon(f"boot/vmlinuz-{kernelrelease}")
    mods = cycle.canon(f"lib/modules/{kernelrelease}/kernel")
    for layer in (cycle.lower, cycle.upper):
        if os.path.isfile(os.path.join(layer, image)) and \
                os.path.isdir(os.path.join(layer, mods)):
            return layer
    raise RetrofiError(f"no kernel {kernelrelease} in the root (boot/vmlinuz-{kernelrelease} "
                       f"and lib/modules/{kernelrelease}/kernel in one layer)",
                       where=cycle.scratch,
                       fix="boot a kernel the root has (its linux-image package)")


def kernel_paths(cycle: Cycle, kernelrelease):
    """(layer, modules directory, image) of kernelrelease in the overlay
    (kernel_layer), as paths of the layer itself: the upper layer has no
    lib -> usr/lib link of its own, canon() resolves it."""
    layer = kernel_layer(cycle, kernelrelease)
    return (layer, os.path.join(layer, cycle.canon(f"lib/modules/{kernelrelease}")),
            os.path.join(layer, cycle.canon(f"boot/vmlinuz-{kernelrelease}")))


def guest_initramfs(cycle: Cycle, target, mode, workdir, cache):
    """The guest of the root: the root's kernel modules (its linux-image
    package, the lower layer) and, in mode "dkms", the modules DKMS installed
    (the upper layer's updates/); mode "in-tree" has no updates/ at all.
    Returns (the root's KernelTree, the initramfs path)."""
    import retrofi_initramfs as ri
    import retrofi_userland
    krel = target.kernelrelease
    layer, modules, image = kernel_paths(cycle, krel)
    root_target = dataclasses.replace(target, modules=modules, image=image)
    updates = os.path.join(workdir, "no-updates")
    os.makedirs(updates, exist_ok=True)
    extra = ri.GUEST_EXTRA_MODULES + ("mac80211_hwsim",)
    if mode == "dkms":
        updates = os.path.join(cycle.upper, cycle.canon(f"lib/modules/{krel}/updates"))
        extra = ri.GUEST_EXTRA_MODULES
    stage = os.path.join(workdir, "stage")
    shutil.rmtree(stage, ignore_errors=True)
    ri.stage_modules(root_target, None, stage, workdir, selftest=False, extra=extra,
                     updates_src=updates)
    cpio = ri.CpioWriter()
    ri._add_tree(cpio, stage)
    ri._add_userland(cpio, retrofi_userland.unpacked(cache))
    for d in ("proc", "sys", "dev", "tmp", "run", "var/run", "etc", "root", "mnt"):
        cpio.add_dir(d)
    cpio.add_chardev("dev/console", 5, 1)
    cpio.add_chardev("dev/null", 1, 3, 0o666)
    with open(GUEST_INIT, "rb") as f:
        cpio.add_file("init", f.read(), 0o755)
    cpio.add_file("etc/retrofi-target", f"{target.name}\n{krel}\n".encode())
    cpio.add_file("etc/retrofi-mode", f"{mode}\n".encode())
    # The package's retrofi-status (kept from the install for the guest
    # after the purge).
    status = os.path.join(cycle.scratch, "retrofi-status")
    with open(status, "rb") as f:
        cpio.add_file("usr/sbin/retrofi-status", f.read(), 0o755)
    import gzip
    path = os.path.join(workdir, f"initramfs-{mode}.cpio.gz")
    with open(path, "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=6, mtime=0, filename="") as gz:
            import io
            raw = io.BytesIO()
            cpio.write(raw)
            gz.write(raw.getvalue())
    return root_target, path


def boot_guest(cycle: Cycle, target, mode, workdir, cache, accel="tcg", allowed=(),
               timeout=600):
    """Boot the root's kernel with its modules (guest_initramfs); the
    BootResult (pass: every guest test of the mode passed, no splat)."""
    import retrofi_boot
    t, initrd = guest_initramfs(cycle, target, mode, workdir, cache)
    logp = os.path.join(workdir, f"console-{mode}.log")
    return retrofi_boot.boot(t, initrd, logp, timeout=timeout,
                             allowed_splats=allowed,
                             accel=accel, name=f"{target.name}-{mode}")


@dataclasses.dataclass(frozen=True)
class CycleResult:
    release: str
    kernelrelease: str                   # the kernel booted (the newer one, on an upgrade)
    modules: Tuple[str, ...]             # what dkms installed in its updates/
    signatures: Tuple[str, ...]          # one line per module: ok/FAIL and why
    installed_resolve: Tuple[str, ...]   # module: path modules.dep gives, after install
    purged_resolve: Tuple[str, ...]      # the same after the purge
    leftovers: Tuple[Tuple[str, str], ...]
    steps: Tuple[Step, ...]
    problems: Tuple[str, ...]
    boots: Tuple[str, ...] = ()
    upgraded_from: str = ""              # the root's older kernel, on an upgrade
    dkms_status: Tuple[str, ...] = ()    # `dkms status retrofi` after the upgrade

    @property
    def ok(self):
        return not self.problems


class Timer:
    def __init__(self):
        self.steps = []

    def __call__(self, name, fn, *a, **kw):
        t = time.monotonic()
        log(f"{name} ...")
        r = fn(*a, **kw)
        self.steps.append(Step(name, round(time.monotonic() - t, 1)))
        log(f"{name}: {self.steps[-1].seconds} s")
        return r


def _dkms_lines(out):
    return "\n".join(l for l in out.splitlines()
                     if "dkms" in l.lower() or "retrofi" in l)[-3000:]


def cycle(cache, release, kernelrelease, deb, defconfig="hwsim", scratch=None,
          target=None, accel="tcg", logdir=None, allowed=(), upgrade_from="") -> CycleResult:
    """debootstrap (cached), kernel root (cached), install the .deb, check the
    modules, their signatures and modules.dep, purge, check what is left.

    upgrade_from: an older kernel release of the same line: the root starts
    with it, the package is installed (DKMS builds for it), then the root's
    apt installs kernelrelease's image and headers and dkms's kernel hooks
    alone must build for it (retrofi_e2e_upgrade); both kernels are checked
    and the purge must take the modules of both.
    target: the KernelTree of kernelrelease: it then boots with the
    DKMS-built stack (guest mode dkms) after the install (the upgrade), and
    with its own stack (guest mode in-tree) after the purge; consoles in
    logdir."""
    import retrofi_e2e_upgrade as up
    timer = Timer()
    base = timer("debootstrap", base_root, cache, release)
    first = upgrade_from or kernelrelease
    kroot = timer("kernel root", kernel_root, cache, release, base, [first])
    if upgrade_from:
        kroot = timer("kernel root with the newer ABI fetched", up.upgrade_root, cache,
                      release, kroot, upgrade_from, kernelrelease)
    kernels = [first] + ([kernelrelease] if upgrade_from else [])
    problems = []
    own = scratch is None
    scratch = scratch or tempfile.mkdtemp(prefix="run-", dir=os.path.join(cache, "e2e"))
    try:
        c = Cycle(kroot.path, scratch)
        if defconfig:
            c.write("etc/default/retrofi", f"RETROFI_DEFCONFIG={defconfig}\n")
        before = walk_upper(c.upper)
        out = timer("install", c.run, ["apt-get", "install", "-y", "-q",
                                       "--no-install-recommends",
                                       f"{DEB_MOUNT}/{os.path.basename(deb)}"],
                    debdir=os.path.dirname(os.path.abspath(deb)),
                    what=f"apt-get install ./{os.path.basename(deb)}")
        log(_dkms_lines(out))
        found = []
        mods, sigs, inst = check_built(c, first, defconfig, found)
        problems += [f"install: {p}" for p in found]
        upgraded, status = None, ()
        if upgrade_from:
            out = timer("kernel upgrade", up.upgrade, c, kernelrelease)
            log(_dkms_lines(out))
            status, found = up.installed_for(c, kernels)
            mods, sigs2, inst2 = check_built(c, kernelrelease, defconfig, found)
            sigs, inst = sigs + sigs2, inst + inst2
            problems += [f"kernel upgrade to {kernelrelease}: {p}" for p in found]
            upgraded = up.upgrade_paths(walk_upper(c.upper), before)
        # The package's retrofi-status, for the guests (the one after the purge too).
        shutil.copy(c.path("usr/sbin/retrofi-status"), os.path.join(scratch, "retrofi-status"))
        # Each kernel's, while the package's tree is there to list them.
        wants = {k: expected_modules(c, k, defconfig) for k in kernels}
        want = wants[kernelrelease]
        boots = []
        if target is not None and sorted(mods) == want:
            b = timer("boot with the dkms stack", boot_guest, c, target, "dkms", logdir or scratch,
                      cache, accel, allowed)
            boots.append(b)
        elif target is not None:
            problems.append(f"no boot with the dkms stack: dkms did not install it for "
                            f"{kernelrelease}")
        timer("purge", c.run, ["apt-get", "purge", "-y", "-q", "retrofi-dkms"],
              what="apt-get purge retrofi-dkms")
        left = leftovers(c, before, upgraded)
        problems += [f"purge: left /{p} ({w})" for p, w in left]
        purged = {}
        for k in kernels:
            purged[k] = resolves(c, k, wants[k])
            problems += [f"purge: modules of {k} still in updates/: {m} {p}"
                         for m, p in sorted(modules_of(c, k).items())]
            problems += [f"purge: modules.dep of {k} still gives {m} {p}"
                         for m, p in sorted(purged[k].items()) if in_updates(p)]
        lower_dep = os.path.join(c.lower, "lib", "modules", first, "modules.dep")
        if not _same(c.path(f"lib/modules/{first}/modules.dep"), lower_dep):
            problems.append(f"purge: modules.dep of {first} differs from the kernel's own")
        if upgrade_from:
            with open(c.path(f"lib/modules/{kernelrelease}/modules.dep")) as f:
                foreign = up.foreign_modules(f.read())
            if foreign:
                problems.append(f"purge: modules.dep of {kernelrelease} still lists modules "
                                f"not the kernel's own: {' '.join(foreign[:8])}")
        if target is not None:
            b = timer("boot with the kernel's own stack", boot_guest, c, target, "in-tree",
                      logdir or scratch, cache, accel, allowed)
            boots.append(b)
        for b in boots:
            log(b.report())
            if not b.ok:
                problems.append(f"boot {b.target}: {b.status}: {b.reason} (console: {b.log})")
        return CycleResult(release, kernelrelease, tuple(sorted(mods)), sigs, inst,
                           tuple(f"{k} {m}: {p}" for k in kernels
                                 for m, p in sorted(purged[k].items())),
                           tuple(left), tuple(timer.steps), tuple(problems),
                           tuple(f"{b.target}: {b.status}, {b.reason} ({b.seconds:.0f} s, "
                                 f"{b.accel}; console {b.log})" for b in boots),
                           upgrade_from, status)
    finally:
        if own:
            shutil.rmtree(scratch, ignore_errors=True)


def dkms_version(c: Cycle):
    """The root's dkms version (its dpkg status)."""
    with open(c.path("var/lib/dpkg/status")) as f:
        for para in f.read().split("\n\n"):
            if "\nPackage: dkms\n" in "\n" + para + "\n" and "Status: install ok installed" in para:
                for line in para.splitlines():
                    if line.startswith("Version: "):
                        return line.split(" ", 1)[1]
    raise RetrofiError("dkms is not installed in the root", where=c.lower,
                       fix="rebuild the kernel root (remove it from <cache>/e2e/)")


def signs(version):
    """Whether this dkms signs the modules it builds itself (3.0 and newer);
    under an older one, the package's config/dkms-sign.sh (dkms.conf's
    POST_BUILD) signs them with the same key."""
    return int(version.split(":")[-1].split(".")[0]) >= 3


def check_built(c: Cycle, kernelrelease, defconfig, problems):
    """The modules dkms installed for kernelrelease: the selection's, each
    signed by dkms's MOK, each given by modules.dep in updates/.  Returns
    (modules, signature lines, resolve lines); problems get what is wrong."""
    import retrofi_modsig
    mods = modules_of(c, kernelrelease)
    want = expected_modules(c, kernelrelease, defconfig)
    if sorted(mods) != want:
        problems.append(f"dkms installed {sorted(mods)} for {kernelrelease}, "
                        f"expected {want} (RETROFI_DEFCONFIG={defconfig})")
    cert = c.path("var/lib/dkms/mok.pub")
    dkms = dkms_version(c)
    verdicts = retrofi_modsig.verify_all(mods.values(), cert) if os.path.exists(cert) else []
    if not os.path.exists(cert):
        signer = f"dkms {dkms}" if signs(dkms) else \
            f"the package's config/dkms-sign.sh (dkms {dkms} signs nothing itself)"
        problems.append(f"{signer} made no signing certificate (/var/lib/dkms/mok.pub)")
    sigs = tuple(f"{'ok' if v.ok else 'FAIL'} {kernelrelease} {os.path.basename(v.module)}: "
                 f"{v.reason}" for v in verdicts)
    problems += [f"signature: {l}" for l in sigs if l.startswith("FAIL")]
    inst = resolves(c, kernelrelease, want)
    for m in want:
        if not in_updates(inst.get(m, "")):
            problems.append(f"modules.dep of {kernelrelease} gives {m} "
                            f"{inst.get(m, 'no path')}, not updates/")
    return mods, sigs, tuple(f"{kernelrelease} {m}: {p}" for m, p in sorted(inst.items()))


def report(r: CycleResult) -> str:
    kernel = (f"kernel {r.upgraded_from} upgraded to {r.kernelrelease}" if r.upgraded_from
              else f"kernel {r.kernelrelease}")
    lines = [f"retrofi-dkms end to end: {r.release}, {kernel}"]
    lines += [f"  step {s.name}: {s.seconds} s" for s in r.steps]
    lines += [f"  installed for {r.kernelrelease}: {' '.join(r.modules)}"]
    lines += [f"  dkms status: {l}" for l in r.dkms_status]
    lines += [f"  signature {l}" for l in r.signatures]
    lines += [f"  after install: {l}" for l in r.installed_resolve]
    lines += [f"  after purge:   {l}" for l in r.purged_resolve]
    lines += [f"  boot {l}" for l in r.boots]
    lines += [f"  PROBLEM: {p}" for p in r.problems]
    lines += ["  PASS" if r.ok else "  FAIL"]
    return "\n".join(lines)


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--release", default="bookworm", choices=sorted(RELEASE_TARGET))
    ap.add_argument("--kernelrelease", default="",
                    help="the kernel (default: the release's target in kernel-matrix.yaml)")
    ap.add_argument("--deb", required=True, help="the retrofi-dkms .deb (make deb)")
    ap.add_argument("--defconfig", default="hwsim",
                    help="RETROFI_DEFCONFIG in the root's /etc/default/retrofi")
    ap.add_argument("--upgrade-from", default="previous",
                    help="the older kernel the root starts with, upgraded to the booted one "
                         "after the install: an ABI (6.1.0-56-amd64), 'previous' (the newest "
                         "ABI of the line kernel-matrix.lock serves below the booted one) or "
                         "'none' (one kernel, no upgrade)")
    ap.add_argument("--no-boot", action="store_true", help="install and purge only")
    ap.add_argument("--logdir", default="out/e2e", help="where the guests' consoles go")
    args = ap.parse_args(argv)
    try:
        import retrofi_kernels
        cache = retrofi_kernels.cache_dir()
        krel = args.kernelrelease or target_kernelrelease(args.release)
        older = upgrade_from(args.upgrade_from, krel)
        target, accel, allowed = None, "tcg", ()
        if not args.no_boot:
            import retrofi_accel
            import retrofi_matrix
            matrix = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
            name = RELEASE_TARGET[args.release]
            target = retrofi_kernels.fetch(matrix, [name], with_source=False).target(name)
            if target.kernelrelease != krel:
                raise RetrofiError(f"target {name} is kernel {target.kernelrelease}, not {krel}",
                                   fix="boot the target's own kernel (leave --kernelrelease "
                                       "out) or pass --no-boot")
            spec = next(t for t in matrix.targets if t.name == name)
            allowed = spec.allowed_splats
            accel = retrofi_accel.choose(target, cache).name
            os.makedirs(args.logdir, exist_ok=True)
        r = cycle(cache, args.release, krel, args.deb, args.defconfig, target=target,
                  accel=accel, logdir=os.path.abspath(args.logdir), allowed=allowed,
                  upgrade_from=older)
    except RetrofiError as e:
        print(e.format(), file=sys.stderr)
        return e.code
    print(report(r))
    return 0 if r.ok else 1


def _lock_entries():
    import json
    with open(os.path.join(REPO, "kernel-matrix.lock")) as f:
        return json.load(f)["entries"]


def upgrade_from(arg, kernelrelease):
    """--upgrade-from's kernel release ("" for none)."""
    import retrofi_e2e_upgrade
    if arg == "none":
        return ""
    if arg == "previous":
        return retrofi_e2e_upgrade.older_abi(kernelrelease, _lock_entries())
    if arg == kernelrelease:
        raise RetrofiError(f"--upgrade-from {arg} is the booted kernel itself",
                           fix="name an older ABI of the same line, or 'none'")
    return arg


def target_kernelrelease(release):
    """The kernel release of the release's target (kernel-matrix.lock's ABI)."""
    lock = os.path.join(REPO, "kernel-matrix.lock")
    entries = _lock_entries()
    entry = entries.get(f"target:{RELEASE_TARGET[release]}")
    if not entry:
        raise RetrofiError(f"kernel-matrix.lock pins no target {RELEASE_TARGET[release]}",
                           where=lock, fix="run `make kernels`")
    return f"{entry['abi']}-amd64"


if __name__ == "__main__":
    raise SystemExit(main())
