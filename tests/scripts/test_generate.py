"""The generate stage on small synthetic trees (fast), and once on the real
source tree when RETROFI_TEST_SOURCE names one."""

import os
import textwrap
import time

import pytest

import retrofi_generate as gen
from retrofi_errors import RetrofiError

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MTIME = 1700000000

RULE_FOO = """\
// test rule: foo_new() appeared in 9.9 ("foo: add foo_new()", v9.9)
// must-match: yes
// upstream: "foo: add foo_new()" (v9.9, synthetic)
// targets: < 9.9
// why: a test rule
@@
expression E;
@@
-foo_new(E);
+foo_old(E);
"""

RULE_BAR = """\
// must-match: no
// upstream: "bar: add bar_new()" (v9.9, synthetic)
// targets: < 9.9
// why: a test rule
@@
expression E;
@@
-bar_new(E)
+bar_old(E)
"""


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode:
        os.chmod(path, mode)


@pytest.fixture
def world(tmp_path):
    """A synthetic project checkout + source tree + cache + out dir."""
    repo = tmp_path / "repo"
    write(str(repo / "drivers" / "copy-list"), textwrap.dedent("""\
        # test copy list
        dir  net/foo  *.c *.h  !skip*
        file include/net/foo.h
        """))
    write(str(repo / "drivers" / "out-tree" / "Makefile"), "all:\n")
    write(str(repo / "drivers" / "out-tree" / "Kbuild"),
          "obj-m += net/foo/\n")
    write(str(repo / "include" / "linux" / "compat-x.h"), "/* compat */\n")
    write(str(repo / "compat" / "main.c"), "/* compat.ko */\n")
    write(str(repo / "semantic-patches" / "0001-foo.cocci"), RULE_FOO)
    write(str(repo / "semantic-patches" / "0002-bar.cocci"), RULE_BAR)

    src = tmp_path / "linux-source-9.9"
    write(str(src / "Makefile"), "# kernel\n")
    write(str(src / "net" / "foo" / "a.c"),
          "void a(void)\n{\n\tfoo_new(1);\n\tx = bar_new(2);\n}\n")
    write(str(src / "net" / "foo" / "b.c"),
          "void b(void)\n{\n\tfoo_new(3);\n}\n")
    write(str(src / "net" / "foo" / "c.h"), "int c(void);\n")
    write(str(src / "net" / "foo" / "skip.c"), "void s(void) {}\n")
    write(str(src / "net" / "foo" / "README"), "not copied\n")
    write(str(src / "include" / "net" / "foo.h"), "void foo_new(int);\n")

    class W:
        pass
    w = W()
    w.repo, w.src, w.root = str(repo), str(src), tmp_path
    w.cache = str(tmp_path / "cache")
    w.out = str(tmp_path / "out")
    w.source = gen.SourceTree("linux-source-9.9", "9.9.1-1", str(src), MTIME)
    w.final = os.path.join(w.out, "retrofi-9.9.1-1")

    def run(**kw):
        kw.setdefault("repo", w.repo)
        kw.setdefault("cache_dir", w.cache)
        kw.setdefault("jobs", 2)
        return gen.generate(kw.pop("source", w.source), kw.pop("out", w.out),
                            **kw)
    w.run = run
    return w


def snapshot(tree):
    out = {}
    for d, _, files in os.walk(tree):
        for n in files:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, tree)] = f.read()
    return out


def no_temp_dirs(out):
    return [n for n in os.listdir(out) if n.startswith(".tmp-")]


# ----------------------------------------------------------------- basics


def test_generate_writes_rewritten_tree(world):
    res = world.run()
    assert res.out_path == world.final
    tree = snapshot(world.final)
    assert tree["net/foo/a.c"] == \
        b"void a(void)\n{\n\tfoo_old(1);\n\tx = bar_old(2);\n}\n"
    assert b"foo_old(3)" in tree["net/foo/b.c"]
    assert "net/foo/skip.c" not in tree and "net/foo/README" not in tree
    assert tree["include/net/foo.h"] == b"void foo_new(int);\n"
    assert tree["include/linux/compat-x.h"] == b"/* compat */\n"
    assert tree["compat/main.c"] == b"/* compat.ko */\n"
    assert tree["Makefile"] == b"all:\n" and "Kbuild" in tree
    rep = {r.name: r for r in res.rules}
    assert (rep["0001-foo"].files_changed, rep["0001-foo"].sites_changed) \
        == (2, 2)
    assert (rep["0002-bar"].files_changed, rep["0002-bar"].sites_changed) \
        == (1, 1)
    assert b'RETROFI_SOURCE_KERNEL "linux-source-9.9 9.9.1-1"' in \
        tree["compat/retrofi-version.h"]
    assert b'PACKAGE_VERSION="9.9.1-1"' in tree["dkms.conf"]
    assert res.file_count == len(tree) == 11
    assert "11 files" in res.summary() and "2/2 rules applied" in \
        res.summary()
    # fixed mtimes from the source package
    assert os.stat(os.path.join(world.final, "net/foo/a.c")).st_mtime \
        == MTIME


def test_versions_file(world):
    world.run()
    with open(os.path.join(world.final, "versions")) as f:
        v = f.read()
    assert "source-package: linux-source-9.9\n" in v
    assert "source-version: 9.9.1-1\n" in v
    assert f"spatch-version: {gen.spatch_version()}\n" in v
    assert "project-version: " in v
    import hashlib
    h = hashlib.sha256(RULE_FOO.encode()).hexdigest()
    assert f"rule: 0001-foo.cocci sha256={h} must-match=yes files=2 " \
        "sites=2\n" in v
    assert "rule: 0002-bar.cocci" in v


def _git(repo, *argv):
    import subprocess
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                    *argv], check=True, capture_output=True)


def test_project_version_moves_only_with_what_the_tree_is_made_of(world):
    """A commit to tests or docs keeps the output bytes (so every build key);
    one to compat/, the rules or the generator moves the version."""
    repo = world.root / "repo"
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first")
    first = gen.project_version(str(repo))
    assert first != "unknown" and not first.endswith("-dirty")
    world.run()
    with open(os.path.join(world.final, "compat/retrofi-version.h"), "rb") as f:
        header = f.read()
    write(str(repo / "README.md"), "docs\n")
    write(str(repo / "tests" / "t.py"), "# a test\n")
    assert gen.project_version(str(repo)) == first     # untracked, outside
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "docs and tests")
    assert gen.project_version(str(repo)) == first
    world.run()
    with open(os.path.join(world.final, "compat/retrofi-version.h"), "rb") as f:
        assert f.read() == header
    write(str(repo / "compat" / "new.c"), "int x;\n")
    assert gen.project_version(str(repo)) == first + "-dirty"
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "compat")
    second = gen.project_version(str(repo))
    assert second not in (first, first + "-dirty") and not second.endswith("-dirty")
    write(str(repo / "scripts" / "retrofi_generate.py"), "# the generator\n")
    assert gen.project_version(str(repo)) == second + "-dirty"


def test_project_version_outside_git_is_unknown(tmp_path):
    assert gen.project_version(str(tmp_path)) == "unknown"


def test_output_refers_to_nothing_outside(world):
    world.run()
    for d, dirs, files in os.walk(world.final):
        for n in dirs + files:
            p = os.path.join(d, n)
            assert not os.path.islink(p), p
            if os.path.isfile(p):
                with open(p, "rb") as f:
                    data = f.read()
                for outside in (world.repo, world.src, world.cache):
                    assert outside.encode() not in data, (p, outside)


def test_warm_run_uses_cache_and_is_identical(world):
    cold = world.run()
    before = snapshot(world.final)
    assert cold.cache_misses > 0
    warm = world.run()
    assert warm.cache_misses == 0
    assert warm.cache_hits == cold.cache_misses
    assert snapshot(world.final) == before
    assert no_temp_dirs(world.out) == []


def test_changing_one_rule_reruns_only_that_rule(world):
    world.run()
    # change rule 0002 only (a comment: new content, same effect)
    with open(os.path.join(world.repo, "semantic-patches",
                           "0002-bar.cocci"), "a") as f:
        f.write("// edited\n")
    res = world.run()
    # 4 rewritable files (a.c, b.c, c.h, include/net/foo.h): 0001 is
    # cached for all, 0002 re-runs on each.
    assert res.cache_misses == 4
    assert res.cache_hits == 4


def test_parse_errors_in_files_a_rule_reads_are_reported_from_the_run_and_the_cache(world):
    # d.c calls foo_new() (rule 0001 reads it) in a function spatch cannot
    # parse: the call is left as it is, and the summary names the line.
    write(os.path.join(world.src, "net", "foo", "d.c"),
          "void d(void)\n{\n\tfoo_new(4);\n\tint x = ;\n}\n")
    for res in (world.run(), world.run()):
        rep = {r.name: r for r in res.rules}
        assert rep["0001-foo"].unparsed == ["net/foo/d.c:4"]
        assert rep["0002-bar"].unparsed == []
        assert "1 parse error(s) in the files it read, where it matched nothing: " \
            "net/foo/d.c:4" in res.summary()
    assert res.cache_misses == 0
    assert b"foo_new(4)" in snapshot(world.final)["net/foo/d.c"]


def test_cache_key_includes_spatch_options(world, monkeypatch):
    world.run()
    monkeypatch.setattr(gen, "SPATCH_OPTIONS",
                        gen.SPATCH_OPTIONS + ("--smpl-spacing",))
    res = world.run()
    assert res.cache_hits == 0 and res.cache_misses == 8


def test_rules_apply_in_number_order(world):
    # 0003 rewrites what 0001 produced: only works if 0001 ran first.
    write(os.path.join(world.repo, "semantic-patches", "0003-chain.cocci"),
          RULE_FOO.replace("foo_new", "foo_old").replace(
              "+foo_old(E);", "+foo_older(E);"))
    res = world.run()
    tree = snapshot(world.final)
    assert b"foo_older(1)" in tree["net/foo/a.c"]
    assert [r.name for r in res.rules] == ["0001-foo", "0002-bar",
                                           "0003-chain"]


# ------------------------------------------------------------ drift / refresh


def test_must_match_rule_that_matches_nothing_fails(world):
    world.run()
    before = snapshot(world.final)
    write(os.path.join(world.src, "net/foo/a.c"), "void a(void) {}\n")
    write(os.path.join(world.src, "net/foo/b.c"), "void b(void) {}\n")
    with pytest.raises(RetrofiError) as e:
        world.run()
    assert "0001-foo" in str(e.value) and "must-match" in str(e.value)
    assert snapshot(world.final) == before
    assert no_temp_dirs(world.out) == []


def test_refresh_lists_rules_that_no_longer_apply(world):
    r = gen.refresh(world.source, repo=world.repo, cache_dir=world.cache)
    assert r.ok and r.stale == []
    write(os.path.join(world.src, "net/foo/a.c"), "void a(void) {}\n")
    write(os.path.join(world.src, "net/foo/b.c"), "void b(void) {}\n")
    r = gen.refresh(world.source, repo=world.repo, cache_dir=world.cache)
    assert not r.ok
    assert r.stale == ["0001-foo.cocci"]
    assert r.unused == ["0002-bar.cocci"]
    assert "no longer applies: 0001-foo.cocci" in r.summary()
    assert not os.path.exists(world.out)  # refresh writes no output


def test_refresh_reports_copy_list_paths_the_new_source_lacks(world):
    os.unlink(os.path.join(world.src, "include/net/foo.h"))
    with pytest.raises(RetrofiError):
        world.run()                      # generate stops at the copy list
    r = gen.refresh(world.source, repo=world.repo, cache_dir=world.cache)
    assert not r.ok                      # refresh reports it and goes on
    assert any(s.startswith("copy list: ") and "include/net/foo.h" in s
               for s in r.stale), r.stale
    assert "no longer applies: copy list:" in r.summary()
    assert not os.path.exists(world.final)


def test_rule_without_must_match_header_is_rejected(world):
    write(os.path.join(world.repo, "semantic-patches", "0003-x.cocci"),
          "// upstream: x\n// targets: y\n@@\n@@\n-a();\n")
    with pytest.raises(RetrofiError) as e:
        world.run()
    assert "must-match" in str(e.value) and "0003-x.cocci" in str(e.value)


# ------------------------------------------------------------ plain patches

PATCH = """\
# upstream: "foo: header change" (v9.9, synthetic)
# targets: < 9.9
# must-match: yes
# smpl-cannot: a test of the plain-patch path
--- a/net/foo/c.h
+++ b/net/foo/c.h
@@ -1 +1,2 @@
 int c(void);
+int d(void);
"""


def test_plain_patch_applies(world):
    write(os.path.join(world.repo, "semantic-patches", "0003-c.patch"),
          PATCH)
    res = world.run()
    assert snapshot(world.final)["net/foo/c.h"] == \
        b"int c(void);\nint d(void);\n"
    rep = {r.name: r for r in res.rules}["0003-c"]
    assert (rep.files_changed, rep.sites_changed) == (1, 1)


def test_plain_patch_that_does_not_apply(world):
    world.run()
    before = snapshot(world.final)
    write(os.path.join(world.repo, "semantic-patches", "0003-c.patch"),
          PATCH.replace(" int c(void);", " int zzz(void);"))
    with pytest.raises(RetrofiError) as e:
        world.run()
    assert "0003-c" in str(e.value) and "does not apply" in str(e.value)
    assert snapshot(world.final) == before
    r = gen.refresh(world.source, repo=world.repo, cache_dir=world.cache)
    assert [s.split()[0] for s in r.stale] == ["0003-c.patch"]


def test_plain_patch_needed_only_from_a_newer_source_is_no_error_where_it_does_not_apply(world):
    # The source is 9.9; the patch is for 10.0 and newer, whose copy list
    # has a file 9.9 lacks.
    newer = PATCH.replace("# must-match: yes\n", "# must-match: yes\n# needed-from: 10.0\n")
    write(os.path.join(world.repo, "semantic-patches", "0003-c.patch"),
          newer.replace("net/foo/c.h", "net/foo/new.h"))
    res = world.run()
    rep = {r.name: r for r in res.rules}["0003-c"]
    assert rep.applied and rep.sites_changed == 0 and rep.needed_from == "10.0"
    r = gen.refresh(world.source, repo=world.repo, cache_dir=world.cache)
    assert r.stale == [] and r.not_yet_needed == ["0003-c.patch"]
    # One that does apply to the older source is reported, as a rule is.
    write(os.path.join(world.repo, "semantic-patches", "0003-c.patch"), newer)
    r = gen.refresh(world.source, repo=world.repo, cache_dir=world.cache)
    assert r.stale == ["0003-c.patch (declared needed from 10.0 only, yet it changes 1 "
                       "site(s) in 1 file(s))"]
    # Without the declaration, the same patch stops generation.
    write(os.path.join(world.repo, "semantic-patches", "0003-c.patch"),
          PATCH.replace("net/foo/c.h", "net/foo/new.h"))
    with pytest.raises(RetrofiError, match="0003-c.*does not apply"):
        world.run()


def test_plain_patch_must_say_why_smpl_cannot(world):
    write(os.path.join(world.repo, "semantic-patches", "0003-c.patch"),
          PATCH.replace("# smpl-cannot: a test of the plain-patch path\n",
                        ""))
    with pytest.raises(RetrofiError) as e:
        world.run()
    assert "smpl-cannot" in str(e.value)


# ---------------------------------------------------------------- bad input


def test_missing_copy_list_path_is_named(world):
    world.run()
    before = snapshot(world.final)
    with open(os.path.join(world.repo, "drivers", "copy-list"), "a") as f:
        f.write("file include/net/gone.h\n")
    with pytest.raises(RetrofiError) as e:
        world.run()
    msg = str(e.value)
    assert "include/net/gone.h" in msg and "copy-list:4" in msg
    assert snapshot(world.final) == before


def test_glob_matching_nothing_is_an_error(world):
    with open(os.path.join(world.repo, "drivers", "copy-list"), "a") as f:
        f.write("dir include/net *.S\n")
    with pytest.raises(RetrofiError) as e:
        world.run()
    assert "nothing matches *.S" in str(e.value)


def test_missing_source_tree(world):
    missing = gen.SourceTree("linux-source-9.9", "9.9.1-1",
                             os.path.join(str(world.root), "nope"), MTIME)
    with pytest.raises(RetrofiError) as e:
        world.run(source=missing)
    assert "linux-source-9.9" in str(e.value) and "nope" in str(e.value)
    assert "fix:" in str(e.value)


def test_rule_syntax_error_names_rule_and_shows_spatch_message(world):
    world.run()
    before = snapshot(world.final)
    write(os.path.join(world.repo, "semantic-patches", "0003-bad.cocci"),
          "// must-match: no\n// upstream: x\n// targets: y\n"
          "@@\n@@\n- foo(\n")
    with pytest.raises(RetrofiError) as e:
        world.run()
    msg = str(e.value)
    assert "0003-bad.cocci" in msg
    assert "parse error" in msg       # spatch's own words
    assert "Warning: PARSING" not in msg
    assert snapshot(world.final) == before


@pytest.fixture
def fake_spatch(world):
    """A spatch wrapper that hangs on slow.c and crashes on crash.c."""
    path = os.path.join(str(world.root), "fake-spatch")
    write(path, textwrap.dedent(f"""\
        #!/bin/sh
        for a in "$@"; do
          case "$a" in
            */slow.c) sleep 60 ;;
            */crash.c) echo "Fatal error: exception Stack_overflow" >&2
                       exit 2 ;;
          esac
        done
        exec {gen.SPATCH} "$@"
        """), mode=0o755)
    return path


def test_rule_crash_names_file_and_rule(world, fake_spatch):
    world.run()
    before = snapshot(world.final)
    write(os.path.join(world.src, "net/foo/crash.c"), "void x(void) {}\n")
    with pytest.raises(RetrofiError) as e:
        world.run(spatch=fake_spatch)
    msg = str(e.value)
    assert "net/foo/crash.c" in msg and "0001-foo" in msg
    assert "Stack_overflow" in msg
    assert snapshot(world.final) == before
    assert no_temp_dirs(world.out) == []


def test_per_file_timeout_names_file_and_rule(world, fake_spatch):
    world.run()
    before = snapshot(world.final)
    write(os.path.join(world.src, "net/foo/slow.c"), "void x(void) {}\n")
    t0 = time.monotonic()
    with pytest.raises(RetrofiError) as e:
        world.run(spatch=fake_spatch, timeout=1)
    assert time.monotonic() - t0 < 30
    msg = str(e.value)
    assert "timed out after 1s" in msg and "net/foo/slow.c" in msg
    assert "0001-foo" in msg
    assert snapshot(world.final) == before


def test_unwritable_output_directory(world):
    blocker = os.path.join(str(world.root), "a-file")
    write(blocker, "x")
    with pytest.raises(RetrofiError) as e:
        world.run(out=os.path.join(blocker, "out"))
    assert "a-file" in str(e.value)


def test_full_disk_simulated(world, monkeypatch):
    """ENOSPC from the file writer, without root (a real full disk, a
    read-only output directory and interruptions: test_faults.py)."""
    import errno
    world.run()
    before = snapshot(world.final)
    calls = []

    def full(path, data, mtime):
        calls.append(path)
        if len(calls) > 2:
            raise OSError(errno.ENOSPC, "No space left on device", path)
        real(path, data, mtime)
    real = gen._write_file
    monkeypatch.setattr(gen, "_write_file", full)
    with pytest.raises(RetrofiError) as e:
        world.run()
    assert "no space left" in str(e.value)
    assert snapshot(world.final) == before
    assert no_temp_dirs(world.out) == []


def test_replaces_previous_output_atomically(world):
    world.run()
    write(os.path.join(world.src, "net/foo/b.c"),
          "void b(void)\n{\n\tfoo_new(4);\n}\n")
    world.run()
    assert b"foo_old(4)" in snapshot(world.final)["net/foo/b.c"]
    assert sorted(os.listdir(world.out)) == ["retrofi-9.9.1-1"]


def test_duplicate_owner_is_an_error(world):
    write(os.path.join(world.repo, "include", "net", "foo.h"), "/* x */\n")
    with pytest.raises(RetrofiError) as e:
        world.run()
    assert "include/net/foo.h" in str(e.value) and "twice" in str(e.value)


# ------------------------------------------------------------ the real tree


def test_real_copy_list_on_real_source(tmp_path):
    src = os.environ.get("RETROFI_TEST_SOURCE")
    if not src:
        pytest.skip("RETROFI_TEST_SOURCE not set (path of an extracted "
                    "linux-source tree, e.g. linux-source-6.12)")
    entries = gen.parse_copy_list(os.path.join(REPO, "drivers", "copy-list"),
                                  gen.tree_series(src))
    files = gen.resolve_copy_list(entries, src)
    for must in ("net/wireless/nl80211.c", "net/mac80211/rx.c",
                 "drivers/net/wireless/virtual/mac80211_hwsim.h",
                 "drivers/net/wireless/ath/main.c",
                 "drivers/net/wireless/ath/ath9k/pci.c",
                 "drivers/net/wireless/ath/ath5k/base.c",
                 "include/net/cfg80211.h", "include/net/mac80211.h",
                 "include/linux/ieee80211.h",
                 "include/uapi/linux/nl80211.h"):
        assert must in files
    # ath9k's directory line leaves the USB ath9k_htc out; from the 7.x
    # source the vendor drivers' section copies it, with mt76 and rtw88/89
    vendor = ("drivers/net/wireless/ath/ath9k/htc_drv_init.c",
              "drivers/net/wireless/ath/ath9k/hif_usb.c",
              "drivers/net/wireless/ath/carl9170/usb.c",
              "drivers/net/wireless/mediatek/mt76/mt7921/pci.c",
              "drivers/net/wireless/mediatek/mt76/mt7925/usb.c",
              "drivers/net/wireless/realtek/rtw88/rtw8822ce.c",
              "drivers/net/wireless/realtek/rtw89/rtw8852ae.c")
    if gen.tree_series(src) >= (7, 2):
        assert all(f in files for f in vendor)
    else:
        assert not any("htc_" in f or "/mediatek/" in f or "/realtek/" in f or
                       "/carl9170/" in f for f in files)
        assert "drivers/net/wireless/ath/ath9k/pci.c" in files
    source = gen.SourceTree("linux-source", "test", src, MTIME)
    res = gen.generate(source, str(tmp_path / "out"),
                       cache_dir=gen.default_cache_dir())
    print(res.summary())
    rep = {r.name: r for r in res.rules}
    for r in gen.load_rules(os.path.join(REPO, "semantic-patches")):
        # a rule declared not needed in this source, or needed only from a
        # newer one, may match nothing here
        if r.must_match and not rep[r.name].not_needed and not rep[r.name].needed_from:
            assert rep[r.name].sites_changed > 0, r.name
    # the project's own files: drivers/out-tree and, for this source's
    # series, the overlays' files (replacing or adding)
    own = set(gen._tree_files(os.path.join(REPO, "drivers", "out-tree")))
    for v in gen.out_tree_overlays(REPO):
        if v <= gen.tree_series(src):
            own |= set(gen._tree_files(os.path.join(REPO, "drivers",
                                                    gen.OVERLAY_PREFIX + gen.series_text(v))))
    assert res.file_count == len(files) + len(own) + \
        len([f for f in gen._tree_files(os.path.join(REPO, "compat"))
             if "compat/" + f not in gen.REPOSITORY_ONLY]) + \
        len(gen._tree_files(os.path.join(REPO, "include"))) + \
        3  # versions, compat/retrofi-version.h, dkms.conf
    assert not any(os.path.exists(os.path.join(res.out_path, f)) for f in gen.REPOSITORY_ONLY)


@pytest.mark.network
def test_every_target_header_of_the_copy_list_is_each_real_targets_or_a_compat_header(fetched):
    """A header the copied files include that the copy list leaves to the
    target (`target PATH`) is in the headers of every real default target,
    or the compat layer has it (include/PATH): otherwise the stack does not
    build there, whatever its options."""
    import glob
    entries = gen.parse_copy_list(os.path.join(REPO, "drivers", "copy-list"),
                                  gen.tree_series(fetched.source.path))
    headers = [e.path for e in entries if e.kind == "target"]
    assert "include/linux/hex.h" in headers
    lacking = []
    for name, kt in fetched.targets.items():
        roots = [kt.headers] + glob.glob(os.path.join(kt.root, "usr", "src",
                                                      "linux-headers-*-common"))
        lacking += [f"{h} (target {name})" for h in headers
                    if not os.path.isfile(os.path.join(REPO, h))
                    and not any(os.path.isfile(os.path.join(r, h)) for r in roots)]
    assert lacking == [], "no compat header in include/ for these"
