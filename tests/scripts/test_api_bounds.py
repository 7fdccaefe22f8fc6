"""Each census record's "since" agrees with what the archive serves: no
served ABI at or above a record's guard lacks its API (it would get
neither the shim nor the API), a structural guard that cannot see a stable
backport has none below it, a bound is as tight as the served ABIs make
it, and a record that cites its release says the same version. Presence
is measured from the served ABIs' own -common headers (compat/bounds.list's
markers) into compat/api-bounds.txt by `make api-bounds`; the network test
measures it again and compares."""

import os

import pytest

import retrofi_bounds
import retrofi_census
import retrofi_matrix
from retrofi_errors import RetrofiError

from conftest import REPO


def census_problems(cat=None, table=None, marks=None):
    cat = retrofi_census.catalog(REPO) if cat is None else cat
    return retrofi_bounds.check(cat, retrofi_bounds.read() if table is None else table,
                                retrofi_bounds.markers() if marks is None else marks,
                                retrofi_bounds.probed_names(REPO))


def with_since(name, since, cat=None):
    """The catalog with one record's since replaced (a mutation)."""
    cat = retrofi_census.catalog(REPO) if cat is None else cat
    return tuple(retrofi_census.Shim(s.name, since, s.kind, s.change) if s.name == name else s
                 for s in cat)


def test_census_records_agree_with_the_served_abis():
    assert census_problems() == []


def test_a_guard_below_a_served_abi_that_lacks_the_api_is_named_with_that_abi():
    # us_to_ktime() came in 6.14; every 6.12 ABI served lacks it. A guard
    # at 6.12 leaves them with neither the shim nor the API.
    problems = census_problems(cat=with_since("us_to_ktime", "6.12"))
    assert problems, "a guard below a served ABI without the API went unnoticed"
    assert any(p.startswith("us_to_ktime (since 6.12): the served ABI 6.12.118+deb12 (6.12.118) "
                            "(and 11 more served ABIs) lacks it") for p in problems), problems


def test_a_record_that_cites_another_release_than_its_since_fails():
    # The archive serves nothing between 6.12.118 and 7.2.6, so a guard at
    # 6.13 for 6.14's us_to_ktime() agrees with it; the record's own
    # citation of its release does not.
    problems = census_problems(cat=with_since("us_to_ktime", "6.13"))
    assert any("us_to_ktime (since 6.13): its change cites v6.14" in p for p in problems), \
        problems


def test_a_structural_guard_blind_to_a_stable_backport_fails():
    # Debian's 6.12 ABIs carry the spinlock_bh guard from stable (6.12.37):
    # only its probe keeps the shim from redefining it.
    cat = retrofi_census.catalog(REPO)
    problems = retrofi_bounds.check(cat, retrofi_bounds.read(), retrofi_bounds.markers(),
                                    retrofi_bounds.probed_names(REPO) - {"spinlock_bh_guard"})
    assert any(p.startswith("spinlock_bh_guard (since 6.15): the served ABI 6.12.107+deb12 "
                            "(6.12.107) has it below that version") for p in problems), problems


def test_a_bound_looser_than_the_served_abis_fails():
    # aes_cmac_zeroize_key: 7.2.12 lacks it, 7.3.4 has it.
    problems = census_problems(cat=with_since("aes_cmac_zeroize_key", "7.1..7.3.4"))
    assert any("the served ABI 7.2.12+deb13 (7.2.12) lacks it too" in p for p in problems), \
        problems
    assert census_problems(cat=with_since("aes_cmac_zeroize_key", "7.2.12..7.3.4")) == []


def test_every_record_newer_than_the_oldest_served_abi_has_a_marker():
    marks = retrofi_bounds.markers()
    del marks["us_to_ktime"]
    problems = census_problems(marks=marks)
    assert any(p.startswith("us_to_ktime (since 6.14): no marker") for p in problems), problems


def test_a_changed_marker_asks_for_the_table_to_be_measured_again(tmp_path):
    text = open(retrofi_bounds.MARKERS).read().replace(
        r"^static inline ktime_t us_to_ktime\(u64 us\)", r"^static inline ktime_t us_to_ktime\(")
    path = tmp_path / "bounds.list"
    path.write_text(text)
    problems = census_problems(marks=retrofi_bounds.markers(str(path)))
    assert any("us_to_ktime: its marker changed" in p and "make api-bounds" in p
               for p in problems), problems


def test_a_marker_that_matches_nothing_in_the_newest_abi_fails():
    table = retrofi_bounds.read()
    digest, labels = table["apis"]["us_to_ktime"]
    table["apis"]["us_to_ktime"] = (digest, [lb for lb in labels if not lb.startswith("7.3")])
    problems = census_problems(table=table)
    assert any("us_to_ktime: its marker matches nothing in the newest served ABI 7.3.4+deb13"
               in p for p in problems), problems


def test_since_is_a_release_or_a_bound_whose_guard_is_its_high_end():
    assert retrofi_census.since_bounds("6.14") == (None, "6.14")
    assert retrofi_census.since_bounds("6.12.118..7.2.6") == ("6.12.118", "7.2.6")
    assert retrofi_census.version_code("6.12.118..7.2.6") == retrofi_census.version_code("7.2.6")
    for bad in ("6.14..6.13", "6.14..", "v6.14", "6.14-rc1"):
        with pytest.raises(RetrofiError):
            retrofi_census.since_bounds(bad)
    with pytest.raises(RetrofiError):
        retrofi_census.level_code("6.12..6.14")


def test_a_bound_record_is_read_back_from_a_census_section():
    shims = retrofi_census.parse(b"x|6.12.118..7.2.6|probed|a change\0")
    assert [s.since for s in shims] == ["6.12.118..7.2.6"]
    with pytest.raises(RetrofiError):
        retrofi_census.parse(b"x|7.2.6..6.12|probed|a change\0")


@pytest.mark.network
def test_bounds_table_is_what_the_served_headers_say():
    """compat/api-bounds.txt is what the archive's -common headers say now
    (fetched through the kernels stage into the shared cache; what each
    pinned package holds is remembered there under its sha256)."""
    matrix = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    marks = retrofi_bounds.markers()
    measured = retrofi_bounds.generate(matrix, marks, log=lambda m: None)
    committed = open(retrofi_bounds.TABLE).read()
    assert retrofi_bounds.render(measured) == committed, \
        "compat/api-bounds.txt differs from the served headers: run `make api-bounds`"


def test_a_config_record_is_held_to_its_citation_not_to_the_served_abis():
    # kunit_hooks (6.3): the tree's KUnit option guards it, not a version,
    # so no marker bounds it; its citation still has to agree.
    cat = retrofi_census.catalog(REPO)
    assert retrofi_census.Shim("kunit_hooks", "6.3", "config",
                               "kunit: Add hooks to call into KUnit when it is built as a module "
                               "(v6.3, title not verified)") in cat
    assert census_problems(cat=cat) == []
    problems = census_problems(cat=with_since("kunit_hooks", "6.4", cat))
    assert any("kunit_hooks (since 6.4): its change cites v6.3" in p for p in problems), problems
    # The same record as a structural one needs a marker.
    structural = tuple(retrofi_census.Shim(s.name, s.since, "structural", s.change)
                       if s.name == "kunit_hooks" else s for s in cat)
    problems = census_problems(cat=structural)
    assert any(p.startswith("kunit_hooks (since 6.3): no marker") for p in problems), problems
