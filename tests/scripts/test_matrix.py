"""kernel-matrix.yaml: the schema accepts the real file and rejects bad
input with one error naming the file, the line and the fix."""

import os
import textwrap
import types

import pytest

import retrofi_matrix
import retrofi_pins
from conftest import REPO
from faultcheck import assert_one_error, saw
from retrofi_errors import RetrofiError

GOOD = textwrap.dedent("""\
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
      - name: "6.1"
        kind: real
        default: true
        suites: [bookworm, bookworm-security]
        abi: "6.1.0-*"
        boot_timeout: 240
      - name: "5.10"
        kind: real
        default: false
        suites: [bullseye, bullseye-security]
        abi: "5.10.0-*"
        cc: gcc-12
      - name: shape-2.6.26
        kind: shape
        default: false
        base: "6.1"
        api_level: "2.6.26"
    """)


def parse_error(text):
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.parse(text, "m.yaml")
    return e.value


def test_repository_matrix_is_valid(repo):
    m = retrofi_matrix.load(f"{repo}/kernel-matrix.yaml")
    # The newest source by default, its identity first; 6.12 the LTS.
    assert (m.source.name, m.source.package) == ("newest", "linux-source-*")
    assert [(s.name, s.package) for s in m.all_sources() if s.lts] == [("6.12", "linux-source-6.12")]
    names = [t.name for t in m.targets]
    assert {"7.3", "6.12", "6.1", "5.10"} <= set(names)
    assert [t.name for t in m.select()] == ["7.3", "6.12", "6.1", "5.10", "2.6.21"]
    assert m.real_target(m.target("2.6.21")).name == "5.10"    # the oldest real kernel


SHAPE_LEVELS = ["2.6.21", "2.6.24", "2.6.27", "2.6.29", "3.0", "3.10", "4.4", "4.19"]


def test_repository_shapes_share_one_base_and_shapes_selects_them_all(repo):
    m = retrofi_matrix.load(f"{repo}/kernel-matrix.yaml")
    shapes = m.select(["shapes"])
    assert sorted(t.api_level for t in shapes) == sorted(SHAPE_LEVELS)
    assert all(t.kind == "shape" and t.name == t.api_level for t in shapes)
    assert len({t.base for t in shapes}) == 1           # one anchor to move
    assert m.real_target(shapes[0]).kind == "real"
    assert [t.name for t in m.select() if t.kind == "shape"] == ["2.6.21"]
    # Moving the anchor moves every shape.
    text = open(f"{repo}/kernel-matrix.yaml").read()
    assert text.count("&shape_base") == 1
    moved = retrofi_matrix.parse(text.replace('&shape_base "5.10"', '&shape_base "6.1"'))
    assert {t.base for t in moved.select(["shapes"])} == {"6.1"}


def test_shapes_selection_adds_to_named_targets_without_duplicates():
    m = retrofi_matrix.parse(GOOD)
    assert [t.name for t in m.select(["shape-2.6.26", "shapes", "6.1"])] == \
        ["6.1", "shape-2.6.26"]
    no_shapes = GOOD[:GOOD.index("  - name: shape-2.6.26")]
    e = parse_error_select(no_shapes, "shapes")
    assert "no shape target" in e.what and "kind: shape" in e.fix


def test_the_rt_rows_boot_the_rt_image_of_their_generic_rows_abi(repo):
    m = retrofi_matrix.load(f"{repo}/kernel-matrix.yaml")
    rt = m.select(["rt"])
    assert [t.name for t in rt] == ["6.12-rt", "6.1-rt"]
    assert not any(t.default for t in rt)            # two more boots: on demand only
    pins = retrofi_pins.load_lock(retrofi_pins.lock_path(m.path))
    for t in rt:
        generic = m.target(t.name[:-len("-rt")])
        assert (t.kind, t.flavour, t.abi, t.suites) == \
            ("real", "rt-amd64", generic.abi, generic.suites)
        entry = pins[t.key]
        abi = entry["abi"]
        names = {p["name"] for p in entry["packages"]}
        # The rt image and headers, never the generic ones.
        assert t.image_for(abi) == f"linux-image-{abi}-rt-amd64-unsigned" in names
        assert t.headers_for(abi) == f"linux-headers-{abi}-rt-amd64" in names
        assert f"linux-headers-{abi}-amd64" not in names
        assert t.abi_from_headers(f"linux-headers-{abi}-rt-amd64") == abi
        assert t.abi_from_headers(f"linux-headers-{abi}-amd64") is None
        # The same ABI as the generic row: the rt row differs by the flavour alone.
        assert abi == pins[generic.key]["abi"]
        # The skips the selftests print on a kernel without lockdep.
        assert t.expected_skips == generic.expected_skips


def test_rt_selection_needs_an_rt_row_and_adds_to_named_ones():
    e = parse_error_select(GOOD, "rt")
    assert "no real target of an rt flavour" in e.what and "flavour: rt-amd64" in e.fix
    m = retrofi_matrix.parse(GOOD.replace("    suites: [bookworm, bookworm-security]\n",
                                          "    suites: [bookworm, bookworm-security]\n"
                                          "    flavour: rt-amd64\n", 1))
    assert [t.name for t in m.select(["rt", "6.1"])] == ["6.1"]
    assert m.target("6.1").flavour == "rt-amd64"


@pytest.mark.parametrize("group", ["shapes", "default", "rt", "all"])
def test_a_target_named_like_a_selection_group_is_refused(group):
    e = parse_error(GOOD.replace("name: shape-2.6.26", f"name: {group}"))
    assert f"cannot be named '{group}'" in e.what and "m.yaml:" in e.where


def test_all_selects_every_real_row_and_every_shape_on_one(repo):
    m = retrofi_matrix.load(f"{repo}/kernel-matrix.yaml")
    names = [t.name for t in m.select(["all"])]
    assert names[:7] == ["7.3", "6.12", "6.1", "5.10", "6.12-rt", "6.1-rt", "7.2"]
    assert names[7:] == ["2.6.21", "2.6.24", "2.6.27", "2.6.29", "3.0", "3.10", "4.4", "4.19"]
    # Not the debug rows (a kernel built here) nor the families' build-only rows.
    assert "debug-6.12" not in names and "debug-2.6.21" not in names
    assert not any(t.kind == "build-only" for t in m.select(["all"]))


def test_default_selects_the_default_targets_beside_named_ones():
    m = retrofi_matrix.parse(GOOD)
    defaults = [t.name for t in m.select()]
    assert [t.name for t in m.select(["default"])] == defaults
    both = [t.name for t in m.select(["default", "shapes"])]
    assert set(both) == set(defaults) | {t.name for t in m.select(["shapes"])}
    assert len(both) == len(set(both))


def test_good_matrix_gives_typed_targets():
    m = retrofi_matrix.parse(GOOD)
    t = m.target("6.1")
    assert (t.kind, t.boot_timeout, t.flavour) == ("real", 240, "amd64")
    assert m.target("6.12").boot_timeout == retrofi_matrix.DEFAULT_BOOT_TIMEOUT
    assert m.target("5.10").cc == "gcc-12"
    shape = m.target("shape-2.6.26")
    assert (shape.kind, shape.base, shape.api_level) == ("shape", "6.1", "2.6.26")
    assert m.real_target(shape) is t


def test_select_keeps_matrix_order_and_defaults():
    m = retrofi_matrix.parse(GOOD)
    assert [t.name for t in m.select(["5.10", "6.12"])] == ["6.12", "5.10"]
    assert [t.name for t in m.select([])] == ["6.12", "6.1"]


def test_unknown_target_name_lists_the_known_ones():
    e = parse_error_select(GOOD, "7.7")
    assert "unknown target '7.7'" in e.what and "6.12, 6.1, 5.10" in e.fix


def parse_error_select(text, name):
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.parse(text).select([name])
    return e.value


def test_abi_glob_matches_one_dash_free_part():
    t = retrofi_matrix.parse(GOOD).target("6.1")
    assert t.abi_from_headers("linux-headers-6.1.0-57-amd64") == "6.1.0-57"
    assert t.abi_from_headers("linux-headers-6.1.0-57-cloud-amd64") is None
    assert t.abi_from_headers("linux-headers-6.1.0-57-common") is None
    t = retrofi_matrix.parse(GOOD).target("6.12")
    assert t.abi_from_headers("linux-headers-6.12.118+deb12-amd64") == "6.12.118+deb12"
    assert t.abi_from_headers("linux-headers-6.12.118+deb12-rt-amd64") is None
    assert t.image_for("6.1.0-57") == "linux-image-6.1.0-57-amd64-unsigned"


def test_malformed_yaml_names_file_and_line():
    e = parse_error(GOOD.replace("kind: real\n    default: true\n    suites: [bookworm, ",
                                 "kind: real\n    default: true\n    suites: [bookworm, : ]\n  x", 1))
    assert e.where.startswith("m.yaml:") and "malformed YAML" in e.what


def test_unknown_key_is_refused_with_its_line():
    e = parse_error(GOOD.replace("    abi: \"6.1.0-*\"\n", "    abi: \"6.1.0-*\"\n    abl: x\n"))
    assert "unknown key 'abl'" in e.what
    assert e.where == "m.yaml:16"
    assert "allowed keys" in e.fix


def test_missing_field_is_named():
    e = parse_error(GOOD.replace("    abi: \"6.1.0-*\"\n", ""))
    assert "missing required key 'abi'" in e.what and e.where == "m.yaml:11"


def test_duplicate_target_names_are_refused():
    e = parse_error(GOOD.replace('name: "6.1"', 'name: "6.12"'))
    assert "duplicate target name '6.12'" in e.what and "line 6" in e.what
    assert e.where == "m.yaml:11"


def test_duplicate_keys_are_refused():
    e = parse_error(GOOD.replace("    boot_timeout: 240\n", "    boot_timeout: 240\n    boot_timeout: 60\n"))
    assert "duplicate key 'boot_timeout'" in e.what


def test_unquoted_version_name_gets_a_hint():
    e = parse_error(GOOD.replace('name: "6.1"', "name: 6.1"))
    assert "must be a string" in e.what and '"6.1"' in e.fix


@pytest.mark.parametrize("edit,needle", [
    (("kind: shape", "kind: virtual"), "must be 'real', 'shape', 'build' or 'family'"),
    (('base: "6.1"', 'base: "6.2"'), "not a real target"),
    (('api_level: "2.6.26"', 'api_level: "two"'), "not a kernel version"),
    (("default: false\n    suites: [bullseye", "default: maybe\n    suites: [bullseye"), "true or false"),
    (("boot_timeout: 240", "boot_timeout: -5"), "positive number"),
    (("boot_timeout: 240", "boot_timeout: 240\n    event_timeout: 0"), "event_timeout must be"),
    (("boot_timeout: 240", "boot_timeout: 240\n    event_timeout: 240"), "less than its boot_timeout"),
    (("boot_timeout: 240", "boot_timeout: 240\n    kernel_args: 'a; reboot'"), "is not valid"),
    (("suites: [bullseye, bullseye-security]", "suites: []"), "non-empty list"),
    (("version: 1", "version: 2"), "unsupported schema version"),
])
def test_invalid_values_are_refused(edit, needle):
    e = parse_error(GOOD.replace(*edit, 1))
    assert needle in e.what, e.format()
    assert e.where.startswith("m.yaml:")


def test_event_timeout_defaults_to_20_s_and_reaches_the_guest():
    repo = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    assert repo.target("6.12").event_timeout == 20
    assert repo.target("debug-6.12").event_timeout > 20
    assert repo.target("debug-2.6.21").event_timeout == repo.target("debug-6.12").event_timeout
    import retrofi_run

    class Census:
        def guest_lines(self):
            return ""
    config = retrofi_run.guest_config(repo.target("debug-6.12"), "tests", Census(), False)
    assert config["etc/retrofi-event-timeout"] == f"{repo.target('debug-6.12').event_timeout}\n"
    with open(os.path.join(REPO, "tests", "guest", "init")) as f:
        assert "WAIT=$(cat /etc/retrofi-event-timeout" in f.read()


def test_the_rt_rows_and_only_they_tell_the_guest_to_require_preempt_rt():
    """The guest test booted_kernel_is_preempt_rt_exactly_on_rt_rows compares
    the booted kernel with what the matrix says: 1 for an rt flavour (a
    shape by its base's), 0 for every other row."""
    import retrofi_run
    repo = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    census = types.SimpleNamespace(guest_lines=lambda: "")
    rt = {t.name for t in repo.targets
          if t.kind != retrofi_matrix.BUILD_ONLY and retrofi_run.preempt_rt(repo, t)}
    assert rt == {t.name for t in repo.select(["rt"])} == {"6.1-rt", "6.12-rt"}
    for name, want in (("6.1-rt", "1\n"), ("6.12-rt", "1\n"), ("6.1", "0\n"),
                       ("2.6.21", "0\n"), ("debug-6.12", "0\n")):
        t = repo.target(name)
        config = retrofi_run.guest_config(t, "tests", census, retrofi_run.preempt_rt(repo, t))
        assert config["etc/retrofi-preempt-rt"] == want, name
    with open(os.path.join(REPO, "tests", "guest", "init")) as f:
        init = f.read()
    assert "want=$(cat /etc/retrofi-preempt-rt" in init
    assert "run_test booted_kernel_is_preempt_rt_exactly_on_rt_rows" in init


def test_the_debug_rows_boot_with_4_level_paging_and_real_targets_as_they_are():
    repo = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    for name in ("debug-6.12", "debug-2.6.21"):
        assert repo.target(name).kernel_args.split() == ["no5lvl"]
    assert repo.target("6.12").kernel_args == ""


def test_the_runner_boots_with_the_targets_kernel_args(tmp_path, monkeypatch):
    import retrofi_build
    import retrofi_initramfs
    import retrofi_run
    import types
    repo = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    seen = {}
    census = types.SimpleNamespace(guest_lines=lambda: "", records=())
    built = types.SimpleNamespace(ok=True, tree=str(tmp_path), census=census, reason="",
                                  modules=(), seconds=0.0, off=(), summary=lambda: "built")
    monkeypatch.setattr(retrofi_build, "build", lambda *a, **k: built)
    monkeypatch.setattr(retrofi_run, "_census", lambda *a: None)
    monkeypatch.setattr(retrofi_initramfs, "build",
                        lambda *a, **k: types.SimpleNamespace(path="i", size=1))

    def boot(kernel, initrd, log, **kw):
        seen.update(kw)
        raise RetrofiError("stop here", where="test")
    monkeypatch.setattr(retrofi_run.retrofi_boot, "boot", boot)
    kernel = types.SimpleNamespace(kernelrelease="6.12.0-debug", name="debug-6.12", version="",
                                   headers=str(tmp_path))
    row = retrofi_run.run_target(repo.target("debug-6.12"), kernel, str(tmp_path),
                                 str(tmp_path / "report"))
    assert seen["append"] == "no5lvl" and row.boot == "fail"


def test_empty_file_is_refused():
    assert "empty" in parse_error("").what


def test_missing_matrix_file_says_so(tmp_path):
    with pytest.raises(RetrofiError) as e:
        retrofi_matrix.load(str(tmp_path / "nope.yaml"))
    assert "not found" in e.value.what


def test_cli_reports_schema_errors_in_one_message(tmp_path, cli):
    bad = tmp_path / "kernel-matrix.yaml"
    bad.write_text(GOOD.replace("    abi: \"6.1.0-*\"\n", "    abi: \"6.1.0-*\"\n    abl: x\n"))
    p = cli("--matrix", str(bad), "kernels")
    line = assert_one_error(p, f"{bad}:16: unknown key 'abl'", code=1, stream="stderr")
    assert p.stderr.startswith(line)
    saw("test_matrix.py::test_cli_reports_schema_errors_in_one_message", line)
    assert sorted(os.listdir(tmp_path)) == ["kernel-matrix.yaml"], "no lock file, nothing else"
