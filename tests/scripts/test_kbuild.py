"""Build targets: kind: build in the matrix, and the kernel build stage
(scripts/retrofi_kbuild.py) up to the point where make would start: the
fragment is read strictly, the cache key follows what shapes the kernel
and nothing else, and a fragment Kconfig does not honour is refused."""

import os
import textwrap

import pytest

import retrofi_kbuild
import retrofi_kernels
import retrofi_matrix
from retrofi_errors import RetrofiError

SOURCE = retrofi_kernels.SourceTree("linux-source-6.12", "6.12.118-1~deb12u1", "/nonexistent", 0)

MATRIX = textwrap.dedent("""\
    version: 1
    source:
      package: linux-source-6.12
      suites: [bookworm-security]
    targets:
      - name: "6.12"
        kind: real
        default: true
        suites: [bookworm-security]
        abi: "6.12.*+deb12"
      - name: debug
        kind: build
        default: false
        config: frag.config
        boot_timeout: 900
      - {name: "2.6.21", kind: shape, default: false, base: "6.12", api_level: "2.6.21"}
      - {name: debug-2.6.21, kind: shape, default: false, base: debug, api_level: "2.6.21"}
    """)


def write_matrix(tmp_path, text=MATRIX, fragment="CONFIG_KASAN=y\n"):
    (tmp_path / "frag.config").write_text(fragment)
    p = tmp_path / "kernel-matrix.yaml"
    p.write_text(text)
    return str(p)


def test_a_build_target_names_its_fragment_relative_to_the_matrix(tmp_path):
    m = retrofi_matrix.load(write_matrix(tmp_path))
    t = m.target("debug")
    assert (t.kind, t.config, t.boot_timeout) == ("build", str(tmp_path / "frag.config"), 900)
    assert m.real_target(m.target("debug-2.6.21")) is t
    # A build target is built, not fetched: the kernels stage leaves it out.
    assert [x.name for x in retrofi_kernels._items(m, ["debug", "debug-2.6.21", "6.12"])] == \
        ["6.12"]


def test_shapes_selects_the_shapes_on_real_bases_only(tmp_path):
    m = retrofi_matrix.load(write_matrix(tmp_path))
    assert [t.name for t in m.select(["shapes"])] == ["2.6.21"]
    assert [t.name for t in m.select(["debug-2.6.21"])] == ["debug-2.6.21"]


@pytest.mark.parametrize("edit,needle", [
    (("config: frag.config", "config: nosuch.config"), "no such file nosuch.config"),
    (("    config: frag.config\n", ""), "missing required key 'config'"),
    (("boot_timeout: 900", "abi: '6.12'"), "unknown key 'abi'"),
])
def test_bad_build_targets_are_refused_with_their_line(tmp_path, edit, needle):
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.load(write_matrix(tmp_path, MATRIX.replace(*edit)))
    assert needle in e.value.what and e.value.where.startswith(str(tmp_path))


def test_an_allowed_splat_needs_a_reason_and_an_upstream_link(tmp_path):
    entry = ("    allowed_splats:\n      - {match: 'x', reason: 'known'%s}\n")
    text = MATRIX.replace("    boot_timeout: 900\n", "    boot_timeout: 900\n" + entry % "")
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.load(write_matrix(tmp_path, text))
    assert "missing required key 'link'" in e.value.what
    text = MATRIX.replace("    boot_timeout: 900\n", "    boot_timeout: 900\n"
                          + entry % ", link: 'not a url'")
    with pytest.raises(RetrofiError):
        retrofi_matrix.load(write_matrix(tmp_path, text))
    text = MATRIX.replace("    boot_timeout: 900\n", "    boot_timeout: 900\n"
                          + entry % ", link: 'https://lore.kernel.org/r/x'")
    t = retrofi_matrix.load(write_matrix(tmp_path, text)).target("debug")
    assert t.allowed_splats[0].link == "https://lore.kernel.org/r/x"


TWO_SOURCES = textwrap.dedent("""\
    version: 1
    sources:
      - {name: newest, package: "linux-source-*", suites: [trixie-backports]}
      - {name: "6.12", package: linux-source-6.12, suites: [bookworm-security], lts: true}
    default_source: newest
    targets:
      - name: debug
        kind: build
        default: false
        kernel_source: "6.12"
        config: frag.config
      - {name: debug-2.6.21, kind: shape, default: false, base: debug, api_level: "2.6.21"}
    """)


def test_a_build_target_builds_its_kernel_from_its_kernel_source_and_the_default_stack(
        tmp_path, monkeypatch):
    m = retrofi_matrix.load(write_matrix(tmp_path, TWO_SOURCES))
    debug = m.target("debug")
    assert m.kernel_source_of(debug).name == "6.12"
    # The stack both rows build is the default source's.
    assert m.source_of(debug).name == m.source_of(m.target("debug-2.6.21")).name == "newest"
    # Both sources are fetched for a run of the shape alone.
    assert [s.name for s in retrofi_kernels._source_items(m, ["debug-2.6.21"])] == \
        ["newest", "6.12"]
    lts = retrofi_kernels.SourceTree("linux-source-6.12", "6.12.118-1~deb12u1", "/lts", 0)
    newest = retrofi_kernels.SourceTree("linux-source-7.3", "7.3.4-1~bpo13+1", "/newest", 0)
    built = []

    def fake_build(source, name, fragment, cache=None, jobs=2):
        built.append(source.package)
        return retrofi_kbuild._result(name, "k" * 16, str(tmp_path / name), "6.12.118-dbg",
                                      0.0, True)
    monkeypatch.setattr(retrofi_kbuild, "build", fake_build)
    kernels = retrofi_kernels.Kernels(source=newest, targets={},
                                      sources={"source:newest": newest, "source:6.12": lts})
    retrofi_kbuild.add_built(m, m.select(["debug-2.6.21"]), kernels)
    assert built == ["linux-source-6.12"]


def test_a_kernel_source_that_names_no_source_is_refused(tmp_path):
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.load(write_matrix(tmp_path, TWO_SOURCES.replace(
            'kernel_source: "6.12"', 'kernel_source: "5.4"')))
    assert "kernel_source '5.4' names no source" in e.value.what


def test_repository_debug_target_is_declared_and_not_default(repo):
    m = retrofi_matrix.load(f"{repo}/kernel-matrix.yaml")
    t = m.target("debug-6.12")
    assert t.kind == "build" and not t.default
    assert t.config == os.path.join(repo, "kernel-configs", "debug.config")
    assert t not in m.select()
    assert m.real_target(m.target("debug-2.6.21")) is t
    frag = retrofi_kbuild.parse_fragment(t.config)
    for opt in ("KASAN", "KASAN_GENERIC", "KASAN_INLINE", "PROVE_LOCKING", "DEBUG_KMEMLEAK",
                "DEBUG_LIST", "UBSAN", "UBSAN_BOUNDS", "DEBUG_OBJECTS_TIMERS", "SLUB_DEBUG",
                "NET_NS", "MODULES", "KUNIT"):
        assert frag[f"CONFIG_{opt}"] == "y", opt
    # Its kernel is the long-term source's; its stack the default source's.
    assert m.kernel_source_of(t).name == "6.12" and m.source_of(t) == m.source
    assert frag["CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN"] == "n"      # scanned on demand
    assert frag["CONFIG_MAC80211"] == "n" and frag["CONFIG_WLAN"] == "n"
    assert frag["CONFIG_CFG80211"] == "m"       # for struct net_device's ieee80211_ptr


@pytest.mark.parametrize("line,needle", [
    ("CONFIG_KASAN", "not a config line"),
    ("KASAN=y", "not a config line"),
    ("CONFIG_KASAN=y\nCONFIG_KASAN=n", "CONFIG_KASAN is set twice"),
])
def test_a_malformed_fragment_is_refused_naming_its_line(tmp_path, line, needle):
    p = tmp_path / "f.config"
    p.write_text("# comment\n" + line + "\n")
    with pytest.raises(RetrofiError) as e:
        retrofi_kbuild.parse_fragment(str(p))
    assert needle in e.value.what and e.value.where.startswith(str(p) + ":")


def test_the_key_follows_the_options_not_the_comments(tmp_path):
    p = tmp_path / "f.config"
    p.write_text("# why\nCONFIG_KASAN=y\n# CONFIG_DRM is not set\n")
    k1, _ = retrofi_kbuild.build_key(SOURCE, str(p))
    p.write_text("# another why, options reordered\n# CONFIG_DRM is not set\nCONFIG_KASAN=y\n")
    assert retrofi_kbuild.build_key(SOURCE, str(p))[0] == k1
    p.write_text("CONFIG_KASAN=y\n")
    assert retrofi_kbuild.build_key(SOURCE, str(p))[0] != k1
    p.write_text("# why\nCONFIG_KASAN=y\n# CONFIG_DRM is not set\n")
    other = retrofi_kernels.SourceTree(SOURCE.package, "6.12.119-1", SOURCE.path, 0)
    assert retrofi_kbuild.build_key(other, str(p))[0] != k1
    assert retrofi_kbuild.build_key(SOURCE, str(p), tools=[("flex", "2")])[0] != k1


def test_options_kconfig_did_not_keep_are_named():
    frag = {"CONFIG_KASAN": "y", "CONFIG_CRYPTO_LIB_ARC4": "y", "CONFIG_DRM": "n"}
    config = {"CONFIG_KASAN": "y", "CONFIG_DRM": "y"}
    assert retrofi_kbuild.config_mismatches(frag, config) == [
        ("CONFIG_CRYPTO_LIB_ARC4", "y", "n"), ("CONFIG_DRM", "n", "y")]


def test_a_finished_build_is_reused_without_running_make(tmp_path, monkeypatch):
    """The stamp, written last, is what makes a build complete: with it, no
    make runs; without it (a killed build), the build runs again."""
    frag = tmp_path / "f.config"
    frag.write_text("CONFIG_KASAN=y\n")
    monkeypatch.setattr(retrofi_kbuild, "host_tools", lambda cache: ({}, (), ()))
    key, _ = retrofi_kbuild.build_key(SOURCE, str(frag))
    d = tmp_path / "kbuild" / f"debug-{key}"
    d.mkdir(parents=True)
    calls = []
    monkeypatch.setattr(retrofi_kbuild, "configure", lambda *a: calls.append("configure"))
    with pytest.raises(RetrofiError):
        # no stamp: a build starts (and fails here: the source does not exist)
        monkeypatch.setattr(retrofi_kbuild, "_make", lambda *a, **k: (_ for _ in ()).throw(
            RetrofiError("make ran")))
        retrofi_kbuild.build(SOURCE, "debug", str(frag), cache=str(tmp_path))
    assert calls == ["configure"]
    (d / "stamp.json").write_text('{"kernelrelease": "6.12.118-retrofi-debug"}')
    kb = retrofi_kbuild.build(SOURCE, "debug", str(frag), cache=str(tmp_path))
    assert kb.reused and calls == ["configure"]
    assert kb.image == str(d / "obj/arch/x86/boot/bzImage")
    assert kb.modules == str(d / "root/lib/modules/6.12.118-retrofi-debug")


def test_the_runner_gets_the_kernel_of_a_build_target_and_of_its_shapes_once(tmp_path,
                                                                            monkeypatch):
    m = retrofi_matrix.load(write_matrix(tmp_path))
    built = []

    def fake_build(source, name, fragment, cache=None, jobs=2):
        built.append((name, fragment))
        return retrofi_kbuild._result(name, "k" * 16, str(tmp_path / name), "6.12.118-dbg",
                                      0.0, True)
    monkeypatch.setattr(retrofi_kbuild, "build", fake_build)
    kernels = retrofi_kernels.Kernels(source=SOURCE, targets={"6.12": object()})
    retrofi_kbuild.add_built(m, m.select(["debug", "debug-2.6.21", "6.12"]), kernels)
    assert built == [("debug", str(tmp_path / "frag.config"))]
    kt = kernels.targets["debug"]
    assert (kt.headers, kt.kernelrelease) == (str(tmp_path / "debug" / "obj"), "6.12.118-dbg")
    assert kt.image.endswith("obj/arch/x86/boot/bzImage")
    assert kt.version == f"{SOURCE.version}+{'k' * 16}"


def test_the_kernel_build_counts_the_objects_it_compiled_since_it_started(tmp_path):
    log = tmp_path / "build.log"
    log.write_bytes(b"  CC      old/earlier.o\n")
    start = log.stat().st_size
    read = retrofi_kbuild._compiled(str(log), start)
    assert read(1) is None
    with open(log, "ab") as f:
        f.write(b"  CC      kernel/fork.o\n  AR      kernel/built-in.a\n"
                b"  CC [M]  net/rfkill/core.o\n  LD      vmlinux.o\n")
    assert read(2) == "2 objects compiled"
