"""A kernel that cannot host the stack (Debian's cloud flavour: no
cfg80211, no arc4) is refused before any work, in under a second, with one
error naming every missing option: never by a compile that fails minutes
later."""

import os
import shutil
import subprocess
import time

import pytest

import retrofi_generate
import retrofi_kernels
import retrofi_matrix
import retrofi_run
from conftest import REPO

BASE = os.path.join(REPO, "drivers", "out-tree", "config", "base")
BASE_SH = os.path.join(REPO, "drivers", "out-tree", "config", "base.sh")


def required():
    """The options of config/base, in order."""
    return [l.split()[0] for l in open(BASE) if l.strip() and not l.startswith("#")]


def fake_klib(tmp_path, config):
    klib = tmp_path / "klib"
    klib.mkdir(parents=True)
    (klib / ".config").write_text(config)
    return str(klib)


def base_check(klib):
    return subprocess.run(["sh", BASE_SH, klib], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def test_every_missing_base_option_is_named_in_one_error(tmp_path):
    full = "".join(f"CONFIG_{o}={'m' if i % 2 else 'y'}\n" for i, o in enumerate(required()))
    assert base_check(fake_klib(tmp_path / "ok", full)).returncode == 0
    for option in required():
        config = full.replace(f"CONFIG_{option}=", f"# CONFIG_{option} is not set\n#=")
        p = base_check(fake_klib(tmp_path / option, config))
        assert p.returncode != 0, option
        lines = p.stdout.splitlines()
        assert len(lines) == 2 and lines[1].startswith("  fix: "), p.stdout
        assert "this kernel cannot load a Wi-Fi stack: it lacks " \
               f"CONFIG_{option} (" in lines[0], p.stdout
        assert sum(f"CONFIG_{o} (" in lines[0] for o in required()) == 1, p.stdout


def test_the_stack_needs_arc4_and_the_ccmp_ciphers_from_the_base():
    # What mac80211 selects and no module of the tree supplies.
    assert {"NET", "CRYPTO_LIB_ARC4", "CRYPTO_CCM", "CRYPTO_GCM", "CRYPTO_CMAC"} <= set(required())
    # What the stack can do without is turned off by config/options instead.
    assert not {"WIRELESS", "RFKILL", "LEDS_CLASS", "WEXT_CORE"} & set(required())


@pytest.fixture(scope="module")
def cloud():
    """The newest 6.1 cloud row's headers (the flavour without Wi-Fi)."""
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    rows = [t for t in m.select(["sweep"]) if t.family == "all-6.1"
            and t.flavour == "cloud-amd64"]
    assert len(rows) == 1, [t.name for t in rows]
    return m, rows[0]


@pytest.mark.network
def test_a_cloud_row_is_refused_in_under_a_second_before_any_work(cloud, tmp_path, monkeypatch):
    m, row = cloud
    # Fetched first (a shared cache may make it wait for its lock); the
    # run itself then reads the same trees.
    fetched = retrofi_kernels.fetch(m, [row.name], with_source=False)

    def no_work(*_args, **_kwargs):
        raise AssertionError("a refused row must not generate or build")
    monkeypatch.setattr(retrofi_generate, "generate", no_work)
    monkeypatch.setattr(retrofi_run.retrofi_build, "build", no_work)
    monkeypatch.setattr(retrofi_kernels, "fetch", lambda *a, **k: fetched)
    started = time.monotonic()
    rows = retrofi_run.run(m, [row.name], out_dir=str(tmp_path), boot=True)
    assert time.monotonic() - started < 1.0
    (r,) = rows
    assert (r.kind, r.build, r.boot, r.ok) == ("build-only", "fail", "not run", False)
    assert r.seconds < 1.0
    assert r.reason.startswith("retrofi: error: ") and r.reason.count("retrofi: error:") == 1
    assert "this kernel cannot load a Wi-Fi stack: it lacks CONFIG_CFG80211 (" in r.reason
    assert "CONFIG_CRYPTO_LIB_ARC4 (mac80211 selects CRYPTO_LIB_ARC4" in r.reason
    assert "fix: " in r.reason
    assert open(r.logs["build"]).read().strip() == r.reason

