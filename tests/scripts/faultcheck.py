"""The fault campaign's shared checks (tests/scripts/test_faults.py and
the fault cases proven in other files).

Every fault case ends in one clear error naming the thing and the fix, a
non-zero exit and nothing partial: assert_one_error() checks the first
two, snapshot()/tree_state() the last.  CASES is the campaign's table
(docs/faults.md's table); a case proven in another file passes the
line its run printed to saw(), so the table quotes real output.
"""

import hashlib
import json
import os
import re

import retrofi_kernels
from conftest import REPO

DOC = "docs/faults.md"  # the page whose table CASES is

# (case, test, first line of what the user sees).  None: the line
# test_faults.py's test saw as it ran ("@key": saw under that key).  A line
# given here for a test in another file is what that test saw: it passes
# its real line to saw(), which fails unless the line matches (see
# row_pattern).  "(...)" rows describe a case that prints nothing.
CASES = [
    ("matrix file: malformed YAML", "test_faults.py::test_bad_matrix_file_is_one_error[malformed-yaml]", None),
    ("matrix file: unknown key", "test_matrix.py::test_cli_reports_schema_errors_in_one_message",
     "retrofi: error: <tmp>/kernel-matrix.yaml:<n>: unknown key 'abl' in targets[1]"),
    ("matrix file: duplicate target names", "test_faults.py::test_bad_matrix_file_is_one_error[duplicate-target]", None),
    ("matrix file: shape with an unknown base", "test_faults.py::test_bad_matrix_file_is_one_error[shape-unknown-base]", None),
    ("matrix: unknown target name", "test_matrix_run.py::test_unknown_target_is_refused_before_any_work",
     "retrofi: error: <repo>/kernel-matrix.yaml: unknown target '9.9'"),
    ("lock file unreadable", "test_faults.py::test_an_unreadable_lock_file_is_one_error", None),
    ("cached .deb corrupt (kernels --verify)", "test_faults.py::test_a_corrupt_cached_deb_is_named_and_fetched_again", None),
    ("cached .deb corrupt (kernels: fetched again, exit 0)", "test_faults.py::test_a_corrupt_cached_deb_is_named_and_fetched_again",
     "@fetched-again"),
    ("cached .deb truncated, archive unreachable", "test_faults.py::test_a_truncated_deb_with_the_archive_unreachable_is_one_error", None),
    ("a pin the archive dropped", "test_faults.py::test_a_pin_the_archive_dropped_says_to_move_the_pins", None),
    ("archive unreachable, cold cache", "test_kernels.py::test_unreachable_mirror_is_one_clear_error",
     "retrofi: error: <tmp>/c/apt/bookworm-security: cannot fetch the package lists for suites bookworm-security: ..."),
    ("archive unreachable, warm cache (nothing to fetch: succeeds offline)",
     "test_kernels.py::test_second_run_is_a_no_op_without_network",
     "[kernels] all <n> kernels present, unpacked trees match the lock file; nothing to do (<n> s)"),
    ("cache directory not writable", "test_kernels.py::test_unwritable_cache_is_refused",
     "retrofi: error: <tmp>/file/cache: cache directory is not writable (Not a directory)"),
    ("cache disk full before any download", "test_kernels.py::test_full_disk_is_refused_before_anything_is_written",
     "retrofi: error: <tmp>/small: not enough free space for the package lists: <n> MiB free, 200 MiB needed"),
    ("output directory read-only", "test_faults.py::test_a_read_only_output_directory_keeps_the_previous_tree", None),
    ("output directory full", "test_faults.py::test_a_full_output_directory_keeps_the_previous_tree", None),
    ("build cache full", "test_faults.py::test_a_full_build_cache_is_one_error", None),
    ("SIGINT during kernels", "test_faults.py::test_ctrl_c_while_unpacking_a_target_keeps_nothing_half_unpacked", None),
    ("SIGKILL during kernels", "test_kernels.py::test_run_killed_while_unpacking_leaves_nothing_taken_for_complete",
     "(killed: no message; the rerun unpacks again and succeeds)"),
    ("SIGINT during generate", "test_faults.py::test_ctrl_c_during_generate_keeps_the_previous_tree", None),
    ("SIGKILL during generate", "test_faults.py::test_a_killed_generate_keeps_the_previous_tree_and_the_rerun_cleans_up",
     "(killed: no message; the rerun removes the temporary tree and reuses the spatch results)"),
    ("source moved: a must-match rule matches nothing", "test_faults.py::test_a_rule_that_no_longer_matches_stops_generation", None),
    ("source moved: a copy-list path vanished", "test_faults.py::test_a_vanished_copy_list_path_stops_generation", None),
    ("spatch missing", "test_faults.py::test_a_missing_spatch_is_one_error", None),
    ("SIGINT during build", "test_faults.py::test_ctrl_c_during_the_build_keeps_no_half_report", None),
    ("SIGKILL during build", "test_faults.py::test_a_killed_build_is_never_taken_for_complete",
     "(killed: no message; the rerun resumes the build)"),
    ("two concurrent matrix runs on one cache", "test_faults.py::test_two_concurrent_matrix_runs_share_one_build", None),
    ("SIGINT during boot", "test_faults.py::test_ctrl_c_during_the_boot_stops_qemu_and_keeps_the_report", None),
    ("SIGKILL during boot", "test_faults.py::test_a_killed_boot_leaves_no_qemu_and_its_rerun_passes",
     "(killed: no message; QEMU dies with its parent (PR_SET_PDEATHSIG); the rerun boots again and passes)"),
    ("QEMU missing", "test_faults.py::test_missing_qemu_is_one_error_before_any_build", None),
    ("guest hangs", "test_boot.py::test_a_guest_that_hangs_ends_as_timeout",
     "target 6.12: TIMEOUT (guest did not power off before the timeout (<KTAP summary>)) in <n> s [tcg]; console log: <log>"),
    ("guest panics", "test_boot.py::test_a_guest_that_dies_before_its_plan_fails",
     "target 6.12: FAIL (guest died early: 1 of 3 results; kernel splat: panic at line <n>: Kernel panic - not syncing: "
     "Attempted to kill init! exitcode=...; Call Trace at line <n>: Call Trace:) in <n> s [tcg]; console log: <tmp>/dies_early.log"),
    ("guest WARN", "test_boot.py::test_a_test_module_that_warns_fails_the_target_with_the_splat_quoted",
     "target 6.12: FAIL (kernel splat: WARNING at line <n>: WARNING: CPU: <n> PID: <n> at <tmp>/warn/retrofi_warn.c:<n> "
     "retrofi_warn_init+...; Call Trace at line <n>: Call Trace:) in <n> s [tcg]; console log: <tmp>/warns.log"),
    ("KVM cannot boot a guest (auto: TCG is chosen, and why)",
     "test_accel.py::test_kvm_that_cannot_boot_a_guest_is_not_chosen",
     "accel: tcg (<why KVM failed its probe boot, quoted from the console>)"),
    ("KVM forced (RETROFI_ACCEL=kvm) but cannot boot a guest",
     "test_accel.py::test_forced_kvm_that_cannot_boot_is_one_clear_error",
     "retrofi: error: <qemu>: RETROFI_ACCEL=kvm, but KVM cannot boot a guest here: ..."),
    ("KVM faults during a boot (rerun once under TCG)",
     "test_matrix_run.py::test_matrix_finishes_under_tcg_when_kvm_faults_after_its_probe",
     "6.12: rerun under tcg: <the fault, quoted from the console>"),
    ("build: KLIB is not a kernel build tree", "test_output_tree.py::test_missing_klib_is_one_clear_error",
     "retrofi: error: <tmp>/nope: no kernel build tree (Makefile missing)"),
    ("build: KLIB not configured", "test_output_tree.py::test_unconfigured_headers_are_refused",
     "retrofi: error: <tmp>: not a configured kernel build tree (.config or include/generated missing)"),
    ("build: cfg80211 built in", "test_output_tree.py::test_built_in_cfg80211_target_is_refused",
     "retrofi: error: <klib>: the target kernel has cfg80211 built in (CONFIG_CFG80211=y)"),
    ("build: kernel older than supported", "test_output_tree.py::test_too_old_kernel_is_refused",
     "retrofi: error: <klib>: kernel 5.4 is older than <RETROFI_MIN_KERNEL>, the oldest this tree supports"),
    ("build: unknown defconfig", "test_output_tree.py::test_unknown_defconfig_is_refused",
     "retrofi: error: unknown defconfig 'nosuch'"),
    ("build: bad API_LEVEL", "test_output_tree.py::test_bad_api_level_is_refused",
     "retrofi: error: API_LEVEL=two.six is not a kernel version"),
    ("build: the compiler the headers name is not installed (5.10's gcc-10 on bookworm)",
     "test_output_tree.py::test_a_compiler_the_headers_name_but_the_host_lacks_is_named_with_the_fix",
     "retrofi: error: <klib>: gcc-10 is not installed: the compiler the target's headers name (CC=gcc-10 in their Makefile)"),
]


def normalise(line):
    """A message line without the parts that differ between runs (paths,
    versions, line numbers of files other engineers edit)."""
    line = line.replace(retrofi_kernels.cache_dir(), "<cache>").replace(REPO, "<repo>")
    line = re.sub(r"(kernel-matrix\.yaml:)\d+", r"\1<n>", line)
    line = re.sub(r"first at line \d+", "first at line <n>", line)
    line = re.sub(r"(copy-list:)\d+: (file|dir) \S+", r"\1<n>: \2 <path>", line)
    line = re.sub(r"/tmp/pytest-of-[^/]+/pytest-\d+/[^/\s:]+", "<tmp>", line)
    line = re.sub(r"(build/[^/\s]+-)[0-9a-f]{16}", r"\1<key>", line)
    line = re.sub(r"\bpid\d+\b|partial-\d+", "<pid>", line)
    line = re.sub(r"(cannot fetch the package lists for suites [^:]*): .*", r"\1: ...", line)
    pins = [p for e in json.load(open(os.path.join(REPO, "kernel-matrix.lock")))["entries"].values()
            for p in e["packages"]]
    for pin in pins:
        line = line.replace(os.path.basename(pin["filename"]), f"{pin['name']}_<version>.deb")
    for version in sorted({p["version"] for p in pins}, key=len, reverse=True):
        line = line.replace(version, "<version>")
    return line


def row_pattern(message):
    """A CASES line as a regex over a normalised line: "..." stands for
    anything, <n> for a number, any other <placeholder> for some text."""
    out = ""
    for part in re.split(r"(\.\.\.|<[^<>]+>)", message):
        if part == "...":
            out += ".*"
        elif part == "<n>":
            out += r"(?:<n>|\d+(?:\.\d+)?)"
        elif part.startswith("<") and part.endswith(">"):
            out += ".+?"
        else:
            out += re.escape(part)
    return out


def saw(test, line):
    """A case proven outside test_faults.py printed line: it must be what
    its CASES row says the user sees."""
    (row,) = [r for r in CASES if r[1] == test]
    message = row[2]
    assert message and message[0] not in "@(", f"{test}: its row quotes no line"
    got = normalise(line.strip())
    assert re.fullmatch(row_pattern(message), got), \
        f"{DOC}'s fault table says {message!r}, the run printed {got!r}"


ERROR = "retrofi: error:"


def assert_one_error(p, what, fix=None, code=None, stream=None):
    """p (a CompletedProcess) ended in one clear error: a non-zero exit (code,
    if given), no traceback, one distinct `retrofi: error:` line, which
    contains what, with a `fix:` line (containing fix, if given) right
    after it.  stream: "stdout" or "stderr" (default: both).  Returns the
    error line (from `retrofi: error:` on)."""
    out, err = p.stdout or "", p.stderr or ""
    text = {"stdout": out, "stderr": err}.get(stream, out + err)
    assert p.returncode != 0, f"exit 0:\n{out[-3000:]}\n{err[-3000:]}"
    if code is not None:
        assert p.returncode == code, f"exit {p.returncode}, not {code}:\n{out[-3000:]}\n{err[-3000:]}"
    assert "Traceback" not in out + err, err[-3000:]
    lines = text.splitlines()
    errors = [i for i, l in enumerate(lines) if ERROR in l]
    assert errors, f"no '{ERROR}' line:\n{text[-3000:]}"
    distinct = {lines[i][lines[i].index(ERROR):] for i in errors}
    assert len(distinct) == 1, f"more than one error:\n{text[-3000:]}"
    first = lines[errors[0]][lines[errors[0]].index(ERROR):]
    assert what in first, first
    fixes = [l.strip() for l in lines[errors[0] + 1:errors[0] + 6] if l.strip().startswith("fix: ")]
    assert fixes, f"no 'fix:' line after the error:\n{text[-3000:]}"
    if fix is not None:
        assert fix in fixes[0], fixes[0]
    return first


def snapshot(top):
    """Every entry under top (hidden ones too) with its content digest."""
    out = {}
    for d, dirs, files in os.walk(top):
        for n in dirs:
            out[os.path.relpath(os.path.join(d, n), top) + "/"] = "dir"
        for n in files:
            path = os.path.join(d, n)
            with open(path, "rb") as f:
                out[os.path.relpath(path, top)] = hashlib.sha256(f.read()).hexdigest()
    return out


def tree_state(top):
    """Every entry under top with its size, mode and mtime: cheaper than
    snapshot() for a built tree; any write shows."""
    out = {}
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            st = os.lstat(os.path.join(d, n))
            out[os.path.relpath(os.path.join(d, n), top)] = (st.st_size, st.st_mode, st.st_mtime_ns)
    return out
