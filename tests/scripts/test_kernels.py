"""The kernel supply: resolving against Debian's real archive, pinning,
verifying the cache, building a module against what was unpacked, and the
ways it refuses bad input without leaving anything half-written."""

import json
import os
import shutil
import signal
import subprocess
import textwrap
import time

import pytest

import retrofi_apt
import retrofi_debs
import retrofi_debversion
import retrofi_kernels
import retrofi_matrix
import retrofi_pins
from conftest import REPO, require_root, run_cli
from faultcheck import assert_one_error, saw
from retrofi_errors import RetrofiError

UNREACHABLE = {"RETROFI_MIRROR": "http://127.0.0.1:9/debian",
               "RETROFI_SECURITY_MIRROR": "http://127.0.0.1:9/debian-security"}

HELLO_C = textwrap.dedent("""\
    #include <linux/module.h>
    #include <linux/init.h>

    static int __init hello_init(void)
    {
    \treturn 0;
    }

    static void __exit hello_exit(void)
    {
    }

    module_init(hello_init);
    module_exit(hello_exit);
    MODULE_LICENSE("GPL");
    """)


def small_matrix(tmp_path, source="linux-source-6.12", suites="[bookworm-security]",
                 target_suites="[bookworm, bookworm-security]", abi="6.1.0-*"):
    path = tmp_path / "kernel-matrix.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        source:
          package: {source}
          suites: {suites}
        targets:
          - name: "6.1"
            kind: real
            default: true
            suites: {target_suites}
            abi: "{abi}"
        """))
    return retrofi_matrix.load(str(path))


# ------------------------------------------------------------- pure units

@pytest.mark.parametrize("a,b,want", [
    ("6.12.118-1~deb12u1", "6.12.117-1~deb12u1", 1),
    ("1.0~rc1", "1.0", -1),
    ("6.1.192-3", "6.1.192-3", 0),
    ("1:0.1", "2.0", 1),
    ("6.12.115-2~deb12u1", "6.12.115-2", -1),
    ("5.10.10-1", "5.10.9-1", 1),
    ("1.0a", "1.0+", -1),
])
def test_debian_version_order_agrees_with_dpkg(a, b, want):
    assert retrofi_debversion.compare(a, b) == want
    gt = subprocess.run(["dpkg", "--compare-versions", a, "gt", b]).returncode == 0
    assert gt == (want > 0)


def test_depends_are_parsed_with_alternatives_and_relations():
    deps = retrofi_apt.parse_depends(
        "linux-base (>= 4.12~), linux-image-x (= 1) | linux-image-x-unsigned (= 1), gcc-12")
    assert deps == [[("linux-base", ">=", "4.12~")],
                    [("linux-image-x", "=", "1"), ("linux-image-x-unsigned", "=", "1")],
                    [("gcc-12", None, None)]]


def test_mirrors_are_read_from_host_sources_without_writing_them(tmp_path, monkeypatch):
    monkeypatch.delenv("RETROFI_MIRROR", raising=False)
    monkeypatch.delenv("RETROFI_SECURITY_MIRROR", raising=False)
    d = tmp_path / "sources.list.d"
    d.mkdir()
    (d / "debian.sources").write_text(
        "Types: deb\nURIs: http://mirror.invalid/debian\nSuites: bookworm\nComponents: main\n\n"
        "Types: deb\nURIs: http://mirror.invalid/debian-security/\nSuites: bookworm-security\n")
    (d / "other.list").write_text("deb [arch=amd64] https://elsewhere.invalid/apt stable main\n")
    before = {p: p.read_bytes() for p in d.iterdir()}
    m = retrofi_apt.mirrors([str(tmp_path / "sources.list"), str(d)])
    assert m == {"debian": "http://mirror.invalid/debian",
                 "debian-security": "http://mirror.invalid/debian-security"}
    assert {p: p.read_bytes() for p in d.iterdir()} == before
    monkeypatch.setenv("RETROFI_MIRROR", "http://override.invalid/debian/")
    assert retrofi_apt.mirrors([str(d)])["debian"] == "http://override.invalid/debian"


def test_no_mirror_anywhere_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("RETROFI_MIRROR", raising=False)
    with pytest.raises(RetrofiError) as e:
        retrofi_apt.mirrors([str(tmp_path / "none")])
    assert "RETROFI_MIRROR" in e.value.fix


def test_private_apt_config_keeps_signature_checks_and_stays_in_cache(tmp_path):
    apt = retrofi_apt.PrivateApt(str(tmp_path), ["bookworm"], {"debian": "http://m.invalid/debian",
                                                               "debian-security": "http://m.invalid/s"})
    apt.write_config()
    conf = open(apt.conf).read()
    sources = open(os.path.join(apt.root, "etc", "sources.list")).read()
    assert f"signed-by={retrofi_apt.KEYRING}" in sources
    for weak in ("trusted=yes", "AllowInsecure", "allow-insecure", "AllowUnauthenticated",
                 "Check-Valid-Until", "allow-unauthenticated"):
        assert weak.lower() not in (conf + sources).lower()
    for line in conf.splitlines():
        if line.startswith("Dir"):
            assert str(tmp_path) in line, line


def test_corrupt_lock_file_is_named(tmp_path):
    p = tmp_path / "kernel-matrix.lock"
    p.write_text("{ not json")
    with pytest.raises(RetrofiError) as e:
        retrofi_pins.load_lock(str(p))
    assert e.value.where == str(p) and "kernels-update" in e.value.fix


def test_unwritable_cache_is_refused(tmp_path, cli):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    p = cli("kernels", env={"RETROFI_CACHE": str(blocker / "cache")})
    line = assert_one_error(p, f"{blocker / 'cache'}: cache directory is not writable",
                            fix="RETROFI_CACHE", code=1, stream="stderr")
    saw("test_kernels.py::test_unwritable_cache_is_refused", line)
    assert blocker.read_text() == "not a directory"


@pytest.mark.root
def test_full_disk_is_refused_before_anything_is_written(tmp_path):
    require_root("mount a small tmpfs")
    mnt = tmp_path / "small"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mnt)], check=True)
    try:
        m = small_matrix(tmp_path)
        p = run_cli("--matrix", m.path, "kernels", env={"RETROFI_CACHE": str(mnt)})
        line = assert_one_error(p, f"{mnt}: not enough free space", code=1, stream="stderr")
        saw("test_kernels.py::test_full_disk_is_refused_before_anything_is_written", line)
        assert not (tmp_path / "kernel-matrix.lock").exists()
        assert sorted(os.listdir(mnt)) == [".lock"]
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_disk_full_midway_becomes_one_error():
    with pytest.raises(RetrofiError) as e:
        with retrofi_kernels.disk_errors("/some/cache"):
            raise OSError(28, "No space left on device")
    assert "disk is full" in e.value.what and e.value.where == "/some/cache"


def test_failed_unpack_leaves_no_directory(tmp_path):
    m = small_matrix(tmp_path)
    t = m.target("6.1")
    bad = tmp_path / "bad.deb"
    bad.write_bytes(b"!<arch>\ntruncated")
    entry = {"abi": "6.1.0-1", "version": "1", "packages": [{"size": 10}]}
    with pytest.raises(RetrofiError):
        retrofi_debs.unpack_target(str(tmp_path / "cache"), t, entry, [str(bad)])
    assert os.listdir(tmp_path / "cache" / "targets") == []


def test_a_second_run_waits_for_the_cache_lock(tmp_path):
    cache = str(tmp_path / "cache")
    m = small_matrix(tmp_path)
    with retrofi_kernels.cache_lock(cache):
        p = subprocess.Popen(["/usr/bin/python3", f"{REPO}/scripts/retrofi.py", "--matrix", m.path,
                              "kernels"], env=dict(os.environ, RETROFI_CACHE=cache, **UNREACHABLE),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = p.stdout.readline()
        assert "waiting for another retrofi run" in line
        assert p.poll() is None
    out = p.communicate(timeout=120)[0]
    # Once the lock is free it goes on (and fails here only for the unreachable mirror).
    assert p.returncode == 1 and "cannot fetch the package lists" in out


# ------------------------------------------------------------- the real archive

@pytest.fixture(scope="session")
def real_kernels():
    """The repository's matrix fetched into the default cache (as `make kernels`)."""
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    return m, retrofi_kernels.fetch(m)


@pytest.mark.network
def test_resolver_picks_newest_headers_with_matching_image(tmp_path):
    m = small_matrix(tmp_path)
    apt = retrofi_apt.PrivateApt(str(tmp_path / "cache"), m.target("6.1").suites)
    entry = retrofi_pins.resolve_target(apt, m.target("6.1"))
    names = {p["name"] for p in entry["packages"]}
    abi = entry["abi"]
    assert abi.startswith("6.1.0-")
    assert names == {f"linux-headers-{abi}-amd64", f"linux-headers-{abi}-common",
                     "linux-kbuild-6.1", f"linux-image-{abi}-amd64-unsigned"}
    for p in entry["packages"]:
        assert len(p["sha256"]) == 64 and p["size"] > 0 and p["filename"].startswith("pool/")
    # No other 6.1 ABI in the suites is newer.
    newer = [n for n in apt.pkgnames("linux-headers-6.1.0-")
             if m.target("6.1").abi_from_headers(n)
             and any(retrofi_debversion.compare(v.version, entry["version"]) > 0
                     for v in apt.versions(n))]
    assert newer == []


@pytest.mark.network
def test_unknown_source_package_is_named(tmp_path):
    m = small_matrix(tmp_path, source="linux-source-9.99")
    p = run_cli("--matrix", m.path, "kernels", env={"RETROFI_CACHE": str(tmp_path / "c")})
    assert p.returncode == 1
    assert "package linux-source-9.99 not found in suites bookworm-security" in p.stderr
    assert not (tmp_path / "kernel-matrix.lock").exists()


@pytest.mark.network
def test_target_without_packages_is_named(tmp_path):
    m = small_matrix(tmp_path, abi="9.9.0-*")
    apt = retrofi_apt.PrivateApt(str(tmp_path / "c"), m.target("6.1").suites)
    with pytest.raises(RetrofiError) as e:
        retrofi_pins.resolve_target(apt, m.target("6.1"))
    assert "linux-headers-9.9.0-*-amd64" in e.value.what and "target '6.1'" in e.value.where


@pytest.mark.network
def test_suite_missing_from_archive_is_refused(tmp_path):
    m = small_matrix(tmp_path, suites="[bookworm-nosuch]")
    p = run_cli("--matrix", m.path, "kernels", env={"RETROFI_CACHE": str(tmp_path / "c")})
    assert p.returncode == 1 and "bookworm-nosuch" in p.stderr
    assert not (tmp_path / "kernel-matrix.lock").exists()


def test_unreachable_mirror_is_one_clear_error(tmp_path):
    m = small_matrix(tmp_path)
    p = run_cli("--matrix", m.path, "kernels", env=dict(UNREACHABLE, RETROFI_CACHE=str(tmp_path / "c")))
    line = assert_one_error(p, "cannot fetch the package lists for suites bookworm-security",
                            code=1, stream="stderr")
    saw("test_kernels.py::test_unreachable_mirror_is_one_clear_error", line)
    assert not (tmp_path / "kernel-matrix.lock").exists()
    assert [d for d in os.listdir(tmp_path / "c") if d not in (".lock", "apt")] == [], \
        "nothing but the lock and the package lists' directory"


@pytest.mark.network
def test_pin_no_longer_in_archive_says_to_update(tmp_path):
    m = small_matrix(tmp_path)
    apt = retrofi_apt.PrivateApt(str(tmp_path / "c"), m.target("6.1").suites)
    entry = retrofi_pins.resolve_target(apt, m.target("6.1"))
    kbuild = next(p for p in entry["packages"] if p["name"] == "linux-kbuild-6.1")
    gone = dict(kbuild, version="6.1.0-0retrofi.gone", filename="pool/x/linux-kbuild-6.1_gone.deb")
    with pytest.raises(RetrofiError) as e:
        retrofi_debs.ensure_deb(str(tmp_path / "c"), apt, gone)
    assert "linux-kbuild-6.1=6.1.0-0retrofi.gone is no longer available" in e.value.what
    assert "make kernels-update" in e.value.fix
    assert not [f for f in os.listdir(tmp_path / "c" / "debs") if not f.startswith(".")]


@pytest.mark.network
def test_corrupt_cached_deb_is_detected_named_and_fetched_again(tmp_path, capsys):
    cache = str(tmp_path / "c")
    m = small_matrix(tmp_path)
    apt = retrofi_apt.PrivateApt(cache, m.target("6.1").suites)
    entry = retrofi_pins.resolve_target(apt, m.target("6.1"))
    pin = next(p for p in entry["packages"] if p["name"] == "linux-kbuild-6.1")
    path = retrofi_debs.ensure_deb(cache, apt, pin)
    assert retrofi_apt.sha256_file(path) == pin["sha256"]
    for damage in ("truncate", "flip"):
        data = open(path, "rb").read()
        with open(path, "wb") as f:
            if damage == "truncate":
                f.write(data[: len(data) // 2])
            else:
                f.write(data[:100] + bytes([data[100] ^ 1]) + data[101:])
        capsys.readouterr()
        again = retrofi_debs.ensure_deb(cache, apt, pin)
        out = capsys.readouterr().out
        assert f"{os.path.basename(path)}: corrupt or truncated" in out
        assert "downloading linux-kbuild-6.1" in out
        assert again == path and retrofi_apt.sha256_file(path) == pin["sha256"]


@pytest.mark.network
def test_kernels_fetches_source_and_default_targets(real_kernels):
    m, k = real_kernels
    # The default source: the newest linux-source, as pinned.
    lock = retrofi_pins.load_lock(os.path.join(REPO, "kernel-matrix.lock"))
    assert m.source.name == "newest"
    assert k.source.package == lock["source:newest"]["packages"][0]["name"] != "linux-source-6.12"
    assert os.path.isfile(os.path.join(k.source.path, "net/mac80211/main.c"))
    assert os.path.isfile(os.path.join(k.source.path, "include/linux/list.h"))
    assert k.source.mtime > 1600000000
    assert set(k.targets) == {t.name for t in m.targets if t.default and t.kind == "real"}
    assert {"6.12", "6.1", "5.10"} <= set(k.targets)
    for t in k.targets.values():
        assert os.path.isfile(t.image) and os.path.isdir(os.path.join(t.modules, "kernel"))
        assert os.path.isfile(os.path.join(t.headers, ".config"))
        assert t.kernelrelease.startswith(t.name + ".")


@pytest.mark.network
@pytest.mark.parametrize("name", ["6.12", "6.1"])
def test_unpacked_headers_build_an_external_module(real_kernels, tmp_path, name):
    _, k = real_kernels
    t = k.targets[name]
    (tmp_path / "hello.c").write_text(HELLO_C)
    (tmp_path / "Kbuild").write_text("obj-m := hello.o\n")
    argv = ["make", "-C", t.headers, f"M={tmp_path}", "modules"]
    if t.cc:
        argv.append(f"CC={t.cc}")
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout[-3000:]
    assert "warning:" not in p.stdout
    info = subprocess.run(["modinfo", "-F", "vermagic", str(tmp_path / "hello.ko")],
                          stdout=subprocess.PIPE, text=True, check=True).stdout
    assert info.startswith(t.kernelrelease + " ")


@pytest.mark.network
def test_second_run_is_a_no_op_without_network(real_kernels):
    start = time.monotonic()
    p = run_cli("kernels", env=UNREACHABLE)
    elapsed = time.monotonic() - start
    assert p.returncode == 0, p.stderr
    assert "nothing to do" in p.stdout
    saw("test_kernels.py::test_second_run_is_a_no_op_without_network",
        next(l for l in p.stdout.splitlines() if "nothing to do" in l))
    assert "downloading" not in p.stdout and "resolving" not in p.stdout
    assert elapsed < 5, f"warm run took {elapsed:.1f} s"


@pytest.mark.network
def test_lock_pins_are_kept_and_verify_finds_no_problem(real_kernels, cli):
    m, k = real_kernels
    lock = json.load(open(os.path.join(REPO, "kernel-matrix.lock")))["entries"]
    assert lock["target:6.1"]["version"] == k.targets["6.1"].version
    assert lock[m.source.key]["packages"][0]["version"] == k.source.version
    p = cli("kernels", "--verify", env=UNREACHABLE)
    assert p.returncode == 0 and "all cached packages verified" in p.stdout


def _hardlink_cache(src, dst):
    os.makedirs(os.path.join(dst, "debs"))
    for f in os.listdir(os.path.join(src, "debs")):
        if f.endswith(".deb"):
            os.link(os.path.join(src, "debs", f), os.path.join(dst, "debs", f))
    shutil.copytree(os.path.join(src, "apt"), os.path.join(dst, "apt"), symlinks=True)


@pytest.mark.network
def test_run_killed_while_unpacking_leaves_nothing_taken_for_complete(real_kernels, tmp_path):
    cache = str(tmp_path / "cache")
    _hardlink_cache(retrofi_kernels.cache_dir(), cache)
    shutil.copy(os.path.join(REPO, "kernel-matrix.yaml"), tmp_path)
    shutil.copy(os.path.join(REPO, "kernel-matrix.lock"), tmp_path)
    shutil.copytree(os.path.join(REPO, "kernel-configs"), tmp_path / "kernel-configs")
    env = dict(os.environ, RETROFI_CACHE=cache, **UNREACHABLE)
    argv = ["/usr/bin/python3", f"{REPO}/scripts/retrofi.py", "--matrix",
            str(tmp_path / "kernel-matrix.yaml"), "kernels"]
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    for line in p.stdout:
        if "extracting" in line:
            time.sleep(2)
            os.killpg(p.pid, signal.SIGKILL)
            break
    p.wait()
    assert p.returncode == -signal.SIGKILL
    src = os.listdir(os.path.join(cache, "source"))
    assert all(d.startswith(".tmp-") for d in src), src
    # The next run finishes the job (offline: the .debs are cached) and cleans up.
    q = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert q.returncode == 0, q.stdout[-2000:]
    assert f"unpacking {real_kernels[1].source.package}" in q.stdout
    src = os.listdir(os.path.join(cache, "source"))
    assert len(src) == 1 and not src[0].startswith(".")
