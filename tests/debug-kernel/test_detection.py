"""The debug kernel catches what it is there to catch: a guest that loads
a module doing a use-after-free, a lock order inversion, a leak or a list
corruption fails its target, with the checker's report quoted, although
every KTAP line it prints is "ok"."""

import os
import shutil
import subprocess

import pytest

import retrofi_boot
import retrofi_initramfs
from conftest import REPO

FIXTURE = os.path.join(REPO, "tests", "guest", "fixtures", "debug_detects")
# module -> (splat kind, text the quoted report must hold)
BUGS = {
    "retrofi_uaf": ("KASAN", "BUG: KASAN: slab-use-after-free in retrofi_uaf_init"),
    "retrofi_lock_inversion": ("lockdep", "possible circular locking dependency detected"),
    "retrofi_leak": ("kmemleak", "unreferenced object 0x"),
    "retrofi_list_corruption": ("list corruption", "list_add corruption"),
}
BOOT_TIMEOUT = 600


@pytest.fixture(scope="module")
def modules(debug_kernel, tmp_path_factory):
    src = tmp_path_factory.mktemp("debug-modules")
    shutil.copytree(os.path.join(REPO, "tests", "guest", "debug-modules"), src,
                    dirs_exist_ok=True)
    p = subprocess.run(["make", "-C", debug_kernel.headers, f"M={src}", "modules"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout[-3000:]
    assert "warning:" not in p.stdout
    return src


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_a_module_with_the_bug_fails_the_debug_target_with_the_report_quoted(
        debug_kernel, debug_kernel_args, modules, bug, tmp_path):
    kind, text = BUGS[bug]
    ko = (modules / f"{bug}.ko").read_bytes()
    initrd = retrofi_initramfs.build(debug_kernel, None, init=FIXTURE,
                                     config={f"{bug}.ko": ko, "etc/retrofi-bug": f"{bug}\n"})
    result = retrofi_boot.boot(debug_kernel, initrd, str(tmp_path / "console.log"),
                               timeout=BOOT_TIMEOUT, append=debug_kernel_args)
    print(result.report())
    assert result.ktap.passed, "every KTAP line was ok"
    assert result.status == "fail" and "kernel splat" in result.reason
    ours = [s for s in result.splats if s.kind == kind]
    assert ours, [(s.kind, s.text[0]) for s in result.splats]
    assert any(text in line for s in ours for line in s.text), ours
    assert kind in result.report() and text in result.report()
