"""Sources are data: the matrix's sources, the per-source copy list, build
glue and rules, and what `make refresh` reports about a new source (headers
the copied files newly include, Kbuild object lists against the source's
Makefiles), on small synthetic trees; the repository's own lists against
the real source when RETROFI_TEST_SOURCE names one."""

import os
import textwrap

import pytest

import retrofi
import retrofi_apt
import retrofi_build
import retrofi_debs
import retrofi_drift
import retrofi_generate as gen
import retrofi_kernels
import retrofi_matrix
import retrofi_pins
from conftest import REPO
from retrofi_errors import RetrofiError

MTIME = 1700000000

RULE_OLD_API = """\
// must-match: yes
// not-needed-from: 9.9
// upstream: "foo: rename foo_new() to foo()" (v9.9, synthetic)
// targets: < 9.9
// why: a test rule
@@
expression E;
@@
-foo_new(E);
+foo_old(E);
"""

COPY_LIST = """\
dir  net/foo  *.c *.h
file include/linux/foo80211.h
[before 9.9]
file net/foo/old/gone.c
[since 9.9]
file include/linux/foo80211-ht.h
[all]
file include/net/foo.h
"""

KBUILD = """\
obj-m += foo.o
foo-y := a.o b.o
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_source(root, series, files):
    write(os.path.join(root, "Makefile"), "# kernel\n")
    for rel, text in files.items():
        write(os.path.join(root, rel), text)
    return gen.SourceTree(f"linux-source-{series}", f"{series}.1-1", root, MTIME)


@pytest.fixture
def two(tmp_path):
    """A project checkout and two sources: 9.8 (the baseline) and 9.9,
    where upstream split include/linux/foo80211.h, renamed foo_new() (the
    rule's pattern is gone) and added net/foo/c.c to the module."""
    repo = str(tmp_path / "repo")
    write(os.path.join(repo, "drivers", "copy-list"), COPY_LIST)
    write(os.path.join(repo, "drivers", "out-tree", "Makefile"), "all:\n")
    write(os.path.join(repo, "drivers", "out-tree", "net", "foo", "Kbuild"), KBUILD)
    write(os.path.join(repo, "include", "linux", "compat-x.h"), "/* compat */\n")
    write(os.path.join(repo, "semantic-patches", "0001-old-api.cocci"), RULE_OLD_API)
    common = {"net/foo/a.c": "#include <linux/foo80211.h>\nvoid a(void)\n{\n\tfoo_new(1);\n}\n",
              "net/foo/b.c": "#include \"b.h\"\nvoid b(void) {}\n",
              "net/foo/b.h": "int b(void);\n",
              "include/net/foo.h": "void foo(int);\n",
              "include/linux/other.h": "/* the target's */\n"}
    old = make_source(str(tmp_path / "linux-source-9.8"), "9.8", dict(common, **{
        "include/linux/foo80211.h": "struct foo_ht { int x; };\n",
        "net/foo/old/gone.c": "/* dropped in 9.9 */\n",
        "net/foo/Makefile": "obj-$(CONFIG_FOO) += foo.o\nfoo-y := a.o \\\n\tb.o\n"}))
    new = make_source(str(tmp_path / "linux-source-9.9"), "9.9", dict(common, **{
        "net/foo/a.c": "#include <linux/foo80211.h>\n#include <linux/other.h>\n"
                       "void a(void)\n{\n\tfoo(1);\n}\n",
        "include/linux/foo80211.h": "#include <linux/foo80211-ht.h>\n#include <linux/foo80211-he.h>\n",
        "include/linux/foo80211-ht.h": "struct foo_ht { int x; };\n",
        "include/linux/foo80211-he.h": "#include <linux/foo80211-ht.h>\nstruct foo_he;\n",
        "net/foo/c.c": "void c(void) {}\n",
        "net/foo/Makefile": "obj-$(CONFIG_FOO) += foo.o\nfoo-y := a.o b.o c.o\n"
                            "foo-$(CONFIG_FOO_DEBUG) += debug.o\n"}))

    class W:
        pass
    w = W()
    w.repo, w.old, w.new, w.cache = repo, old, new, str(tmp_path / "cache")

    def refresh(source, baseline=None):
        return gen.refresh(source, repo=repo, cache_dir=w.cache, baseline=baseline)
    w.refresh = refresh
    w.generate = lambda source: gen.generate(source, str(tmp_path / "out"), repo=repo,
                                             cache_dir=w.cache)
    return w


# ------------------------------------------------------------ the copy list


def test_copy_list_sections_select_the_entries_of_a_source_series(two):
    path = os.path.join(two.repo, "drivers", "copy-list")
    paths = lambda series: [e.path for e in gen.parse_copy_list(path, series)]  # noqa: E731
    assert paths((9, 8)) == ["net/foo", "include/linux/foo80211.h", "net/foo/old/gone.c",
                             "include/net/foo.h"]
    assert paths((9, 9)) == ["net/foo", "include/linux/foo80211.h",
                             "include/linux/foo80211-ht.h", "include/net/foo.h"]
    assert paths((10, 0)) == paths((9, 9))
    write(path, "[since nine]\nfile a\n")
    with pytest.raises(RetrofiError) as e:
        gen.parse_copy_list(path, (9, 9))
    assert "copy-list:1" in str(e.value) and "kernel series" in str(e.value)


def test_generate_takes_each_source_its_own_files_and_kbuild_overlay(two):
    write(os.path.join(two.repo, "drivers", "out-tree-since-9.9", "net", "foo", "Kbuild"),
          KBUILD.replace("b.o", "b.o c.o"))
    old = two.generate(two.old).out_path
    new = two.generate(two.new).out_path
    assert os.path.exists(os.path.join(old, "net/foo/old/gone.c"))
    assert not os.path.exists(os.path.join(new, "net/foo/old/gone.c"))
    assert os.path.exists(os.path.join(new, "include/linux/foo80211-ht.h"))
    assert open(os.path.join(old, "net/foo/Kbuild")).read() == KBUILD
    assert "c.o" in open(os.path.join(new, "net/foo/Kbuild")).read()


# ------------------------------------------------------------ rules per source


def test_rule_not_needed_from_a_source_is_no_error_there_but_is_before_it(two):
    # 9.8 still has foo_new(): the rule applies.
    res = two.generate(two.old)
    assert res.rules[0].sites_changed == 1 and res.rules[0].not_needed == ""
    # 9.9 renamed it: the must-match rule matches nothing, which is no error.
    res = two.generate(two.new)
    assert res.rules[0].sites_changed == 0 and res.rules[0].not_needed == "9.9"
    assert "not needed from 9.9" in res.summary()
    r = two.refresh(two.new, two.old)
    assert r.stale == [] and r.not_needed == ["0001-old-api.cocci"]
    # Without the declaration, the same source is an error.
    rule = os.path.join(two.repo, "semantic-patches", "0001-old-api.cocci")
    write(rule, RULE_OLD_API.replace("// not-needed-from: 9.9\n", ""))
    with pytest.raises(RetrofiError) as e:
        two.generate(two.new)
    assert "must-match" in str(e.value) and "0001-old-api" in str(e.value)
    assert two.refresh(two.new, two.old).stale == ["0001-old-api.cocci"]


def test_rule_declared_not_needed_that_still_changes_code_is_reported(two):
    write(os.path.join(two.new.path, "net/foo/b.c"),
          "#include \"b.h\"\nvoid b(void)\n{\n\tfoo_new(2);\n}\n")
    r = two.refresh(two.new, two.old)
    assert not r.ok
    assert r.stale == ["0001-old-api.cocci (declared not needed from 9.9, yet it changes "
                       "1 site(s) in 1 file(s))"]


def test_not_needed_from_must_be_a_kernel_series(two):
    write(os.path.join(two.repo, "semantic-patches", "0001-old-api.cocci"),
          RULE_OLD_API.replace("not-needed-from: 9.9", "not-needed-from: soon"))
    with pytest.raises(RetrofiError) as e:
        two.generate(two.new)
    assert "not-needed-from" in str(e.value) and "0001-old-api.cocci" in str(e.value)


RULE_NEW_API = """\
// must-match: yes
// needed-from: 9.9
// upstream: "foo: rename foo_new() to foo()" (v9.9, synthetic)
// targets: < 9.9
// why: a test rule for the new source's form
@@
expression E;
@@
-foo(E);
+foo_new(E);
"""


def test_rule_needed_from_a_source_is_no_error_before_it_but_is_there(two):
    write(os.path.join(two.repo, "semantic-patches", "0002-new-api.cocci"), RULE_NEW_API)
    # 9.9 has foo(): the rule turns it back.
    res = two.generate(two.new)
    assert res.rules[1].sites_changed == 1 and res.rules[1].needed_from == ""
    # 9.8 still calls foo_new(): matching nothing there is no error.
    res = two.generate(two.old)
    assert res.rules[1].sites_changed == 0 and res.rules[1].needed_from == "9.9"
    assert "0002-new-api: 0 files, 0 sites (needed from 9.9 only)" in res.summary()
    versions = open(os.path.join(res.out_path, "versions")).read()
    assert "0002-new-api.cocci" in versions and "needed-from=9.9 " in versions
    r = two.refresh(two.old)
    assert r.stale == [] and r.not_yet_needed == ["0002-new-api.cocci"]
    # Without the declaration, the older source is an error.
    write(os.path.join(two.repo, "semantic-patches", "0002-new-api.cocci"),
          RULE_NEW_API.replace("// needed-from: 9.9\n", ""))
    with pytest.raises(RetrofiError) as e:
        two.generate(two.old)
    assert "must-match" in str(e.value) and "0002-new-api" in str(e.value)


def test_rule_declared_needed_from_a_newer_source_that_changes_code_is_reported(two):
    write(os.path.join(two.repo, "semantic-patches", "0002-new-api.cocci"), RULE_NEW_API)
    write(os.path.join(two.old.path, "net/foo/b.c"),
          "#include \"b.h\"\nvoid b(void)\n{\n\tfoo(2);\n}\n")
    r = two.refresh(two.old)
    assert not r.ok
    assert r.stale == ["0002-new-api.cocci (declared needed from 9.9 only, yet it changes "
                       "1 site(s) in 1 file(s))"]


@pytest.mark.parametrize("header,says", [
    ("// needed-from: soon\n", "needed-from must be a kernel series"),
    ("// needed-from: 9.9\n// not-needed-from: 9.9\n", "is not older than not-needed-from"),
])
def test_needed_from_must_be_a_series_older_than_not_needed_from(two, header, says):
    write(os.path.join(two.repo, "semantic-patches", "0002-new-api.cocci"),
          RULE_NEW_API.replace("// needed-from: 9.9\n", header))
    with pytest.raises(RetrofiError) as e:
        two.generate(two.new)
    assert says in str(e.value) and "0002-new-api.cocci" in str(e.value)


# ------------------------------------------------------------ refresh: headers


def test_refresh_reports_headers_the_copied_files_newly_include(two):
    # The copy list before the maintainer's fix: nothing for 9.9's split.
    write(os.path.join(two.repo, "drivers", "copy-list"),
          COPY_LIST.replace("file include/linux/foo80211-ht.h\n", ""))
    r = two.refresh(two.new, two.old)
    assert not r.ok
    assert r.headers == [
        "include/linux/foo80211-he.h (included by include/linux/foo80211.h)",
        "include/linux/foo80211-ht.h (included by include/linux/foo80211-he.h, "
        "include/linux/foo80211.h)",
        "include/linux/other.h (included by net/foo/a.c)"]
    assert "header not copied: include/linux/foo80211-he.h" in r.summary()
    assert "3 included header(s) not copied" in r.summary()
    # The fix: copy the split headers, declare the kernel header the target's.
    with open(os.path.join(two.repo, "drivers", "copy-list"), "a") as f:
        f.write("[since 9.9]\nfile include/linux/foo80211-ht.h\n"
                "file include/linux/foo80211-he.h\ntarget include/linux/other.h\n")
    assert two.refresh(two.new, two.old).headers == []
    # A compat header of the project's include/ provides it just as well.
    write(os.path.join(two.repo, "drivers", "copy-list"),
          COPY_LIST.replace("[since 9.9]\n", "[since 9.9]\nfile include/linux/foo80211-he.h\n"))
    write(os.path.join(two.repo, "include", "linux", "other.h"), "/* compat */\n")
    assert two.refresh(two.new, two.old).headers == []


def test_refresh_reports_a_local_header_the_copy_list_does_not_copy(two):
    # Even with no baseline: "b_i.h" beside b.c is the driver's own.
    write(os.path.join(two.new.path, "net/foo/sub/x.c"), "#include \"../b.h\"\n")
    write(os.path.join(two.repo, "drivers", "copy-list"),
          COPY_LIST.replace("dir  net/foo  *.c *.h", "dir  net/foo  *.c"))
    r = two.refresh(two.new)
    assert r.headers == ["net/foo/b.h (included by net/foo/b.c)"]


# ------------------------------------------------------------ refresh: Kbuild


def test_refresh_reports_kbuild_object_lists_that_differ_from_the_source_makefiles(two):
    assert two.refresh(two.old, None).kbuild == []
    r = two.refresh(two.new, two.old)
    assert not r.ok
    assert r.kbuild == ["net/foo/Kbuild: foo: the source adds c.o debug.o "
                        "(see net/foo/Makefile)"]
    assert "1 Kbuild object list(s) differ from the source's Makefiles" in r.summary()
    # The fix: an overlay for 9.9 with the new object; debug.o left out on purpose.
    write(os.path.join(two.repo, "drivers", "out-tree-since-9.9", "net", "foo", "Kbuild"),
          "# not shipped: debug.o (the source's debugfs option)\n"
          + KBUILD.replace("b.o", "b.o c.o"))
    r = two.refresh(two.new, two.old)
    assert r.kbuild == [], r.summary()
    assert two.refresh(two.old, None).kbuild == []       # 9.8 keeps its own list


def test_kbuild_drift_names_dropped_objects_and_missing_modules(tmp_path):
    tree, src = str(tmp_path / "tree"), str(tmp_path / "src")
    write(os.path.join(tree, "m", "Kbuild"), "obj-m += m.o other.o\nm-y := x.o michael.o \\\n"
          "\t$(helper-y)\nhelper-y := h.o\n")
    write(os.path.join(src, "m", "Makefile"), "obj-$(CONFIG_M) += m.o\nm-y := x.o ap.o\n"
          "m-y += $(helper-y)\nhelper-y := h.o\n")
    assert retrofi_drift.kbuild_drift(tree, src) == [
        "m/Kbuild: m: the source adds ap.o; the source has no michael.o (see m/Makefile)",
        "m/Kbuild: other.o is not built by the source's m/Makefile"]
    write(os.path.join(tree, "d", "Kbuild"), "obj-m += d.o\nd-objs += x.o\nd-objs += gone.o\n")
    write(os.path.join(src, "d", "Makefile"), "obj-$(CONFIG_D) += d.o\nd-objs := x.o\n")
    assert retrofi_drift.kbuild_drift(tree, src)[0] == \
        "d/Kbuild: d: the source has no gone.o (see d/Makefile)"
    write(os.path.join(tree, "n", "Kbuild"), "obj-m += n.o\n")
    assert "n/Kbuild: the source has no n/Makefile" in retrofi_drift.kbuild_drift(tree, src)


# ------------------------------------------------------------ the matrix's sources


def test_repository_declares_newest_and_lts_sources_and_moving_the_default_is_one_line(repo):
    text = open(os.path.join(repo, "kernel-matrix.yaml")).read()
    m = retrofi_matrix.parse(text)
    newest = m.source_named("newest")
    assert m.source == newest and not newest.lts
    assert newest.floating and newest.suites == ("trixie-backports",)
    assert m.source_of(m.target("7.3")) == newest and m.target("7.3").default
    assert m.source_of(m.target("6.1")) == newest
    assert m.source_of(m.target("debug-6.12")) == newest
    assert m.kernel_source_of(m.target("debug-6.12")).name == "6.12"
    # Back to the long-term source: one line; rows naming a source keep it.
    moved = retrofi_matrix.parse(text.replace("default_source: newest", 'default_source: "6.12"'))
    assert moved.source.name == "6.12" and moved.source.lts
    assert moved.source_of(moved.target("6.1")) == moved.source
    assert moved.source_of(moved.target("7.3")) == newest
    lock = retrofi_pins.load_lock(os.path.join(repo, "kernel-matrix.lock"))
    assert lock["source:newest"]["packages"][0]["name"].startswith("linux-source-")
    assert lock["source:6.12"]["packages"][0]["name"] == "linux-source-6.12"


def test_matrix_sources_reject_an_unknown_default_or_row_source():
    base = textwrap.dedent("""\
        version: 1
        sources:
          - {name: newest, package: "linux-source-*", suites: [trixie-backports]}
          - {name: "6.12", package: linux-source-6.12, suites: [bookworm-security], lts: true}
        default_source: DEFAULT
        targets:
          - {name: "6.12", kind: real, default: true, suites: [bookworm-security],
             abi: "6.12.*+deb12", source: ROW}
        """)
    m = retrofi_matrix.parse(base.replace("DEFAULT", "newest").replace("ROW", '"6.12"'))
    assert m.source.name == "newest" and m.with_source("6.12").source.name == "6.12"
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.parse(base.replace("DEFAULT", "later").replace("ROW", "newest"), "m.yaml")
    assert "default_source 'later' names no source" in str(e.value) and "m.yaml:5" in str(e.value)
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.parse(base.replace("DEFAULT", "newest").replace("ROW", "old"), "m.yaml")
    assert "source 'old' names no source" in str(e.value)
    with pytest.raises(RetrofiError) as e:
        m.with_source("7.9")
    assert "unknown source '7.9'" in str(e.value) and "newest, 6.12" in e.value.fix


class FakeApt:
    suites = ("trixie-backports",)

    def __init__(self, versions):
        self._v = versions

    def update(self):
        pass

    def pkgnames(self, prefix):
        return sorted(n for n in self._v if n.startswith(prefix))

    def versions(self, name):
        return [retrofi_apt.Package(name, v, f"pool/{name}_{v}_all.deb", 1, "0" * 64)
                for v in self._v.get(name, ())]


def test_a_pattern_source_pins_the_newest_series_the_suites_serve():
    apt = FakeApt({"linux-source-7.2": ["7.2.12-1~bpo13+1"], "linux-source-7.10": ["7.10.1-1"],
                   "linux-source-7.3": ["7.3.4-1~bpo13+1", "7.3.2-1~bpo13+1"],
                   "linux-source": ["1"]})
    src = retrofi_matrix.Source("linux-source-*", ("trixie-backports",), "newest")
    entry = retrofi_pins.resolve_source(apt, src)
    assert [(p["name"], p["version"]) for p in entry["packages"]] == \
        [("linux-source-7.10", "7.10.1-1")]
    fixed = retrofi_matrix.Source("linux-source-7.3", ("trixie-backports",), "7.3")
    assert retrofi_pins.resolve_source(apt, fixed)["packages"][0]["version"] == "7.3.4-1~bpo13+1"


# ------------------------------------------------------------ make refresh, no SOURCE


def _apt_lists(cache, suite_dir, suite, packages, mirror="deb.debian.org_debian"):
    lists = os.path.join(cache, "apt", suite_dir, "lists")
    write(os.path.join(lists, f"{mirror}_dists_{suite}_main_binary-amd64_Packages"),
          "\n".join(f"Package: {n}\nSource: linux\nVersion: {v}\nArchitecture: all\n"
                    for n, v in packages) + "\n")


def test_refresh_without_source_takes_the_newest_source_a_suite_serves(tmp_path, monkeypatch):
    cache = str(tmp_path / "cache")
    # sid's Release expired: apt keeps no list of it.
    os.makedirs(os.path.join(cache, "apt", "sid", "lists"))
    _apt_lists(cache, "trixie-backports", "trixie-backports",
               [("linux-source-7.2", "7.2.12-1~bpo13+1"), ("linux-source-7.3", "7.3.4-1~bpo13+1"),
                ("linux-headers-7.3.4+deb13-amd64", "7.3.4-1~bpo13+1")])
    _apt_lists(cache, "bookworm-security", "bookworm-security",
               [("linux-source-6.12", "6.12.118-1~deb12u1")], "security.debian.org_debian-security")
    assert retrofi_apt.served(cache, "linux-source-*")[0] == \
        ("linux-source-7.3", "7.3.4-1~bpo13+1", "trixie-backports")
    monkeypatch.setenv("RETROFI_CACHE", cache)
    asked = []

    def fake_source(matrix, package=None, suites=None):
        # A floating source resolves to its pin, the newest served here.
        package = package or (matrix.source.package if not matrix.source.floating
                              else "linux-source-7.3")
        asked.append((package, tuple(suites or matrix.source.suites)))
        return gen.SourceTree(package, "1", str(tmp_path / package), 0)
    monkeypatch.setattr(retrofi, "_source", fake_source)
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    tree, base = retrofi._refresh_source(m, "", [])
    assert asked[0] == ("linux-source-7.3", ("trixie-backports",))
    assert tree.package == "linux-source-7.3" and base.package == "linux-source-6.12"
    # A package the matrix does not name: the suite that serves it.
    asked.clear()
    retrofi._refresh_source(m, "linux-source-7.2", [])
    assert asked[0] == ("linux-source-7.2", ("trixie-backports",))
    # One no list serves: an error naming the fix.
    with pytest.raises(RetrofiError) as e:
        retrofi._refresh_source(m, "linux-source-9.9", [])
    assert "no suite in the private apt lists serves linux-source-9.9" in str(e.value)
    assert "SOURCE_SUITES" in e.value.fix


# ------------------------------------------------------------ kernels of Debian 13


def test_headers_of_debian_13_point_their_build_output_where_they_lie(tmp_path):
    root = str(tmp_path)
    mk = os.path.join(root, "usr/src/linux-headers-7.3.4+deb13-amd64/Makefile")
    write(mk, "KBUILD_OUTPUT=/usr/src/linux-headers-7.3.4+deb13-amd64\n"
              "include /usr/src/linux-headers-7.3.4+deb13-common/Makefile\n")
    retrofi_debs.fix_headers(root)
    assert open(mk).read() == (
        "KBUILD_OUTPUT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))\n"
        "include $(dir $(lastword $(MAKEFILE_LIST)))../linux-headers-7.3.4+deb13-common/Makefile\n")


def test_a_row_whose_compiler_is_missing_refuses_before_any_work(tmp_path):
    kernel = retrofi_kernels.KernelTree("7.3", "7.3.4+deb13", "7.3.4-1", str(tmp_path),
                                        str(tmp_path / "headers"), "7.3.4+deb13-amd64", "", "",
                                        cc="gcc-retrofi-missing")
    with pytest.raises(RetrofiError) as e:
        retrofi_build.build(str(tmp_path / "tree"), kernel, str(tmp_path / "log"),
                            cache=str(tmp_path / "cache"))
    assert "needs the compiler gcc-retrofi-missing" in str(e.value)
    assert not os.path.exists(tmp_path / "cache")            # nothing done


# ------------------------------------------------------------ the real source


def test_repository_lists_match_the_real_source(tmp_path):
    src = os.environ.get("RETROFI_TEST_SOURCE")
    if not src:
        pytest.skip("RETROFI_TEST_SOURCE not set (path of an extracted linux-source tree)")
    source = gen.SourceTree(os.path.basename(src), "test", src, MTIME)
    series = gen.source_series(source)
    tree = str(tmp_path / "glue")
    import shutil
    shutil.copytree(os.path.join(REPO, "drivers", "out-tree"), tree)
    for v in gen.out_tree_overlays(REPO):
        if v <= series:
            shutil.copytree(os.path.join(REPO, "drivers", gen.OVERLAY_PREFIX + gen.series_text(v)),
                            tree, dirs_exist_ok=True)
    assert retrofi_drift.kbuild_drift(tree, src) == []
    copied = gen.copied_files(source, REPO)
    assert retrofi_drift.included_headers(src, copied, os.path.join(REPO, "include")) == []
