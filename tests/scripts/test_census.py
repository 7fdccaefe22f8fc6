"""The shim census: RETROFI_CENSUS() records a shim in the object that
compiles it, retrofi_census reads the records back from ELF files, and a
shape row fails when a shim that must be in force at its level is not."""

import os
import re
import shutil
import subprocess
import textwrap

import pytest

import retrofi_api_census
import retrofi_census
import retrofi_initramfs
import retrofi_matrix
import retrofi_report
import retrofi_run
from retrofi_build import BuildResult
from retrofi_errors import RetrofiError

from conftest import REPO

# A stand-in for the kernel's <linux/version.h>, enough for backport.h.
VERSION_H = textwrap.dedent("""\
    #define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
    #define LINUX_VERSION_CODE KERNEL_VERSION(6, 1, 192)
    """)

SHIMS_C = textwrap.dedent("""\
    #include <retrofi/backport.h>
    #if RETROFI_API_LESS(3, 13, 0)
    RETROFI_CENSUS(list_last_entry, "3.13", "additive",
                   "list: introduce list_last_entry() (v3.13)");
    #endif
    #if RETROFI_API_LESS(2, 6, 22)
    RETROFI_CENSUS(list_first_entry, "2.6.22", "additive", "compat-2.6.22.h");
    #endif
    #if RETROFI_LINUX_LESS(6, 12, 0)
    RETROFI_CENSUS(unaligned_h, "6.12", "structural", "move asm/unaligned.h");
    #endif
    int retrofi_census_test(void) { return 0; }
    """)


def compile_object(tmp_path, source=SHIMS_C, api_code=None, name="shims"):
    inc = tmp_path / "inc" / "linux"
    inc.mkdir(parents=True, exist_ok=True)
    (inc / "version.h").write_text(VERSION_H)
    src = tmp_path / f"{name}.c"
    src.write_text(source)
    obj = tmp_path / f"{name}.o"
    argv = ["gcc", "-c", "-Wall", "-Werror", "-I", str(tmp_path / "inc"),
            "-I", os.path.join(REPO, "include"), str(src), "-o", str(obj)]
    if api_code is not None:
        argv.insert(1, f"-DRETROFI_API_CODE={api_code}")
    subprocess.run(argv, check=True)
    return obj


def test_census_reads_back_the_shims_compiled_below_the_api_level(tmp_path):
    obj = compile_object(tmp_path, api_code=retrofi_census.version_code("2.6.21"))
    census = retrofi_census.read(str(tmp_path), ["shims.o"])
    assert [(s.name, s.since, s.kind) for s in census.shims] == [
        ("list_first_entry", "2.6.22", "additive"),
        ("list_last_entry", "3.13", "additive"),
        ("unaligned_h", "6.12", "structural")]
    assert census.modules == {"shims.o": ["list_first_entry", "list_last_entry", "unaligned_h"]}
    assert census.rows()[1]["change"] == "list: introduce list_last_entry() (v3.13)"
    assert census.rows()[1]["modules"] == ["shims.o"]
    # Not allocated: the module loader never copies it into the kernel.
    sections = subprocess.run(["readelf", "-SW", str(obj)], stdout=subprocess.PIPE,
                              text=True, check=True).stdout
    line = next(l for l in sections.splitlines() if retrofi_census.SECTION in l)
    assert not re.search(r"\bA\b|\bWA\b|\bAX\b", line.split("PROGBITS", 1)[1]), line


def test_census_at_the_real_level_holds_only_structural_shims(tmp_path):
    compile_object(tmp_path)
    census = retrofi_census.read(str(tmp_path), ["shims.o"])
    assert census.names() == {"unaligned_h"}


def test_census_between_levels_holds_only_newer_shims(tmp_path):
    compile_object(tmp_path, api_code=retrofi_census.version_code("3.0"))
    assert retrofi_census.read(str(tmp_path), ["shims.o"]).names() == \
        {"list_last_entry", "unaligned_h"}


def test_object_without_census_section_has_no_shims(tmp_path):
    compile_object(tmp_path, source="int f(void) { return 1; }\n", name="plain")
    assert retrofi_census.elf_section(str(tmp_path / "plain.o")) is None
    assert retrofi_census.read(str(tmp_path), ["plain.o"]).modules == {"plain.o": []}


def test_census_of_a_file_that_is_not_elf_is_one_error_naming_it(tmp_path):
    (tmp_path / "x.ko").write_text("not a module\n")
    with pytest.raises(RetrofiError) as e:
        retrofi_census.read(str(tmp_path), ["x.ko"])
    assert "not an ELF file" in e.value.what and e.value.where.endswith("x.ko")


def test_malformed_census_record_is_refused():
    with pytest.raises(RetrofiError) as e:
        retrofi_census.parse(b"list_last_entry|3.13|sideways|x\0", where="m.ko")
    assert "malformed census record" in e.value.what and e.value.where == "m.ko"
    with pytest.raises(RetrofiError):
        retrofi_census.parse(b"just a string\0")


def test_version_code_matches_the_selftest_kbuild_and_the_makefile():
    assert retrofi_census.version_code("2.6.21") == 132629
    assert retrofi_census.version_code("2.6.26") == 132634
    assert retrofi_census.version_code("4.4") == (4 << 16) + (4 << 8)
    assert retrofi_census.version_code("2.6.300") == 132863       # sub saturates
    kbuild = open(os.path.join(REPO, "tests", "compat-selftest", "Kbuild")).read()
    assert "-DRETROFI_API_CODE=132629" in kbuild
    with pytest.raises(RetrofiError) as e:
        retrofi_census.version_code("two", where="target x")
    assert "'two' is not a kernel version" in e.value.what and e.value.where == "target x"


# ---------------------------------------------------------------- the repository

def test_repository_has_40_additive_shims_from_2_6_22_to_5_10():
    cat = retrofi_census.catalog(REPO)
    lo, hi = retrofi_census.version_code("2.6.22"), retrofi_census.version_code("5.10")
    additive = [s for s in cat if s.kind == "additive"
                and lo <= retrofi_census.version_code(s.since) <= hi]
    assert len(additive) >= 40, [s.name for s in additive]
    # All of them are in force at 2.6.21 and none at 5.10.
    required = {s.name for s in retrofi_census.required(cat, "2.6.21")}
    assert {s.name for s in additive} <= required
    assert not {s.name for s in additive} & \
        {s.name for s in retrofi_census.required(cat, "5.10")}


def test_every_censused_additive_shim_has_a_selftest_case_that_checks_it_ran():
    cases = ""
    d = os.path.join(REPO, "tests", "compat-selftest")
    for f in sorted(os.listdir(d)):
        if f.endswith((".c", ".h")):
            cases += open(os.path.join(d, f)).read()
    checked = set(re.findall(r"\bT[AX]\(\s*\w+,\s*(\w+),", cases))
    # A constant that a shim (re)defines with upstream's value cannot be
    # renamed to a backport_ name the selftest could see (the preprocessor
    # expands it in every argument): a case must check its value instead.
    constants = {n for b in retrofi_api_census._blocks(REPO) for n in b.names
                 if any(re.match(rf"#\s*define\s+{n}\s+[0-9(]", l) for l in b.body)}
    valued = {n for n in constants if re.search(rf"\b{n}\s*==", cases)}
    cat = retrofi_census.catalog(REPO)
    unchecked = [s.name for s in cat if s.kind == "additive"
                 and s.name not in checked | valued]
    assert not unchecked


def test_catalog_refuses_an_unknown_kind_naming_file_and_line(tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "x.h").write_text(
        '/* x */\nRETROFI_CENSUS(foo, "3.1", "sideways", "a change");\n')
    with pytest.raises(RetrofiError) as e:
        retrofi_census.catalog(str(tmp_path))
    assert "kind 'sideways'" in e.value.what and e.value.where.endswith("x.h:2")


# ---------------------------------------------------------------- guarded blocks

def test_every_shimmed_block_of_the_repository_records_its_shims():
    # The blocks are read from the guards, not from the records: a block
    # that api-census counts as shimmed and that records nothing would be
    # invisible to the shape rows' check and the guest's census.
    blocks = retrofi_api_census._blocks(REPO)
    shimmed = [b for b in blocks if retrofi_api_census._shimmed(b)]
    assert len(shimmed) >= 40
    # Structural blocks record themselves too: only #include_next selectors,
    # helpers and guards nested in a shim do not.
    structural = [b for b in blocks if b.kind == "structural" and b.path.startswith("include/")]
    assert sum(1 for b in structural if b.names) >= 40
    assert {f"{b.path}:{b.line}" for b in structural if not b.names} == \
        {f"{b.path}:{b.line}" for b in structural if b.selector or b.nested}
    assert retrofi_api_census.check_blocks(REPO) == []
    # Every API row of a shimmed level comes from a record.
    rows = retrofi_api_census.api_census(REPO, "2.6.21")
    cat = {s.name for s in retrofi_census.catalog(REPO)}
    assert [r["api"] for r in rows if r["status"] == "shimmed" and r["api"] not in cat] == []


def compat_tree(tmp_path, files):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(re.sub(r"(?m)^ +", "", text))      # each line at column 0
    return str(tmp_path)


SHIM_H = """\
    /* foo() -- "add foo()" (v4.2). */
    #if RETROFI_API_NEED(4, 2, 0, RETROFI_HAVE_foo)
    #define foo LINUX_BACKPORT(foo)
    int foo(void);
    RETROFI_CENSUS(foo, "4.2", "probed", "add foo() (v4.2)");
    #endif /* < 4.2 */
    """


def test_a_shimmed_block_without_a_record_fails_naming_its_place(tmp_path):
    tree = compat_tree(tmp_path, {"include/linux/x.h": SHIM_H + """\
        /* bar() -- "add bar()" (v4.3). */
        #if RETROFI_API_LESS(4, 3, 0)
        #define bar() 1
        #endif /* < 4.3 */
        """})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/linux/x.h:8: additive block (< 4.3) has no RETROFI_CENSUS() record"]


def test_a_structural_block_without_a_record_fails_but_a_header_selector_needs_none(tmp_path):
    # Only real kernels show a structural shim, so no level requires its
    # record; but without one, the census would not say it is in force.
    header = """\
        #if !RETROFI_LINUX_LESS(4, 4, 0)
        #include_next <linux/baz.h>
        #endif
        /* baz() -- "add baz()" (v4.4). */
        #if RETROFI_LINUX_LESS(4, 4, 0)
        #define baz() 2
        #endif /* < 4.4 */
        """
    tree = compat_tree(tmp_path, {"include/linux/baz.h": header})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/linux/baz.h:5: structural block (< 4.4) has no RETROFI_CENSUS() record"]
    recorded = header.replace("#define baz() 2\n", '#define baz() 2\n'
                              'RETROFI_CENSUS(baz, "4.4", "structural", "add baz() (v4.4)");\n')
    tree = compat_tree(tmp_path / "b", {"include/linux/baz.h": recorded})
    assert retrofi_api_census.check_blocks(tree) == []
    # A header chosen by the preprocessor, recorded in its #if branch.
    by_header = """\
        #if RETROFI_LINUX_LESS(6, 4, 10) && !__has_include_next("net/gso.h")
        #include <linux/skbuff.h>
        RETROFI_CENSUS(net_gso_h, "6.4.10", "structural", "move gso (v6.5)");
        #else
        #include_next <net/gso.h>
        #endif /* < 6.4.10 */
        """
    tree = compat_tree(tmp_path / "c", {"include/net/gso.h": by_header})
    assert retrofi_api_census.check_blocks(tree) == []


def test_a_config_record_counts_only_in_the_if_branch_of_a_tree_option():
    # KUnit's built-in part: no version decides it, the tree's option does
    # (include/retrofi/kunit.h). Its records sit in that option's #if.
    assert {s.name for s in retrofi_census.catalog(REPO) if s.kind == "config"} >= {
        "kunit_hooks", "kunit_current_test", "kunit_module_suites"}


@pytest.mark.parametrize("text,problem", [
    ("""\
        #if IS_ENABLED(CONFIG_RETROFI_FOO)
        int foo(void);
        RETROFI_CENSUS(foo, "6.3", "config", "add foo() (v6.3)");
        #endif
        """, None),
    ("""\
        #if IS_ENABLED(CONFIG_RETROFI_FOO)
        #else
        RETROFI_CENSUS(foo, "6.3", "config", "add foo() (v6.3)");
        #endif
        """, "include/linux/foo.h:3: the record of foo is of kind config, but its innermost "
             "guard is not the #if branch of a tree option"),
    ("""\
        #if RETROFI_LINUX_LESS(6, 3, 0)
        RETROFI_CENSUS(foo, "6.3", "config", "add foo() (v6.3)");
        #endif /* < 6.3 */
        """, "include/linux/foo.h:2: the record of foo is of kind config, but its innermost "
             "guard is not the #if branch of a tree option"),
    ("""\
        #if IS_ENABLED(CONFIG_RETROFI_FOO)
        RETROFI_CENSUS(foo, "6.3", "structural", "add foo() (v6.3)");
        #endif
        """, "include/linux/foo.h:2: the record of foo sits outside every guard"),
], ids=["in-the-option", "in-its-else", "in-a-version-guard", "structural-in-the-option"])
def test_a_config_record_outside_its_option_fails_and_no_other_kind_sits_there(
        tmp_path, text, problem):
    tree = compat_tree(tmp_path, {"include/linux/foo.h": text})
    problems = retrofi_api_census.check_blocks(tree)
    if problem is None:
        assert problems == []
        assert retrofi_api_census._blocks(tree) == []
    else:
        assert any(p.startswith(problem) for p in problems), problems


def test_a_record_in_the_else_branch_of_its_guard_counts_for_nothing(tmp_path):
    # Moved to the #else, the record is compiled exactly where the shim is not.
    text = """\
        /* <net/gso.h> -- "move gso" (v6.5). */
        #if RETROFI_LINUX_LESS(6, 5, 0)
        #include <linux/skbuff.h>
        #else
        RETROFI_CENSUS(net_gso_h, "6.5", "structural", "move gso (v6.5)");
        #include_next <net/gso.h>
        #endif /* < 6.5 */
        """
    tree = compat_tree(tmp_path, {"include/net/gso.h": text})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/net/gso.h:5: the record of net_gso_h sits in a branch of the guard at "
        "line 2 that does not compile its shim",
        "include/net/gso.h:2: structural block (< 6.5) has no RETROFI_CENSUS() record"]
    # Of a negated guard, the #else is the branch that compiles the shim.
    negated = text.replace("#if RETROFI_LINUX_LESS", "#if !RETROFI_LINUX_LESS").replace(
        "#include <linux/skbuff.h>\n", "").replace("#include_next <net/gso.h>\n", "")
    negated = negated.replace("#if !RETROFI_LINUX_LESS(6, 5, 0)\n",
                              "#if !RETROFI_LINUX_LESS(6, 5, 0)\n#include_next <net/gso.h>\n")
    tree = compat_tree(tmp_path / "b", {"include/net/gso.h": negated})
    assert retrofi_api_census.check_blocks(tree) == []
    # Outside every guard, a record is compiled whether a shim is or not.
    tree = compat_tree(tmp_path / "c", {"include/net/gso.h": SHIM_H + """\
        RETROFI_CENSUS(bar, "4.3", "additive", "add bar() (v4.3)");
        """})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/net/gso.h:7: the record of bar sits outside every guard: it is compiled "
        "whether a shim is or not"]


def test_a_record_outside_the_if_not_defined_that_defines_its_name_fails(tmp_path):
    # #if !defined(X) is #ifndef X, also as one term of a conjunction.
    text = """\
        #if RETROFI_LINUX_LESS(5, 11, 0)
        #if !defined(CONFIG_LOCKDEP) && !defined(lockdep_is_held)
        extern int lockdep_is_held(const void *);
        #endif
        RETROFI_CENSUS(lockdep_is_held, "5.11", "structural", "x (v5.11)");
        #endif /* < 5.11 */
        """
    tree = compat_tree(tmp_path, {"include/linux/lockdep.h": text})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/linux/lockdep.h:1: lockdep_is_held is defined only #if "
        "!defined(lockdep_is_held), but its record sits outside that #if"]
    inside = text.replace("#endif\n        RETROFI", "RETROFI").replace(
        '"x (v5.11)");\n', '"x (v5.11)");\n        #endif\n')
    tree = compat_tree(tmp_path / "b", {"include/linux/lockdep.h": inside})
    assert retrofi_api_census.check_blocks(tree) == []
    # In that conditional's #else, it is as far outside.
    in_else = text.replace("#endif\n        RETROFI", "#else\n        RETROFI").replace(
        '"x (v5.11)");\n', '"x (v5.11)");\n        #endif\n')
    tree = compat_tree(tmp_path / "c", {"include/linux/lockdep.h": in_else})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/linux/lockdep.h:1: lockdep_is_held is defined only #if "
        "!defined(lockdep_is_held), but its record sits outside that #if"]


def test_a_guard_nested_in_a_shim_is_part_of_it_and_needs_no_record(tmp_path):
    text = """\
        /* timer_delete() -- "rename" (v6.2). */
        #if RETROFI_API_NEED(6, 2, 0, RETROFI_HAVE_timer_delete)
        static inline int backport_timer_delete(struct timer_list *t)
        {
        #if RETROFI_LINUX_LESS(6, 15, 0)
        return del_timer(t);
        #else
        return timer_delete(t);
        #endif /* < 6.15 */
        }
        RETROFI_CENSUS(timer_delete, "6.2", "probed", "rename (v6.2)");
        #endif /* < 6.2 */
        """
    tree = compat_tree(tmp_path, {"include/linux/timer.h": text})
    assert retrofi_api_census.check_blocks(tree) == []
    # Its own record, in its #else, would be compiled where it is not.
    tree = compat_tree(tmp_path / "b", {"include/linux/timer.h": text.replace(
        "return timer_delete(t);\n",
        'return timer_delete(t);\nRETROFI_CENSUS(t, "6.15", "structural", "x");\n')})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/linux/timer.h:9: the record of t sits in a branch of the guard at line 5 "
        "that does not compile its shim"]


def test_a_record_of_another_kind_or_above_its_guard_fails(tmp_path):
    tree = compat_tree(tmp_path, {"include/linux/x.h": """\
        #if RETROFI_API_LESS(4, 3, 0)
        RETROFI_CENSUS(bar, "4.3", "probed", "add bar() (v4.3)");
        RETROFI_CENSUS(qux, "4.1", "additive", "add qux() (v4.1)");
        #endif /* < 4.3 */
        """})
    got = retrofi_api_census.check_blocks(tree)
    assert "include/linux/x.h:1: bar is recorded as probed in a additive guard" in got
    assert "include/linux/x.h:1: qux (since 4.1) is recorded under a guard < 4.3, above " \
        "its version" in got
    # A record older than the only guard that carries it: no block is in
    # force up to its version.
    tree = compat_tree(tmp_path / "b", {"include/linux/x.h": """\
        #if RETROFI_API_LESS(4, 1, 0)
        RETROFI_CENSUS(qux, "4.3", "additive", "add qux() (v4.3)");
        #endif /* < 4.1 */
        """})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/linux/x.h:1: qux (since 4.3) is carried by no guard < 4.3 (newest: < 4.1)"]


def test_a_record_outside_the_ifndef_that_defines_its_name_fails(tmp_path):
    text = """\
        #if RETROFI_LINUX_LESS(6, 5, 0)
        #ifndef __counted_by
        #define __counted_by(member)
        #endif
        RETROFI_CENSUS(__counted_by, "6.5", "structural", "x (v6.5)");
        #endif /* < 6.5 */
        """
    tree = compat_tree(tmp_path, {"include/linux/c.h": text})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/linux/c.h:1: __counted_by is defined only #ifndef __counted_by, but its "
        "record sits outside that #ifndef"]
    inside = text.replace("#endif\n        RETROFI", "RETROFI").replace(
        '"x (v6.5)");\n', '"x (v6.5)");\n        #endif\n')
    tree = compat_tree(tmp_path / "b", {"include/linux/c.h": inside})
    assert retrofi_api_census.check_blocks(tree) == []


def test_a_helper_block_is_no_api_row_and_no_newer_than_its_shims(tmp_path):
    helper = """\
        /* Helpers of foo() above, not an API. */
        #if RETROFI_API_NEED(4, 2, 0, RETROFI_HAVE_foo)
        static inline int retrofi_foo_helper(void) { return 0; }
        #endif /* < 4.2 */
        """
    tree = compat_tree(tmp_path, {"include/linux/x.h": SHIM_H + helper})
    assert retrofi_api_census.check_blocks(tree) == []
    assert [r["api"] for r in retrofi_api_census.api_census(tree, "2.6.21")] == ["foo"]
    # Above the file's newest shim it would be in force where no shim is.
    tree = compat_tree(tmp_path / "b", {"include/linux/x.h": SHIM_H + helper.replace(
        "RETROFI_API_NEED(4, 2, 0, RETROFI_HAVE_foo)", "RETROFI_API_NEED(4, 9, 0, X)")})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/linux/x.h:8: helper block (< 4.9) serves no recorded probed shim of its "
        "file up to that version (newest: 4.2)"]


def test_the_overflow_helpers_are_no_api_of_4_19():
    # retrofi_size_mul()/retrofi_size_add() are compiled below 5.9 for
    # flex_array_size(); 4.19 has array_size() and struct_size() (6.5's
    # struct_size_t() and 6.7's __struct_size() are APIs of their own).
    rows = retrofi_api_census.api_census(REPO, "4.19")
    assert [r["api"] for r in rows if "array_size" in r["api"] or "struct_size" in r["api"]] \
        == ["flex_array_size", "struct_size_t", "__struct_size"]


def test_an_out_of_line_block_exports_only_what_its_header_guard_records(tmp_path):
    c_file = """\
        #include <linux/x.h>
        #if RETROFI_API_NEED(4, 2, 0, RETROFI_HAVE_foo)
        int foo(void) { return 0; }
        EXPORT_SYMBOL_GPL(foo);
        #endif /* < 4.2 */
        """
    tree = compat_tree(tmp_path, {"include/linux/x.h": SHIM_H, "compat/backport-4.2.c": c_file})
    assert retrofi_api_census.check_blocks(tree) == []
    tree = compat_tree(tmp_path / "b", {"include/linux/x.h": SHIM_H.replace(
        'RETROFI_CENSUS(foo, "4.2", "probed", "add foo() (v4.2)");\n', ""),
        "compat/backport-4.2.c": c_file})
    assert retrofi_api_census.check_blocks(tree) == [
        "include/linux/x.h:2: probed block (< 4.2) has no RETROFI_CENSUS() record",
        "compat/backport-4.2.c:2: exports foo, which no header block with the guard "
        "'#if RETROFI_API_NEED(4, 2, 0, RETROFI_HAVE_foo)' records"]


def test_an_out_of_line_block_of_a_header_chosen_by_the_preprocessor_pairs_by_its_macro(tmp_path):
    # In a .c file __has_include_next() finds the compat header itself: the
    # header says with a macro that its shim is in force.
    header = """\
        #if RETROFI_LINUX_LESS(7, 1, 0) && !__has_include_next(<crypto/c.h>)
        #define RETROFI_C_LIBRARY 1
        #define c_init LINUX_BACKPORT(c_init)
        int c_init(void);
        RETROFI_CENSUS(c_init, "7.1", "structural", "add c (v7.1)");
        #else
        #include_next <crypto/c.h>
        #endif /* < 7.1 */
        """
    c_file = """\
        #include <crypto/c.h>
        #if RETROFI_LINUX_LESS(7, 1, 0) && defined(RETROFI_C_LIBRARY)
        int c_init(void) { return 0; }
        EXPORT_SYMBOL_GPL(c_init);
        #endif /* < 7.1 */
        """
    tree = compat_tree(tmp_path, {"include/crypto/c.h": header, "compat/backport-7.1.c": c_file})
    assert retrofi_api_census.check_blocks(tree) == []
    # A macro the header does not define in its shim pairs with nothing.
    tree = compat_tree(tmp_path / "b", {"include/crypto/c.h": header, "compat/backport-7.1.c":
                                        c_file.replace("RETROFI_C_LIBRARY", "RETROFI_OTHER")})
    assert retrofi_api_census.check_blocks(tree) == [
        "compat/backport-7.1.c:2: compiles c_init, but no header block with the guard "
        "'#if RETROFI_LINUX_LESS(7, 1, 0) && defined(RETROFI_OTHER)' records a shim"]


# ---------------------------------------------------------------- the docs' table

def test_the_docs_census_table_is_what_the_compat_layer_says():
    page = open(os.path.join(REPO, retrofi_api_census.DOC)).read()
    levels, start, end = retrofi_api_census.doc_section(page)
    assert levels == ["2.6.21", "3.10", "4.19"]
    assert page[start:end] == retrofi_api_census.markdown_levels(REPO, levels) + "\n\n", \
        f"{retrofi_api_census.DOC}'s census table is out of date: run make api-census-docs"


def test_update_doc_rewrites_only_the_census_section(tmp_path):
    page = tmp_path / "compat.md"
    begin = "<!-- api-census LEVEL=2.6.24,4.4: written by make api-census-docs, do not edit -->"
    page.write_text(f"# x\n\nbefore\n{begin}\n- stale\n<!-- end of api-census -->\nafter\n")
    (tmp_path / "include" / "linux").mkdir(parents=True)
    (tmp_path / "include" / "linux" / "x.h").write_text(API_H)
    assert retrofi_api_census.update_doc(str(page), str(tmp_path))
    text = page.read_text()
    assert text.startswith(f"# x\n\nbefore\n{begin}\n- 2.6.24: 2 shimmed, 1 structural\n")
    assert text.endswith("\n\n<!-- end of api-census -->\nafter\n")
    assert not retrofi_api_census.update_doc(str(page), str(tmp_path))
    page.write_text("no markers\n")
    with pytest.raises(RetrofiError) as e:
        retrofi_api_census.update_doc(str(page), str(tmp_path))
    assert "no census section" in e.value.what and e.value.where == str(page)


# ---------------------------------------------------------------- shape rows

def shape_target(level):
    return retrofi_matrix.Target(name=level, kind="shape", default=False, base="6.1",
                                 api_level=level)


def built(tmp_path, api_code):
    """A 'built tree': include/ with the catalog, one module with a census."""
    inc = tmp_path / "tree" / "include"
    inc.mkdir(parents=True)
    (inc / "shims.h").write_text(SHIMS_C)
    compile_object(tmp_path, api_code=api_code)
    os.replace(tmp_path / "shims.o", tmp_path / "tree" / "stack.ko")
    tree = str(tmp_path / "tree")
    census = retrofi_census.read(tree, ["stack.ko"])
    return BuildResult("6.1", True, tree, "log", 1.0, (), ("stack.ko",), census=census)


def test_shape_row_whose_modules_lack_a_required_shim_fails_naming_it(tmp_path):
    # Built at 3.0, but the row shows 2.6.21: list_first_entry (2.6.22) is missing.
    b = built(tmp_path, retrofi_census.version_code("3.0"))
    row = retrofi_report.Row("2.6.21", "shape", "ok", "not run")
    retrofi_run._census(shape_target("2.6.21"), b, row)
    assert row.build == "fail" and not row.ok
    assert "list_first_entry" in row.reason and "list_last_entry" not in row.reason
    assert [s["name"] for s in row.shims] == ["list_last_entry", "unaligned_h"]


def test_shape_row_with_every_required_shim_passes_and_says_it_is_a_shape(tmp_path):
    b = built(tmp_path, retrofi_census.version_code("2.6.21"))
    row = retrofi_report.Row("2.6.21", "shape", "ok", "not run")
    retrofi_run._census(shape_target("2.6.21"), b, row)
    assert row.build == "ok" and not row.reason
    assert row.notes == ["shape: the API of 2.6.21 on 6.1, 3 shims in force"]
    # The census survives the report's JSON.
    (back,) = retrofi_report.from_json(retrofi_report.to_json([row]))
    assert [s["name"] for s in back.shims] == ["list_first_entry", "list_last_entry",
                                               "unaligned_h"]


# ---------------------------------------------------------------- make api-census

API_H = textwrap.dedent("""\
    /*
     * list_last_entry() -- "list: introduce list_last_entry()" (v3.13).
     */
    #if RETROFI_API_LESS(3, 13, 0)
    RETROFI_CENSUS(list_last_entry, "3.13", "additive", "list: introduce list_last_entry()");
    #endif /* < 3.13 */

    /*
     * class_create(name) -- "driver core: class: remove module * from
     * class_create()" (v6.4) dropped the owner argument.
     */
    #if RETROFI_LINUX_LESS(6, 4, 0)
    #define class_create(name) x
    #endif /* < 6.4 */

    /*
     * x509_load_certificate_list() -- exported by "wifi: cfg80211: ..." (v6.3).
     */
    #if RETROFI_API_NEED(6, 3, 0, RETROFI_HAVE_x)
    #endif /* < 6.3 */

    /* list_first_entry() -- compat-2.6.22.h */
    #if RETROFI_API_LESS(2, 6, 22)
    RETROFI_CENSUS(list_first_entry, "2.6.22", "additive", "compat-2.6.22.h");
    #endif /* < 2.6.22 */
    """)


def test_api_census_marks_newer_apis_shimmed_or_structural(tmp_path):
    (tmp_path / "include" / "linux").mkdir(parents=True)
    (tmp_path / "include" / "linux" / "x.h").write_text(API_H)
    rows = retrofi_api_census.api_census(str(tmp_path), "2.6.24")
    got = [(r["api"], r["since"], r["kind"], r["status"]) for r in rows]
    assert got == [("list_last_entry", "3.13", "additive", "shimmed"),
                   ("x509_load_certificate_list()", "6.3", "probed", "shimmed"),
                   ("class_create(name)", "6.4", "structural", "structural")]
    assert rows[2]["change"].startswith('"driver core: class: remove module *')
    assert rows[0]["where"] == "include/linux/x.h:4"
    # Older than every API: all of them, the 2.6.22 one included.
    assert len(retrofi_api_census.api_census(str(tmp_path), "2.6.21")) == 4
    text = retrofi_api_census.markdown(rows, "2.6.24")
    assert text.splitlines()[0] == \
        "API census at 2.6.24: 2 shimmed, 1 structural (3 APIs newer than 2.6.24)"


def test_make_api_census_needs_a_level_and_prints_the_repository_table():
    p = subprocess.run(["make", "-s", "-C", REPO, "api-census"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert p.returncode != 0 and "fix: e.g. make api-census LEVEL=2.6.21" in p.stdout
    p = subprocess.run(["make", "-s", "-C", REPO, "api-census", "LEVEL=2.6.21"],
                       stdout=subprocess.PIPE, text=True, check=True)
    assert "| `skb_put_data` | 4.13 | additive | shimmed |" in p.stdout
    assert "| `list_first_entry` | 2.6.22 | additive | shimmed |" in p.stdout


# The guest test shims_in_force_are_in_the_installed_modules (tests/guest/init),
# run here on the host against a stand-in module directory: it must accept
# exactly the census the build read, and fail on any difference.
def guest_census_check(tmp_path, updates, census_text):
    init = open(os.path.join(REPO, "tests", "guest", "init")).read()
    start = init.index("shims_in_force_are_in_the_installed_modules() {")
    body = init[start:init.index("\n}\n", start) + 3]
    (tmp_path / "census").write_text(census_text)
    script = textwrap.dedent("""\
        fail() { echo "$*"; exit 1; }
        modinfo() { [ "$1" = -n ] && echo "$UPDATES/$2.ko"; }
        """) + body + "set -eu\nshims_in_force_are_in_the_installed_modules\n"
    env = dict(os.environ, UPDATES=str(updates), RETROFI_CENSUS=str(tmp_path / "census"))
    return subprocess.run(["sh", "-c", script], env=env, cwd=tmp_path, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


STACK = ("compat", "cfg80211", "mac80211", "mac80211_hwsim", "ath", "ath9k", "ath9k_hw",
         "ath9k_common", "ath5k")


def installed_stack(tmp_path, api_code=None, leave_out=(), extra=None):
    """The stack's 9 modules under tmp_path/updates: mac80211.ko compiled
    from SHIMS_C at api_code (None: with no shim, like the others), extra
    (a C source) as ath9k.ko, and the rest plain; leave_out: modules not
    installed. Returns (updates, the census the build would read)."""
    updates = tmp_path / "updates"
    compile_object(tmp_path, source="int retrofi_plain(void) { return 1; }\n", name="plain")
    if api_code is not None:
        compile_object(tmp_path, api_code=api_code)
    if extra is not None:
        compile_object(tmp_path, source=extra, name="extra")
    rels = []
    for m in STACK:
        if m in leave_out:
            continue
        src = "shims.o" if m == "mac80211" and api_code is not None else \
            "extra.o" if m == "ath9k" and extra is not None else "plain.o"
        rel = os.path.join("net" if m in ("compat", "cfg80211", "mac80211") else "drivers", m + ".ko")
        (updates / os.path.dirname(rel)).mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / src, updates / rel)
        rels.append(rel)
    return updates, retrofi_census.read(str(updates), rels).guest_lines()


def test_guest_census_check_accepts_exactly_the_build_census(tmp_path):
    updates, text = installed_stack(tmp_path, api_code=retrofi_census.version_code("2.6.21"))
    assert text.splitlines()[0] == "mac80211.ko list_first_entry|2.6.22|additive|compat-2.6.22.h"
    ok = guest_census_check(tmp_path, updates, text)
    assert ok.returncode == 0, ok.stdout
    assert "3 shims in force, 3 records in 1 modules, as the build read them, " \
        "in 9 installed modules" in ok.stdout
    # A shim the build saw that the installed module lacks fails, and so
    # does a record the installed module carries that the build did not see.
    more = text + "mac80211.ko list_next_entry|2.6.22|additive|x\n"
    bad = guest_census_check(tmp_path, updates, more)
    assert bad.returncode != 0 and "-mac80211.ko list_next_entry" in bad.stdout, bad.stdout
    fewer = "".join(text.splitlines(True)[1:])
    bad = guest_census_check(tmp_path, updates, fewer)
    assert bad.returncode != 0 and "+mac80211.ko list_first_entry" in bad.stdout, bad.stdout


def test_guest_census_check_reads_a_record_whose_since_is_a_bound(tmp_path):
    # A record whose release is not verified carries a bound ("LOW..HIGH"):
    # the guest must read it back like an exact release, or every row
    # with such a shim in force fails its census check.
    record = "lockdep_assert_in_softirq|5.10.262..6.1.170|structural|a change"
    extra = ('asm(".pushsection .comment.retrofi_census,\\"\\",@progbits\\n\\t"\n'
             f'    ".asciz \\"{record}\\"\\n\\t.popsection");\n')
    updates, text = installed_stack(tmp_path, extra=extra)
    assert text == f"ath9k.ko {record}\n"
    ok = guest_census_check(tmp_path, updates, text)
    assert ok.returncode == 0, ok.stdout
    assert "1 shims in force, 1 records in 1 modules" in ok.stdout, ok.stdout


def test_guest_census_check_fails_without_the_updates_directory(tmp_path):
    # An empty census and no modules to read would compare equal.
    bad = guest_census_check(tmp_path, tmp_path / "no-updates", "")
    assert bad.returncode != 0, bad.stdout
    assert f"no {tmp_path / 'no-updates'}: the backported modules are not installed" \
        in bad.stdout


def test_guest_census_check_fails_unless_all_9_stack_modules_are_installed(tmp_path):
    # The guest's list is the initramfs's: the modules it installs.
    init = open(os.path.join(REPO, "tests", "guest", "init")).read()
    stack = re.search(r'^\tstack="([^"]*)"$', init, re.M).group(1).split()
    assert tuple(stack) == retrofi_initramfs.STACK_MODULES == STACK
    updates, text = installed_stack(tmp_path, leave_out=("ath5k", "ath9k_common"))
    assert text == ""
    bad = guest_census_check(tmp_path, updates, text)
    assert bad.returncode != 0, bad.stdout
    assert "not in " + str(updates) + ": ath9k_common.ko ath5k.ko (of the stack's 9 modules)" \
        in bad.stdout


def test_guest_census_check_on_the_identity_row_refuses_a_backport_symbol(tmp_path):
    # 6.12: no shim in force, and none compiled: 9 modules, no records.
    updates, text = installed_stack(tmp_path)
    ok = guest_census_check(tmp_path, updates, text)
    assert ok.returncode == 0, ok.stdout
    assert "0 shims in force, 0 records in 0 modules, as the build read them, " \
        "in 9 installed modules" in ok.stdout
    # A shim compiled in without its record: the census is empty, but the
    # module calls a backport_ function.
    stray = "int backport_kfree_skb_reason(void) { return 0; }\n"
    updates, text = installed_stack(tmp_path / "stray", extra=stray)
    assert text == ""
    bad = guest_census_check(tmp_path, updates, text)
    assert bad.returncode != 0, bad.stdout
    assert "ath9k.ko carries backport_ symbols (backport_kfree_skb_reason ), but the census " \
        "says no shim is in force" in bad.stdout


def test_the_guest_reads_every_kind_of_census_record():
    """shims_in_force_are_in_the_installed_modules (tests/guest/init) finds
    the records in the installed modules by their kind: a kind it does not
    know would be in the build's census and never found (the 7.3 row with
    the tree's KUnit, whose records are of kind config)."""
    init = open(os.path.join(REPO, "tests", "guest", "init"), encoding="utf-8").read()
    (kinds,) = re.findall(r'^\trecord="\^.*\[\|\]\(([a-z|]+)\)\[\|\]"$', init, re.M)
    assert sorted(kinds.split("|")) == sorted(retrofi_census.KINDS)


def test_shape_row_requires_only_the_shims_of_headers_its_objects_include(tmp_path):
    """Kbuild's dependency lists (.<object>.o.cmd) say which files each
    object included: a shim of a header no object of the build includes
    (that of a driver the shape does not build) cannot leave the base's own
    API in use, so the row does not require it; once an object includes
    the header, the shim it lacks fails the row again."""
    b = built(tmp_path, retrofi_census.version_code("3.0"))
    tree = tmp_path / "tree"
    cmd = tree / ".stack.o.cmd"
    cmd.write_text(f"deps_stack.o := \\\n  {tree}/stack.c \\\n  /usr/src/linux/include/linux/list.h \\\n")
    assert retrofi_census.included_files(str(tree)) == {"stack.c"}
    # The compat selftest, built in the tree after an earlier run's census,
    # includes what it tests: not the build's objects.
    selftest = tree / ".retrofi-selftest"
    selftest.mkdir()
    (selftest / ".retrofi_selftest.o.cmd").write_text(
        f"deps_retrofi_selftest.o := \\\n  {tree}/include/shims.h \\\n")
    assert retrofi_census.included_files(str(tree)) == {"stack.c"}
    row = retrofi_report.Row("2.6.21", "shape", "ok", "not run")
    retrofi_run._census(shape_target("2.6.21"), b, row)
    assert row.build == "ok" and not row.reason
    assert any("not required: their headers are in no object of this build" in n
               for n in row.notes), row.notes
    cmd.write_text(f"deps_stack.o := \\\n  {tree}/stack.c \\\n  {tree}/include/shims.h \\\n")
    row = retrofi_report.Row("2.6.21", "shape", "ok", "not run")
    retrofi_run._census(shape_target("2.6.21"), b, row)
    assert row.build == "fail" and "list_first_entry" in row.reason


def test_a_tree_without_dependency_lists_requires_every_shim(tmp_path):
    assert retrofi_census.included_files(str(tmp_path)) is None
