"""The release tarball: byte-identical from the same inputs."""

import hashlib
import lzma
import os
import pwd
import socket
import tarfile

import pytest

import retrofi_generate as gen
import retrofi_release as rel
from retrofi_errors import RetrofiError
from test_generate import MTIME, snapshot, world, write  # noqa: F401


def test_release_twice_gives_same_sha256(world, tmp_path):
    """Two independent generations (cold cache, then warm) and two
    releases of the same inputs give the same bytes."""
    a = world.run(out=str(tmp_path / "out-a"))
    ra = rel.release(a.out_path, str(tmp_path / "rel-a"), MTIME)
    b = world.run(out=str(tmp_path / "out-b"))
    assert b.cache_misses == 0
    # different file system timestamps / inode order must not matter
    os.utime(os.path.join(b.out_path, "Makefile"), (1, 1))
    rb = rel.release(b.out_path, str(tmp_path / "rel-b"), MTIME)
    assert ra.sha256 == rb.sha256
    with open(ra.tarball, "rb") as f1, open(rb.tarball, "rb") as f2:
        assert f1.read() == f2.read()


def test_sha256_file_matches(world, tmp_path):
    r = rel.release(world.run().out_path, str(tmp_path / "rel"), MTIME)
    with open(r.tarball, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    assert digest == r.sha256
    with open(r.sha256_file) as f:
        assert f.read() == f"{digest}  retrofi-9.9.1-1.tar.xz\n"
    assert os.path.basename(r.tarball) == "retrofi-9.9.1-1.tar.xz"


def test_tarball_contents_are_normalised(world, tmp_path):
    res = world.run()
    os.chmod(os.path.join(res.out_path, "Makefile"), 0o700)
    r = rel.release(res.out_path, str(tmp_path / "rel"), MTIME)
    with open(r.tarball, "rb") as f:
        raw = lzma.decompress(f.read())
    with tarfile.open(r.tarball) as tf:
        members = tf.getmembers()
    names = [m.name for m in members]
    assert names[0] == "retrofi-9.9.1-1"
    assert names == sorted(names, key=lambda n: n.encode())
    assert all(n == "retrofi-9.9.1-1" or n.startswith("retrofi-9.9.1-1/")
               for n in names)
    for m in members:
        assert (m.uid, m.gid, m.uname, m.gname) == (0, 0, "", "")
        assert m.mtime == MTIME
        assert m.mode in (0o644, 0o755)
    mk = [m for m in members if m.name.endswith("/Makefile")][0]
    assert mk.mode == 0o755  # executable bit kept, other bits normalised
    assert {"retrofi-9.9.1-1/net/foo/a.c", "retrofi-9.9.1-1/versions"} \
        <= set(names)
    user = pwd.getpwuid(os.getuid()).pw_name.encode()
    assert b"\0" + user + b"\0" not in raw
    assert socket.gethostname().encode() not in raw
    assert str(tmp_path).encode() not in raw


def test_different_mtime_gives_different_tarball(world, tmp_path):
    """The determinism test above could pass by accident if the archive
    ignored its inputs; a changed input must change the bytes."""
    out = world.run().out_path
    a = rel.release(out, str(tmp_path / "a"), MTIME)
    b = rel.release(out, str(tmp_path / "b"), MTIME + 1)
    assert a.sha256 != b.sha256


def test_release_of_a_non_output_tree_fails(tmp_path):
    with pytest.raises(RetrofiError) as e:
        rel.release(str(tmp_path), str(tmp_path / "rel"), MTIME)
    assert "versions" in str(e.value) and "make generate" in str(e.value)


def test_release_into_unwritable_place_fails_cleanly(world, tmp_path):
    out = world.run().out_path
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(RetrofiError) as e:
        rel.release(out, str(blocker / "rel"), MTIME)
    assert "cannot write the release" in str(e.value)


def test_real_tree_release_is_deterministic(tmp_path):
    src = os.environ.get("RETROFI_TEST_SOURCE")
    if not src:
        pytest.skip("RETROFI_TEST_SOURCE not set (path of an extracted "
                    "linux-source tree)")
    source = gen.SourceTree("linux-source", "test", src, MTIME)
    shas = []
    for n in ("a", "b"):
        res = gen.generate(source, str(tmp_path / f"out-{n}"),
                           cache_dir=gen.default_cache_dir())
        shas.append(rel.release(res.out_path, str(tmp_path / f"rel-{n}"),
                                MTIME).sha256)
    assert shas[0] == shas[1]
