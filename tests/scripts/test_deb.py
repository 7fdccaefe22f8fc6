"""The retrofi-dkms .deb: built the Debian way (dh with dh_dkms) from the
release tarball; it installs the DKMS source under /usr/src/retrofi-<dkms
version>/ and retrofi-status, nothing else; it is byte-identical when built
twice, lintian clean, and leaves nothing behind once purged.

The fast tests build it from the small synthetic tree of test_generate
(no module is built anywhere); the network test from the real release
tarball.  The leftover check installs and purges the package in an overlay
of / inside a private mount namespace (retrofi_leftovers): the machine's
own root is never written to.
"""

import io
import os
import shutil
import subprocess
import tarfile

import pytest

import retrofi_deb as deb
import retrofi_dkmsconf
import retrofi_leftovers
import retrofi_release as rel
from conftest import out_tree_kbuild
from retrofi_errors import RetrofiError
from test_generate import MTIME, write

DKMS_DIR = "usr/src/retrofi-9.9.1-1"


class _Source:
    version = "9.9.1-1"


def _tarball(root, mtime=MTIME):
    """A release tarball of a small tree made as generate makes one: its
    versions file and dkms.conf (retrofi_dkmsconf), the Kbuild files,
    config/ and defconfigs/ dkms.conf lists the modules from, a few sources."""
    tree = root / "retrofi-9.9.1-1"
    write(str(tree / "Makefile"), "all:\n")
    out_tree_kbuild(str(tree))
    write(str(tree / "compat" / "main.c"), "// SPDX-License-Identifier: GPL-2.0\n")
    write(str(tree / "compat" / "probe.sh"), "#!/bin/sh\nexit 0\n", 0o755)
    write(str(tree / "net" / "foo" / "a.c"), "// SPDX-License-Identifier: GPL-2.0\n")
    write(str(tree / "versions"), "# retrofi output tree: what it was generated from\n"
          "source-package: linux-source-9.9\nsource-version: 9.9.1-1\n"
          "project-version: v0-test\n")
    write(str(tree / "dkms.conf"), retrofi_dkmsconf.dkms_conf(_Source, "retrofi").decode())
    return rel.release(str(tree), str(root), mtime).tarball, str(tree)


def _contents(path):
    out = subprocess.run(["dpkg-deb", "--contents", path], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    entries = {}
    for l in out.splitlines():
        f = l.split()
        entries[f[5].lstrip(".").strip("/")] = (f[0], f[1])
    return entries


def _tree_files(tree):
    out = set()
    for d, dirs, files in os.walk(tree):
        for n in dirs + files:
            out.add(os.path.relpath(os.path.join(d, n), tree))
    return out


@pytest.fixture(scope="module")
def one_deb(tmp_path_factory):
    """One .deb of the small tree, shared by the tests that only read it."""
    root = tmp_path_factory.mktemp("deb")
    tarball, tree = _tarball(root)
    return deb.build_deb(tarball, str(root / "deb")), tree


def test_deb_is_named_after_the_source_version_and_revision(one_deb):
    result, _ = one_deb
    assert os.path.basename(result.deb) == "retrofi-dkms_9.9.1-1-1_all.deb"
    assert result.version == "9.9.1-1-1" and result.dkms_version == "9.9.1-1"


def test_deb_installs_the_dkms_source_and_retrofi_status_and_nothing_else(one_deb):
    result, tree = one_deb
    entries = _contents(result.deb)
    files = {p for p, (mode, _) in entries.items() if not mode.startswith("d")}
    want = {f"{DKMS_DIR}/{p}" for p in _tree_files(tree)
            if os.path.isfile(os.path.join(tree, p))}
    want |= {"usr/sbin/retrofi-status", "usr/share/man/man8/retrofi-status.8.gz",
             "usr/share/doc/retrofi-dkms/copyright",
             "usr/share/doc/retrofi-dkms/changelog.Debian.gz",
             "usr/share/lintian/overrides/retrofi-dkms",
             "usr/share/dkms/modules_to_force_install/retrofi"}
    assert files == want
    assert entries["usr/sbin/retrofi-status"] == ("-rwxr-xr-x", "root/root")
    assert all(owner == "root/root" for _, owner in entries.values())
    # dh_dkms installed the tree's own dkms.conf, with its BUILD_EXCLUSIVE rule.
    x = subprocess.run(["dpkg-deb", "--fsys-tarfile", result.deb], stdout=subprocess.PIPE,
                       check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(x)) as tf:
        conf = tf.extractfile(f"./{DKMS_DIR}/dkms.conf").read()
        status = tf.extractfile("./usr/sbin/retrofi-status").read()
        # dkms installs the modules although their version equals the kernel's own.
        force = tf.extractfile("./usr/share/dkms/modules_to_force_install/retrofi").read()
    assert force == b"retrofi_version-override\n"
    with open(os.path.join(tree, "dkms.conf"), "rb") as f:
        assert conf == f.read()
    assert b"BUILD_EXCLUSIVE_KERNEL=" in conf and b"BUILD_EXCLUSIVE_CONFIG=" in conf
    with open(os.path.join(deb.PACKAGING, "retrofi-status"), "rb") as f:
        assert status == f.read()


def test_deb_depends_on_dkms_and_make_and_its_scripts_add_and_remove_the_dkms_module(one_deb):
    result, _ = one_deb

    def field(name):
        return subprocess.run(["dpkg-deb", "-f", result.deb, name], stdout=subprocess.PIPE,
                              text=True, check=True).stdout.strip()
    assert field("Package") == "retrofi-dkms"
    assert field("Version") == "9.9.1-1-1"
    assert field("Architecture") == "all"
    depends = [d.strip() for d in field("Depends").split(",")]
    # bullseye's dkms 2.8.4 runs the scripts dh_dkms writes (make deb-e2e
    # RELEASE=bullseye), so the package does not ask for bookworm's dkms.
    assert "dkms (>= 2.8.4)" in depends and "make" in depends, depends
    assert not any(d.startswith("dkms (>= 3") for d in depends), depends
    scripts = subprocess.run(["dpkg-deb", "--ctrl-tarfile", result.deb],
                             stdout=subprocess.PIPE, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(scripts)) as tf:
        postinst = tf.extractfile("./postinst").read().decode()
        prerm = tf.extractfile("./prerm").read().decode()
    assert "DKMS_NAME=retrofi" in postinst and "DKMS_VERSION=9.9.1-1" in postinst
    assert "common.postinst" in postinst
    assert "dkms remove -m $DKMS_NAME -v $DKMS_VERSION --all" in prerm


def test_deb_is_byte_identical_when_built_twice_and_changes_with_its_input(one_deb, tmp_path,
                                                                           monkeypatch):
    a, _ = one_deb
    tarball, _ = _tarball(tmp_path / "b")
    # Another directory, time zone, umask and locale must not matter.
    monkeypatch.setenv("TZ", "Pacific/Auckland")
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    old = os.umask(0o077)
    try:
        b = deb.build_deb(tarball, str(tmp_path / "b" / "deb"))
    finally:
        os.umask(old)
    with open(a.deb, "rb") as fa, open(b.deb, "rb") as fb:
        assert fa.read() == fb.read()
    # The check above could pass if the build ignored its input: another
    # timestamp (SOURCE_DATE_EPOCH) must give other bytes.
    tarball, _ = _tarball(tmp_path / "c", mtime=MTIME + 86400)
    c = deb.build_deb(tarball, str(tmp_path / "c" / "deb"))
    with open(a.deb, "rb") as fa, open(c.deb, "rb") as fc:
        assert fa.read() != fc.read()


def test_lintian_reports_nothing_on_the_deb(one_deb):
    result, _ = one_deb
    p = subprocess.run(["lintian", "--fail-on", "error,warning", result.deb],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout == "" and p.returncode == 0, p.stdout + p.stderr


def test_a_damaged_tarball_is_refused_and_nothing_is_written(tmp_path):
    tarball, _ = _tarball(tmp_path)
    with open(tarball, "r+b") as f:
        f.seek(100)
        f.write(b"\0\0\0\0")
    with pytest.raises(RetrofiError) as e:
        deb.build_deb(tarball, str(tmp_path / "deb"))
    assert "does not match its .sha256" in str(e.value)
    assert not os.path.exists(tmp_path / "deb") or os.listdir(tmp_path / "deb") == []


def test_a_tarball_without_a_versions_file_is_refused(tmp_path):
    tree = tmp_path / "retrofi-1.0"
    write(str(tree / "dkms.conf"), 'PACKAGE_NAME="retrofi"\n')
    with tarfile.open(tmp_path / "t.tar.xz", "w:xz") as tf:
        tf.add(tree, "retrofi-1.0")
    with pytest.raises(RetrofiError) as e:
        deb.build_deb(str(tmp_path / "t.tar.xz"), str(tmp_path / "deb"))
    assert "no versions file" in str(e.value) and "make release" in str(e.value)
    assert os.listdir(tmp_path / "deb") == []


# ---- the leftover check

needs_root = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"),
                                reason="the leftover check needs root and unshare")


@needs_root
def test_the_purged_package_leaves_nothing_behind(one_deb):
    result, _ = one_deb
    r = retrofi_leftovers.check(result.deb)
    assert f"/{DKMS_DIR}/dkms.conf" in r.installed and "/usr/sbin/retrofi-status" in r.installed
    # dkms saw it: the postinst added it, the prerm removed it.
    assert "Loading new retrofi-9.9.1-1 DKMS files" in r.log, r.log
    assert "Deleting module retrofi-9.9.1-1 completely from the DKMS tree" in r.log, r.log
    assert r.leftovers == [], retrofi_leftovers.describe(r)
    # The machine's own dpkg never heard of it.
    q = subprocess.run(["dpkg-query", "-W", "retrofi-dkms"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    assert q.returncode != 0, q.stdout


@needs_root
def test_the_leftover_check_names_a_file_the_package_leaves_behind(one_deb, tmp_path):
    result, _ = one_deb
    x = tmp_path / "x"
    subprocess.run(["dpkg-deb", "-R", result.deb, str(x)], check=True)
    postinst = (x / "DEBIAN" / "postinst").read_text().splitlines()
    postinst.insert(2, "mkdir -p /var/lib/retrofi && echo 1 > /var/lib/retrofi/state")
    (x / "DEBIAN" / "postinst").write_text("\n".join(postinst) + "\n")
    bad = tmp_path / "bad.deb"
    subprocess.run(["dpkg-deb", "-Zgzip", "-z1", "-b", str(x), str(bad)], check=True,
                   stdout=subprocess.DEVNULL)
    r = retrofi_leftovers.check(str(bad))
    assert r.leftovers == [("var/lib/retrofi", "new dir"), ("var/lib/retrofi/state", "new file")]
    assert "/var/lib/retrofi/state: new file" in retrofi_leftovers.describe(r)


def test_the_real_release_makes_a_lintian_clean_deb_that_purges_clean(tmp_path):
    """The whole stack's tree (the real source): what lintian sees of real
    kernel sources, and the package DKMS registers, purged without a trace."""
    src = os.environ.get("RETROFI_TEST_SOURCE")
    if not src:
        pytest.skip("RETROFI_TEST_SOURCE not set (path of an extracted linux-source tree)")
    import retrofi_generate as gen
    x, y = gen.tree_series(src)
    source = gen.SourceTree(f"linux-source-{x}.{y}", f"{x}.{y}.0-test", src, MTIME)
    tree = gen.generate(source, str(tmp_path / "out"), cache_dir=gen.default_cache_dir()).out_path
    tarball = rel.release(tree, str(tmp_path / "rel"), MTIME).tarball
    result = deb.build_deb(tarball, str(tmp_path / "deb"))
    assert os.path.basename(result.deb) == f"retrofi-dkms_{x}.{y}.0-test-1_all.deb"
    files = {p for p, (mode, _) in _contents(result.deb).items() if not mode.startswith("d")}
    assert {p for p in files if not p.startswith("usr/src/")} == {
        "usr/sbin/retrofi-status", "usr/share/man/man8/retrofi-status.8.gz",
        "usr/share/doc/retrofi-dkms/copyright", "usr/share/doc/retrofi-dkms/changelog.Debian.gz",
        "usr/share/lintian/overrides/retrofi-dkms",
        "usr/share/dkms/modules_to_force_install/retrofi"}
    assert {p for p in files if p.startswith("usr/src/")} == {
        f"usr/src/retrofi-{x}.{y}.0-test/{p}" for p in _tree_files(tree)
        if os.path.isfile(os.path.join(tree, p))}
    # Every tag, down to information and pedantic ones: each override says why.
    p = subprocess.run(["lintian", "-I", "--pedantic", "--fail-on", "error,warning", result.deb],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout == "" and p.returncode == 0, p.stdout + p.stderr
    if os.geteuid() == 0 and shutil.which("unshare"):
        r = retrofi_leftovers.check(result.deb)
        assert f"Loading new retrofi-{x}.{y}.0-test DKMS files" in r.log, r.log
        assert r.leftovers == [], retrofi_leftovers.describe(r)
