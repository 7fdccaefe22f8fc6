"""The initramfs stage's input key: unchanged inputs reuse the archive they
made without staging again; any input the guest sees makes a new one.

The staging (make install, the selftest build, depmod) and the userland are
stand-ins here, so that only the key and its bookkeeping are under test;
the real stage runs in test_matrix_run and test_boot."""

import os

import pytest

import retrofi_initramfs
import retrofi_kernels
import retrofi_userland


@pytest.fixture
def stage(tmp_path, monkeypatch):
    """A fake target and built tree; returns build(**overrides) and the
    list of stagings done."""
    modules = tmp_path / "target" / "lib" / "modules" / "6.12.0-test"
    (modules / "kernel").mkdir(parents=True)
    (modules / "kernel" / "rfkill.ko").write_bytes(b"rfkill")
    target = retrofi_kernels.KernelTree(
        name="t", abi="6.12.0-test", version="6.12.0-1", root=str(tmp_path / "target"),
        headers=str(tmp_path / "target" / "headers"), kernelrelease="6.12.0-test",
        image=str(tmp_path / "target" / "vmlinuz"), modules=str(modules), cc="")
    tree = tmp_path / "tree"
    (tree / "net" / "mac80211").mkdir(parents=True)
    (tree / "include" / "linux").mkdir(parents=True)
    (tree / "Makefile").write_text("install:\n")
    (tree / "net" / "mac80211" / "mac80211.ko").write_bytes(b"mac80211 v1")
    (tree / "net" / "mac80211" / "main.o").write_bytes(b"object v1")
    (tree / "include" / "linux" / "list.h").write_text("/* v1 */\n")
    init = tmp_path / "init"
    init.write_text("#!/bin/sh\necho v1\n")
    cache = tmp_path / "cache"
    ul = retrofi_userland.Userland(root=str(tmp_path / "ul"), packages=(), digest="userland-1")
    monkeypatch.setattr(retrofi_userland, "unpacked", lambda cache=None: ul)
    monkeypatch.setattr(retrofi_initramfs, "_add_userland", lambda cpio, ul: {})
    stagings = []

    def fake_stage(target, tree, stage, workdir, selftest=True, api_level=""):
        stagings.append(tree)
        dest = os.path.join(stage, "lib", "modules", target.kernelrelease, "updates")
        os.makedirs(dest)
        for dirpath, _, files in os.walk(tree):
            for f in files:
                if f.endswith(".ko"):
                    with open(os.path.join(dirpath, f), "rb") as src, \
                            open(os.path.join(dest, f), "wb") as dst:
                        dst.write(src.read())
        return retrofi_initramfs.GuestModules(target.kernelrelease, ("mac80211",), ("rfkill",),
                                              (), (), selftest)

    monkeypatch.setattr(retrofi_initramfs, "stage_modules", fake_stage)

    def build(**kw):
        args = dict(tree=str(tree), cache=str(cache), init=str(init),
                    config={"etc/retrofi-mode": "tests\n"})
        args.update(kw)
        return retrofi_initramfs.build(target, **args)

    return build, stagings, tree, init


def test_unchanged_inputs_reuse_the_archive_without_staging(stage):
    build, stagings, _, _ = stage
    first = build()
    again = build()
    assert len(stagings) == 1
    assert not first.reused and again.reused
    assert (again.path, again.digest, again.modules) == (first.path, first.digest, first.modules)


@pytest.mark.parametrize("change", ["module", "header", "init", "status", "config", "api_level"])
def test_a_changed_input_stages_a_new_archive(stage, change, tmp_path, monkeypatch):
    build, stagings, tree, init = stage
    status = tmp_path / "retrofi-status"
    status.write_text("#!/bin/sh\necho v1\n")
    monkeypatch.setattr(retrofi_initramfs, "STATUS_SCRIPT", str(status))
    first = build()
    kw = {}
    if change == "module":
        (tree / "net" / "mac80211" / "mac80211.ko").write_bytes(b"mac80211 v2")
    elif change == "header":
        (tree / "include" / "linux" / "list.h").write_text("/* v2 */\n")
    elif change == "init":
        init.write_text("#!/bin/sh\necho v2\n")
    elif change == "status":
        status.write_text("#!/bin/sh\necho v2\n")
    elif change == "config":
        kw["config"] = {"etc/retrofi-mode": "stress\n"}
    else:
        kw["api_level"] = "2.6.21"
    again = build(**kw)
    assert len(stagings) == 2
    # The stand-in staging ignores headers and the API level: the same
    # content, so the same archive (reused by content, not by key).
    if change in ("module", "init", "status", "config"):
        assert again.path != first.path and not again.reused


def test_an_object_file_alone_does_not_restage(stage):
    build, stagings, tree, _ = stage
    build()
    (tree / "net" / "mac80211" / "main.o").write_bytes(b"object v2")
    assert build().reused and len(stagings) == 1


def test_a_key_whose_archive_is_gone_is_rebuilt(stage):
    build, stagings, _, _ = stage
    first = build()
    os.unlink(first.path)
    again = build()
    assert len(stagings) == 2 and not again.reused and os.path.isfile(again.path)
    assert again.path == first.path


def test_a_tree_reached_through_a_symlink_reuses_the_archive(stage, tmp_path):
    """A test's private cache links the shared one's builds: the same tree
    there keys the same archive."""
    build, stagings, tree, _ = stage
    first = build()
    link = tmp_path / "private-build"
    os.symlink(tree, link)
    again = build(tree=str(link))
    assert again.reused and again.path == first.path and len(stagings) == 1


def test_an_install_that_rebuilds_is_refused_and_the_build_no_longer_taken_as_complete(tmp_path):
    """make install with other settings than the build's rebuilds objects
    in the cached build: the stage refuses to use what it installed, and
    the build loses its stamp, so the next run remakes it instead of
    reusing a build that is no longer the one its key names."""
    import retrofi_build
    from retrofi_errors import RetrofiError
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "Makefile").write_text("install:\n\t@echo '  CC [M]  compat/main.o'\n")
    (tree / retrofi_build.STAMP).write_text("{}")
    target = retrofi_kernels.KernelTree(
        name="t", abi="6.12.0-test", version="6.12.0-1", root=str(tmp_path),
        headers=str(tmp_path / "headers"), kernelrelease="6.12.0-test",
        image="", modules="", cc="")
    with pytest.raises(RetrofiError) as e:
        retrofi_initramfs.install_backport(str(tree), target, str(tmp_path / "dest"))
    assert "make install rebuilt the stack instead of installing the build (CC [M]  " \
        "compat/main.o, ... 1 steps); the build is no longer taken as complete" in str(e.value)
    assert "retrofi_build.settings()" in e.value.fix
    assert not (tree / retrofi_build.STAMP).exists()
