"""Families: every ABI and flavour the archive serves as build-only rows,
resolved from the archive into the lock file, selected by TARGETS=sweep and
TARGETS=sweep-all, never booted and reported as build-only."""

import os
import textwrap

import pytest

import retrofi_apt
import retrofi_matrix
import retrofi_pins
import retrofi_report
from conftest import REPO
from retrofi_errors import RetrofiError

MATRIX = textwrap.dedent("""\
    version: 1
    source:
      package: linux-source-6.12
      suites: [bookworm-security]
    targets:
      - name: "6.1"
        kind: real
        default: true
        suites: [bookworm, bookworm-security]
        abi: "6.1.0-*"
      - name: all-6.1
        kind: family
        suites: [bookworm, bookworm-security]
        abi: "6.1.0-*"
        flavours: [amd64, rt-amd64, cloud-amd64]
      - name: all-7
        kind: family
        suites: [trixie-backports]
        abi: "*+deb13"
        flavours: [amd64, rt-amd64, cloud-amd64]
    """)


class FakeApt:
    """The archive as {package: [Package]}: what PrivateApt answers."""
    suites = ("bookworm",)

    def __init__(self, packages):
        self.packages = packages

    def update(self):
        pass

    def pkgnames(self, prefix):
        return sorted(n for n in self.packages if n.startswith(prefix))

    def versions(self, name):
        return self.packages.get(name, [])


def pkg(name, version, depends=""):
    return retrofi_apt.Package(name=name, version=version, filename=f"pool/{name}_{version}.deb",
                               size=1, sha256="0" * 64, depends=depends)


def row_entry(family, abi, flavour, version):
    m = retrofi_matrix.parse(MATRIX)
    t = m.family(family).target(flavour, abi, version)
    return t.key, {"spec": retrofi_pins.spec_digest(t), "family": family, "flavour": flavour,
                   "abi": abi, "version": version, "packages": []}


def lock_entries():
    entries = dict([row_entry("all-6.1", f"6.1.0-{n}", f, f"6.1.{v}-1")
                    for n, v in ((47, 170), (53, 180), (57, 192))
                    for f in ("amd64", "rt-amd64", "cloud-amd64")]
                   + [row_entry("all-7", abi, f, v)
                      for abi, v in (("7.2.6+deb13", "7.2.6-1~bpo13+1"),
                                     ("7.2.12+deb13", "7.2.12-1~bpo13+1"),
                                     ("7.3.4+deb13", "7.3.4-1~bpo13+1"))
                      for f in ("amd64", "rt-amd64", "cloud-amd64")])
    entries["target:6.1"] = {"abi": "6.1.0-57", "version": "6.1.192-3", "packages": []}
    return entries


def matrix():
    return retrofi_matrix.with_rows(retrofi_matrix.parse(MATRIX), lock_entries())


def names(targets):
    return [t.name for t in targets]


def test_a_family_is_no_row_itself_and_its_pins_are_the_rows():
    m = matrix()
    assert "all-6.1" not in names(m.targets)
    assert m.family("all-6.1").flavours == ("amd64", "rt-amd64", "cloud-amd64")
    rows = [t for t in m.targets if t.kind == retrofi_matrix.BUILD_ONLY]
    assert len(rows) == 18
    row = m.target("6.1.0-47-rt-amd64")
    assert (row.abi, row.flavour, row.family, row.major) == ("6.1.0-47", "rt-amd64", "all-6.1", "6.1")
    assert row.headers_for(row.abi) == "linux-headers-6.1.0-47-rt-amd64"
    assert not row.default and m.select() == [m.target("6.1")]


def test_sweep_all_is_every_row_and_sweep_the_oldest_and_newest_of_each_major():
    m = matrix()
    assert len(m.select(["sweep-all"])) == 18
    assert names(m.select(["sweep"])) == [
        "6.1.0-47-amd64",                                           # oldest 6.1
        "6.1.0-57-amd64", "6.1.0-57-rt-amd64", "6.1.0-57-cloud-amd64",  # newest, a real target's major
        "7.2.6+deb13-amd64", "7.2.12+deb13-amd64",                  # oldest and newest 7.2
        "7.3.4+deb13-amd64", "7.3.4+deb13-rt-amd64", "7.3.4+deb13-cloud-amd64",  # the newest major
    ]


def test_sweep_before_kernels_update_says_to_run_it():
    m = retrofi_matrix.with_rows(retrofi_matrix.parse(MATRIX), {})
    with pytest.raises(RetrofiError) as e:
        m.select(["sweep"])
    assert "all-6.1, all-7 not resolved" in e.value.what
    assert "make kernels-update" in e.value.fix


@pytest.mark.parametrize("old,new,needle", [
    ("flavours: [amd64, rt-amd64, cloud-amd64]", "flavours: []",
     "flavours must be a non-empty list"),
    ("flavours: [amd64, rt-amd64, cloud-amd64]", "flavours: [amd64, amd64]",
     "flavours must be a non-empty list of distinct"),
    ('abi: "6.1.0-*"\n    flavours', 'abi: "6.1.0-*"\n    headers: "linux-headers-{abi}"\n    flavours',
     "must contain {abi} and {flavour}"),
    ('abi: "6.1.0-*"\n    flavours', 'abi: "6.1.0-*"\n    default: true\n    flavours',
     "unknown key 'default'"),
    ("name: all-7", "name: sweep", "cannot be named 'sweep'"),
])
def test_bad_families_are_refused(old, new, needle):
    assert old in MATRIX
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.parse(MATRIX.replace(old, new, 1), "m.yaml")
    assert needle in e.value.what, e.value.what
    assert e.value.where.startswith("m.yaml:")


def test_a_family_resolves_every_served_abi_and_flavour_headers_only():
    apt = FakeApt({
        "linux-headers-6.1.0-47-amd64": [pkg("linux-headers-6.1.0-47-amd64", "6.1.170-3",
                                             "linux-headers-6.1.0-47-common (= 6.1.170-3)")],
        "linux-headers-6.1.0-47-common": [pkg("linux-headers-6.1.0-47-common", "6.1.170-3")],
        "linux-headers-6.1.0-57-amd64": [pkg("linux-headers-6.1.0-57-amd64", "6.1.192-3")],
        "linux-headers-6.1.0-57-rt-amd64": [pkg("linux-headers-6.1.0-57-rt-amd64", "6.1.192-3")],
        "linux-headers-6.1-amd64": [pkg("linux-headers-6.1-amd64", "6.1.192-3")],   # a meta package
        "linux-image-6.1.0-57-amd64-unsigned": [pkg("linux-image-6.1.0-57-amd64-unsigned", "6.1.192-3")],
    })
    fam = retrofi_matrix.parse(MATRIX).family("all-6.1")
    rows = retrofi_pins.resolve_family(apt, fam)
    assert sorted(rows) == ["target:6.1.0-47-amd64", "target:6.1.0-57-amd64",
                            "target:6.1.0-57-rt-amd64"]
    e = rows["target:6.1.0-47-amd64"]
    assert (e["abi"], e["flavour"], e["family"], e["version"]) == \
        ("6.1.0-47", "amd64", "all-6.1", "6.1.170-3")
    assert [p["name"] for p in e["packages"]] == ["linux-headers-6.1.0-47-amd64",
                                                  "linux-headers-6.1.0-47-common"]
    assert not any("image" in p["name"] for r in rows.values() for p in r["packages"])
    # The lock's rows read back as the matrix's rows.
    m = retrofi_matrix.with_rows(retrofi_matrix.parse(MATRIX), rows)
    assert [t.name for t in m.targets if t.family] == ["6.1.0-47-amd64", "6.1.0-57-amd64",
                                                       "6.1.0-57-rt-amd64"]


def test_a_build_only_row_is_ok_by_its_build_and_never_reads_as_booted():
    row = retrofi_report.Row("6.1.0-47-amd64", "build-only", "ok", "not run", seconds=212)
    assert row.ok
    assert not retrofi_report.Row("6.1.0-47-amd64", "build-only", "fail", "not run").ok
    table = retrofi_report.table([row])
    assert "6.1.0-47-amd64  build-only  ok     not run  -      -       -       -" in table
    junit = retrofi_report.junit([row])
    assert 'name="boot"><skipped message="not booted"' in junit


def test_the_repository_matrix_pins_every_family():
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    for f in m.families:
        assert any(t.family == f.name for t in m.targets), f.name
    sweep = m.select(["sweep"])
    assert all(t.kind == "build-only" for t in sweep)
    assert len(sweep) < len(m.select(["sweep-all"]))


def test_a_build_only_row_names_the_probed_apis_its_target_lacks(tmp_path):
    import retrofi_run
    (tmp_path / "include" / "retrofi").mkdir(parents=True)
    (tmp_path / "include" / "retrofi" / "probes.h").write_text(
        "#define RETROFI_HAVE_list_count_nodes 0\n#define RETROFI_HAVE_timer_shutdown 1\n"
        "#define RETROFI_HAVE_kmemdup_array 0\n")
    assert retrofi_run.lacked_probes(str(tmp_path)) == ["list_count_nodes", "kmemdup_array"]
    assert retrofi_run.lacked_probes(str(tmp_path / "nowhere")) == ["(no probes.h)"]


SOURCES = textwrap.dedent("""\
    version: 1
    sources:
      - name: newest
        package: "linux-source-*"
        suites: [trixie-backports]
      - name: "6.12"
        package: linux-source-6.12
        suites: [bookworm-security]
    default_source: "6.12"
    targets:
      - name: all-6.1
        kind: family
        suites: [bookworm, bookworm-security]
        abi: "6.1.0-*"
        flavours: [amd64]
      - name: all-7
        kind: family
        suites: [trixie-backports]
        abi: "*+deb13"
        flavours: [amd64]
        source: newest
    """)


def test_a_family_newer_than_the_default_source_builds_the_source_it_names():
    """A 6.12 stack cannot build on 7.x (del_timer_sync() and hrtimer_init()
    are gone there): a family's source: gives its rows the newer stack,
    while the other families' rows keep the default source."""
    m = retrofi_matrix.parse(SOURCES)
    old = m.family("all-6.1").target("amd64", "6.1.0-57", "6.1.192-3")
    new = m.family("all-7").target("amd64", "7.3.4+deb13", "7.3.4-1~bpo13+1")
    assert m.source_of(old).name == "6.12"
    assert m.source_of(new).name == "newest"


def test_a_family_naming_an_unknown_source_is_refused():
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.parse(SOURCES.replace("source: newest", "source: oldest"), "m.yaml")
    assert "family 'all-7'.source 'oldest' names no source" in e.value.what, e.value.what
    assert e.value.where.startswith("m.yaml:") and "sources:" in e.value.fix


# What apt-get download printed here for a bullseye-security 6.1 header
# package that the index lists and the mirror's pool does not have.
NOT_SERVED_STDERR = (
    "E: Failed to fetch http://deb.debian.org/debian-security/pool/updates/main/l/linux-6.1/"
    "linux-headers-6.1.0-0.deb11.48-amd64_6.1.172-1%7edeb11u1_amd64.deb  404  Not Found "
    "[IP: 203.0.113.80 80]\n")


@pytest.mark.parametrize("stderr, kind, needle, fix", [
    (NOT_SERVED_STDERR, retrofi_apt.NotServed,
     "the archive lists linux-headers-6.1.0-0.deb11.48-amd64=6.1.172-1~deb11u1 in "
     "bullseye, bullseye-security but serves no file for it (404 Not Found: "
     "http://deb.debian.org/debian-security/pool/", "leave it out (TARGETS=...)"),
    ("E: Version '6.1.172-1~deb11u1' for 'linux-headers-6.1.0-0.deb11.48-amd64' was not found\n",
     RetrofiError, "is no longer available in bullseye, bullseye-security", "make kernels-update"),
    ("Err:1 http://deb.debian.org/debian-security bullseye-security/main amd64 linux-headers\n"
     "  Could not resolve 'deb.debian.org'\n"
     "E: Failed to fetch http://deb.debian.org/debian-security/pool/x.deb  "
     "Could not resolve 'deb.debian.org'\n",
     RetrofiError, "download of linux-headers-6.1.0-0.deb11.48-amd64=6.1.172-1~deb11u1 failed",
     "check the network"),
])
def test_a_file_the_archive_lists_but_does_not_serve_is_told_from_a_stale_pin_and_the_network(
        stderr, kind, needle, fix):
    pin = {"name": "linux-headers-6.1.0-0.deb11.48-amd64", "version": "6.1.172-1~deb11u1"}
    e = retrofi_apt.download_error(pin, ("bullseye", "bullseye-security"), stderr)
    assert type(e) is kind
    assert needle in e.what and fix in e.fix


@pytest.mark.network
def test_a_row_the_archive_does_not_serve_fails_alone_and_the_others_run(tmp_path, monkeypatch):
    """A sweep does not stop at one ABI whose packages the mirror lacks:
    that row fails with the archive's answer, in no time, and every other
    row is still fetched and run (here a cloud row, refused by its .config)."""
    import retrofi_debs
    import retrofi_generate
    import retrofi_kernels
    import retrofi_run
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    gone = next(t for t in m.select(["sweep-all"]) if t.family == "all-6.1-deb11")
    cloud = next(t for t in m.select(["sweep"]) if t.family == "all-6.1"
                 and t.flavour == "cloud-amd64")
    real_ensure = retrofi_debs.ensure_deb

    def ensure(cache, apt, pin):
        if gone.abi in pin["name"]:
            raise retrofi_apt.download_error(pin, gone.suites, NOT_SERVED_STDERR)
        return real_ensure(cache, apt, pin)
    monkeypatch.setattr(retrofi_debs, "ensure_deb", ensure)
    fetched = retrofi_kernels.fetch(m, [gone.name, cloud.name], with_source=False)
    assert list(fetched.unavailable) == [gone.name] and cloud.name in fetched.targets
    with pytest.raises(retrofi_apt.NotServed):
        fetched.target(gone.name)

    def no_work(*_args, **_kwargs):
        raise AssertionError("neither row may generate or build")
    monkeypatch.setattr(retrofi_generate, "generate", no_work)
    monkeypatch.setattr(retrofi_run.retrofi_build, "build", no_work)
    monkeypatch.setattr(retrofi_kernels, "fetch", lambda *a, **k: fetched)
    rows = {r.target: r for r in retrofi_run.run(m, [gone.name, cloud.name],
                                                 out_dir=str(tmp_path))}
    first, second = rows[gone.name], rows[cloud.name]
    assert (first.target, first.build, first.boot, first.ok) == (gone.name, "fail", "not run", False)
    assert first.reason.count("retrofi: error:") == 1 and "serves no file for it (404" in first.reason
    assert open(first.logs["build"]).read().strip() == first.reason
    assert (second.target, second.build) == (cloud.name, "fail")
    assert "this kernel cannot load a Wi-Fi stack" in second.reason
    # What the sweep table of docs/sweep.md is written from (retrofi_sweep_table).
    assert (first.early, first.version) == ("not served", gone.version)
    assert (second.early, second.version) == ("refused", cloud.version)
    import retrofi_sweep_table
    assert retrofi_sweep_table.line(second).startswith(
        f"| {cloud.name} | {cloud.version} | refused: no `CONFIG_CFG80211`, ")
