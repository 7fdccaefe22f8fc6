"""The fault campaign: bad input and faults of the machine, end to end,
through the CLI (scripts/retrofi.py) as a user runs it.

Every case ends in one clear error (`retrofi: error: <where>: <what>` and
a `fix:` line) and a non-zero exit; it writes nothing half-done; and the
previous good output (an output tree, a report, a cache entry) stays
byte-identical.  An interrupted run is followed by a rerun that succeeds
and reuses what was complete.

Corruption happens only in a "farm": a private cache (RETROFI_CACHE) whose
unpacked trees are symlinks to the shared cache's and whose packages are
hard links, replaced (never written through) when a test damages one.
The build and boot cases use the shared cache on purpose: the 6.12 stack
they finish building is the one the runner tests reuse (the build stage
caches by content), so on an empty cache the campaign adds no full build
of its own.  When the shared cache already holds that build complete, the
build cases run in a farm instead (one extra build, and the shared build is
left alone); the boot cases then use the shared one.

CASES lists every case of the campaign, including those proven end to end
by other test files; the table of docs/faults.md is made from it and from
the first error line each test here saw (RETROFI_FAULT_TABLE=FILE writes
the table; test_the_docs_fault_table_shows_what_the_user_sees keeps the
page truthful).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import textwrap
import time

import pytest

import retrofi_apt
import retrofi_build
import retrofi_kernels
import retrofi_matrix
import retrofi_pins
from conftest import CLI, PYTHON, REPO, lts_matrix, lts_source, require_root, run_cli
from faultcheck import CASES, assert_one_error, normalise as _normalise, snapshot as _snapshot
from faultcheck import DOC as FAULT_DOC

# The campaign runs on the long-term source's stack (SOURCE=): the 6.12
# build it finishes is the one the runner tests reuse.
UNREACHABLE = {"RETROFI_MIRROR": "http://127.0.0.1:9/debian",
               "RETROFI_SECURITY_MIRROR": "http://127.0.0.1:9/debian-security",
               "SOURCE": lts_source()}
# The first error line each case here produced, normalised (see _normalise).
SEEN = {}


# ---------------------------------------------------------------- the table

def _table(seen):
    rows = ["| case | what the user sees (the message's first line) | test |", "|---|---|---|"]
    for case, test, message in CASES:
        key = message[1:] if message and message.startswith("@") else \
            None if message else test.split("::", 1)[1]
        message = seen.get(key, "(not run)") if key else message
        message = message.replace("|", "\\|")
        rows.append(f"| {case} | `{message}` | `{test}` |")
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------- helpers

def _expect_error(key, p, what, code=1, stream="stderr"):
    """p ended in one clear error containing `what`, with a fix; recorded as
    the message of case `key` (a test name)."""
    line = assert_one_error(p, what, code=code, stream=stream)
    SEEN[key] = _normalise(line)
    return line


def _foreground_signals():
    """SIGINT and SIGQUIT as a terminal's foreground job has them: a shell
    starts its background jobs with both ignored and children keep that, so
    without this a CI that starts pytest with `&` would make every ctrl-c
    case fail for how it was started."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


class Run:
    """The CLI started in the background in its own process group, as a
    terminal runs a foreground job; stdout and stderr go to files."""

    def __init__(self, tmp, name, *args, env=None):
        e = dict(os.environ)
        e.update(env or {})
        self.out, self.err = tmp / f"{name}.stdout", tmp / f"{name}.stderr"
        with open(self.out, "w") as o, open(self.err, "w") as r:
            self.p = subprocess.Popen([PYTHON, CLI, *args], env=e, cwd=REPO, stdout=o, stderr=r,
                                      start_new_session=True, preexec_fn=_foreground_signals)

    @property
    def stdout(self):
        return self.out.read_text(errors="replace")

    @property
    def stderr(self):
        return self.err.read_text(errors="replace")

    def wait_until(self, check, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            if self.p.poll() is not None:
                pytest.fail(f"the run ended before {what}:\n{self.stdout[-3000:]}\n{self.stderr[-3000:]}")
            time.sleep(0.05)
        self.signal(signal.SIGKILL)
        pytest.fail(f"no {what} within {timeout} s:\n{self.stdout[-3000:]}")

    def wait_for_line(self, text, timeout):
        self.wait_until(lambda: text in self.stdout, timeout, repr(text))

    def signal(self, sig):
        """As the terminal does: to the whole foreground process group."""
        try:
            os.killpg(self.p.pid, sig)
        except ProcessLookupError:
            pass

    def finish(self, timeout):
        try:
            self.returncode = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            pytest.fail(f"still running after {timeout} s:\n{self.stdout[-3000:]}")
        return self


def _private_matrix(dst):
    """A copy of the matrix file, its lock and the config fragments it names
    in dst (both are found relative to the matrix file)."""
    os.makedirs(dst, exist_ok=True)
    for n in ("kernel-matrix.yaml", "kernel-matrix.lock"):
        shutil.copy(os.path.join(REPO, n), os.path.join(dst, n))
    shutil.copytree(os.path.join(REPO, "kernel-configs"), os.path.join(dst, "kernel-configs"),
                    dirs_exist_ok=True)
    return os.path.join(dst, "kernel-matrix.yaml")


def _defaults_through(name):
    """The default real targets up to name, in matrix order: what a farm
    links so that `kernels` reaches the next one first (the one a case
    damages or interrupts) and unpacks nothing before it."""
    names = [t.name for t in retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml")).select()
             if t.kind == "real"]
    return tuple(names[:names.index(name) + 1])


def _farm(dst, targets=("6.12", "6.1"), source="link", apt=False, spatch=True):
    """A private cache: the shared cache's unpacked trees by symlink (never
    written: only trees not linked are ever unpacked here), its packages by
    hard link, its spatch results by hard link (entries are replaced by
    rename, never written in place), its apt state copied."""
    real = retrofi_kernels.cache_dir()
    for sub in ("source", "targets", "debs"):
        os.makedirs(os.path.join(dst, sub))
    for d in os.listdir(os.path.join(real, "source")):
        if d.startswith("."):
            continue
        if source == "link":
            os.symlink(os.path.join(real, "source", d), os.path.join(dst, "source", d))
        else:
            subprocess.run(["cp", "-al", os.path.join(real, "source", d),
                            os.path.join(dst, "source", d)], check=True)
    for t in targets:
        os.symlink(os.path.join(real, "targets", t), os.path.join(dst, "targets", t))
    for f in os.listdir(os.path.join(real, "debs")):
        if f.endswith(".deb"):
            os.link(os.path.join(real, "debs", f), os.path.join(dst, "debs", f))
    if apt:
        shutil.copytree(os.path.join(real, "apt"), os.path.join(dst, "apt"), symlinks=True)
    if spatch and os.path.isdir(os.path.join(real, "spatch")):
        subprocess.run(["cp", "-al", os.path.join(real, "spatch"), os.path.join(dst, "spatch")],
                       check=True)
    return str(dst)


def _replace(path, data):
    """Write a file of the farm without writing through its hard link."""
    os.unlink(path)
    with open(path, "wb") as f:
        f.write(data)


def _kbuild_deb(cache, target="6.1"):
    lock = json.load(open(os.path.join(REPO, "kernel-matrix.lock")))["entries"]
    pin = next(p for p in lock[f"target:{target}"]["packages"] if p["name"].startswith("linux-kbuild-"))
    return os.path.join(cache, "debs", os.path.basename(pin["filename"])), pin


@pytest.fixture(scope="module")
def good_out(fetched, tmp_path_factory):
    """An output directory holding a good generated tree.  Generating it
    also fills the shared spatch cache, which the farms then link to."""
    out = tmp_path_factory.mktemp("good-out")
    p = run_cli("generate", "--out", str(out), env=UNREACHABLE)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    return out


# ---------------------------------------------------------------- matrix file

BAD_MATRICES = {
    "malformed-yaml": (lambda t: t.replace("  - name: \"6.1\"\n", "  - name: \"6.1\n", 1),
                       "malformed YAML"),
    "duplicate-target": (lambda t: t.replace('name: "6.1"', 'name: "6.12"', 1),
                         "duplicate target name '6.12'"),
    "shape-unknown-base": (lambda t: t.rstrip("\n") + "\n" + textwrap.indent(textwrap.dedent("""\
        - name: shape-2.6.26
          kind: shape
          default: false
          base: "4.19"
          api_level: "2.6.26"
        """), "  "), "shape target 'shape-2.6.26' has base '4.19', which is not a real target"),
}


@pytest.mark.network
@pytest.mark.parametrize("case", list(BAD_MATRICES))
def test_bad_matrix_file_is_one_error(case, good_out, tmp_path):
    edit, what = BAD_MATRICES[case]
    matrix = _private_matrix(tmp_path)
    text = open(matrix).read()
    assert edit(text) != text, "the matrix file no longer has what this case edits"
    with open(matrix, "w") as f:
        f.write(edit(text))
    lock = open(os.path.join(tmp_path, "kernel-matrix.lock"), "rb").read()
    before = _snapshot(good_out)
    p = run_cli("--matrix", matrix, "matrix", "--no-boot", "--out", str(good_out))
    line = _expect_error(f"test_bad_matrix_file_is_one_error[{case}]", p, what)
    assert line.startswith(f"retrofi: error: {matrix}:")
    assert _snapshot(good_out) == before
    assert open(os.path.join(tmp_path, "kernel-matrix.lock"), "rb").read() == lock


# ---------------------------------------------------------------- kernel supply

def test_an_unreadable_lock_file_is_one_error(tmp_path):
    matrix = _private_matrix(tmp_path)
    lock = os.path.join(tmp_path, "kernel-matrix.lock")
    with open(lock, "w") as f:
        f.write('{"version": 1, "entries": {')      # a write that stopped half-way
    p = run_cli("--matrix", matrix, "kernels", env=dict(UNREACHABLE, RETROFI_CACHE=str(tmp_path / "c")))
    _expect_error("test_an_unreadable_lock_file_is_one_error", p, "cannot read the lock file")
    assert "kernels-update" in p.stderr
    assert open(lock).read() == '{"version": 1, "entries": {'


@pytest.mark.network
def test_a_corrupt_cached_deb_is_named_and_fetched_again(fetched, tmp_path):
    cache = _farm(tmp_path / "cache", targets=_defaults_through("5.10"), apt=True)
    matrix = _private_matrix(tmp_path)
    lock = open(os.path.join(tmp_path, "kernel-matrix.lock"), "rb").read()
    deb, pin = _kbuild_deb(cache)
    data = bytearray(open(deb, "rb").read())
    data[len(data) // 2] ^= 0x40                   # one flipped bit, same size
    _replace(deb, bytes(data))
    env = {"RETROFI_CACHE": cache}

    p = run_cli("--matrix", matrix, "kernels", "--verify", env=env)
    line = _expect_error("test_a_corrupt_cached_deb_is_named_and_fetched_again", p,
                         f"{os.path.basename(deb)}: sha256 mismatch")
    assert "make kernels" in p.stderr and line.count("mismatch") == 1

    p = run_cli("--matrix", matrix, "kernels", env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    said = next(l for l in p.stdout.splitlines() if "corrupt or truncated" in l)
    SEEN["fetched-again"] = _normalise(said)
    assert os.path.basename(deb) in said and f"downloading {pin['name']}" in p.stdout
    assert retrofi_apt.sha256_file(deb) == pin["sha256"]
    assert run_cli("--matrix", matrix, "kernels", "--verify", env=env).returncode == 0
    assert open(os.path.join(tmp_path, "kernel-matrix.lock"), "rb").read() == lock
    assert [f for f in os.listdir(os.path.join(cache, "debs")) if f.startswith(".")] == []


@pytest.mark.network
def test_a_truncated_deb_with_the_archive_unreachable_is_one_error(fetched, tmp_path):
    cache = _farm(tmp_path / "cache", targets=_defaults_through("6.1"), apt=True)
    matrix = _private_matrix(tmp_path)
    lock = open(os.path.join(tmp_path, "kernel-matrix.lock"), "rb").read()
    deb, pin = _kbuild_deb(cache)
    _replace(deb, open(deb, "rb").read()[: pin["size"] // 3])
    targets = sorted(os.listdir(os.path.join(cache, "targets")))
    p = run_cli("--matrix", matrix, "kernels", env=dict(UNREACHABLE, RETROFI_CACHE=cache))
    _expect_error("test_a_truncated_deb_with_the_archive_unreachable_is_one_error", p,
                  f"cannot download {pin['name']} {pin['version']} (the cached copy was corrupt "
                  f"or truncated): cannot fetch the package lists")
    assert f"{os.path.basename(deb)}: corrupt or truncated" in p.stdout
    assert open(os.path.join(tmp_path, "kernel-matrix.lock"), "rb").read() == lock
    assert sorted(os.listdir(os.path.join(cache, "targets"))) == targets
    assert [f for f in os.listdir(os.path.join(cache, "debs")) if f.startswith(".")] == []


@pytest.mark.network
def test_a_pin_the_archive_dropped_says_to_move_the_pins(fetched, tmp_path):
    linked = _defaults_through("6.12")
    cache = _farm(tmp_path / "cache", targets=linked, apt=True)
    matrix = _private_matrix(tmp_path)
    lockfile = os.path.join(tmp_path, "kernel-matrix.lock")
    data = json.load(open(lockfile))
    pin = next(p for p in data["entries"]["target:6.1"]["packages"]
               if p["name"].startswith("linux-kbuild-"))
    pin["version"] = "6.1.0-0retrofi.gone"
    pin["filename"] = pin["filename"].rsplit("/", 1)[0] + f"/{pin['name']}_gone_amd64.deb"
    with open(lockfile, "w") as f:
        json.dump(data, f, indent=2, sort_keys=True)
    lock = open(lockfile, "rb").read()
    p = run_cli("--matrix", matrix, "kernels", env={"RETROFI_CACHE": cache})
    _expect_error("test_a_pin_the_archive_dropped_says_to_move_the_pins", p,
                  f"pinned package {pin['name']}=6.1.0-0retrofi.gone is no longer available")
    assert "make kernels-update" in p.stderr
    assert open(lockfile, "rb").read() == lock
    assert sorted(os.listdir(os.path.join(cache, "targets"))) == sorted(linked)
    assert [f for f in os.listdir(os.path.join(cache, "debs")) if f.startswith(".")] == []


@pytest.mark.network
def test_ctrl_c_while_unpacking_a_target_keeps_nothing_half_unpacked(fetched, tmp_path):
    linked = _defaults_through("6.12")
    cache = _farm(tmp_path / "cache", targets=linked, apt=True)
    matrix = _private_matrix(tmp_path)
    env = dict(UNREACHABLE, RETROFI_CACHE=cache)
    parent = os.path.join(cache, "targets")

    def unpacking():
        tmp = [d for d in os.listdir(parent) if d.startswith(".tmp-6.1-")]
        return tmp and os.path.isdir(os.path.join(parent, tmp[0], "root", "usr"))
    run = Run(tmp_path, "kernels", "--matrix", matrix, "kernels", env=env)
    run.wait_for_line("unpacking target 6.1", 120)
    run.wait_until(unpacking, 60, "a half-unpacked target")
    run.signal(signal.SIGINT)
    run.finish(60)
    assert run.returncode == 130, run.stderr
    assert "retrofi: interrupted; nothing half-written was kept" in run.stderr
    SEEN["test_ctrl_c_while_unpacking_a_target_keeps_nothing_half_unpacked"] = \
        run.stderr.strip().splitlines()[-1]
    assert "Traceback" not in run.stderr
    assert sorted(os.listdir(parent)) == sorted(linked)
    # The rerun finishes the job offline: the packages were complete.
    p = run_cli("--matrix", matrix, "kernels", env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    assert "unpacking target 6.1" in p.stdout and "downloading" not in p.stdout
    reals = {t.name for t in retrofi_matrix.load(matrix).targets if t.default and t.kind == "real"}
    assert set(os.listdir(parent)) == reals and "6.1" in reals
    assert os.path.isfile(os.path.join(parent, "6.1", "stamp.json"))


# ---------------------------------------------------------------- generate

def _spatch_entries(cache):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(cache, "spatch")) for f in fs)


@pytest.fixture
def gen_farm(good_out, tmp_path_factory):
    """A farm (source linked) and an output directory with a good tree from it."""
    top = tmp_path_factory.mktemp("gen")
    cache = _farm(top / "cache", targets=())
    out = top / "out"
    p = run_cli("generate", "--out", str(out), env=dict(UNREACHABLE, RETROFI_CACHE=cache))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    return cache, out


def _forget_spatch_results(cache, n):
    """Drop n results from the farm's spatch cache: the next generate runs
    spatch for them (a window to interrupt it in)."""
    for path in _spatch_entries(cache)[::7][:n]:
        os.unlink(path)


def _interrupt_generate(tmp_path, cache, out, sig):
    _forget_spatch_results(cache, 60)
    known = len(_spatch_entries(cache))
    run = Run(tmp_path, "generate", "generate", "--out", str(out),
              env=dict(UNREACHABLE, RETROFI_CACHE=cache))
    run.wait_until(lambda: [n for n in os.listdir(out) if n.startswith(".tmp-retrofi-")]
                   and len(_spatch_entries(cache)) > known, 120,
                   "a temporary tree and a new spatch result")
    run.signal(sig)
    return run.finish(60)


@pytest.mark.network
def test_ctrl_c_during_generate_keeps_the_previous_tree(gen_farm, tmp_path):
    cache, out = gen_farm
    before = _snapshot(out)
    run = _interrupt_generate(tmp_path, cache, out, signal.SIGINT)
    assert run.returncode == 130, run.stdout[-2000:] + run.stderr
    assert "retrofi: interrupted; nothing half-written was kept" in run.stderr
    assert "Traceback" not in run.stderr
    SEEN["test_ctrl_c_during_generate_keeps_the_previous_tree"] = run.stderr.strip().splitlines()[-1]
    assert _snapshot(out) == before, "no temporary tree left, the previous one untouched"


@pytest.mark.network
def test_a_killed_generate_keeps_the_previous_tree_and_the_rerun_cleans_up(gen_farm, tmp_path):
    cache, out = gen_farm
    before = _snapshot(out)
    tree = next(k for k in before if k.endswith("/") and k.count("/") == 1)
    run = _interrupt_generate(tmp_path, cache, out, signal.SIGKILL)
    assert run.returncode == -signal.SIGKILL
    left = _snapshot(out)
    assert {k: v for k, v in left.items() if k.startswith(tree)} == \
        {k: v for k, v in before.items() if k.startswith(tree)}
    assert [k for k in left if k.count("/") <= 1 and k not in before and not k.startswith(".tmp-")] == []
    # The rerun removes what the killed run left and reuses the spatch
    # results it stored before it died.
    p = run_cli("generate", "--out", str(out), env=dict(UNREACHABLE, RETROFI_CACHE=cache))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    runs = int(re.search(r"spatch cache \d+ hits/(\d+) runs", p.stdout).group(1))
    assert runs < 60, p.stdout[-500:]
    assert sorted(k for k in _snapshot(out) if k.count("/") <= 1 and k.endswith("/")) == [tree]


@pytest.fixture(scope="module")
def source_farm(good_out, tmp_path_factory):
    """A farm whose source tree is a hard-link copy (files to be replaced or
    removed, never written through), and an output directory with a good
    tree from it."""
    top = tmp_path_factory.mktemp("srcfarm")
    cache = _farm(top / "cache", targets=(), source="copy")
    out = top / "out"
    env = dict(UNREACHABLE, RETROFI_CACHE=cache)
    p = run_cli("generate", "--out", str(out), env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    # The long-term source's tree, the campaign's (the cache holds others too).
    m = lts_matrix()
    pin = retrofi_pins.load_lock(os.path.join(REPO, "kernel-matrix.lock"))[m.source.key]["packages"][0]
    tree = os.path.join(cache, "source", f"{pin['name']}_{pin['version']}")
    src = os.path.join(tree, json.load(open(os.path.join(tree, "stamp.json")))["tree"])
    return env, out, src


@pytest.mark.network
def test_a_rule_that_no_longer_matches_stops_generation(source_farm):
    """Upstream renamed platform_driver.remove_new back to .remove (v6.13):
    on such a source, the rule that rewrites .remove_new matches nothing."""
    env, out, src = source_farm
    rule = "0100-platform-remove-new"
    assert os.path.exists(os.path.join(REPO, "semantic-patches", rule + ".cocci"))
    hits = subprocess.run(["grep", "-rl", "--include=*.c", r"\.remove_new = ",
                           os.path.join(src, "drivers/net/wireless/ath")],
                          stdout=subprocess.PIPE, text=True).stdout.split()
    assert hits, "the source no longer has what this case edits"
    saved = {}
    before = _snapshot(out)
    try:
        for path in hits:
            saved[path] = open(path, "rb").read()
            _replace(path, saved[path].replace(b".remove_new = ", b".remove = "))
        p = run_cli("generate", "--out", str(out), env=env)
    finally:
        for path, data in saved.items():
            _replace(path, data)
    _expect_error("test_a_rule_that_no_longer_matches_stops_generation", p,
                  f"rule(s) declared must-match: yes matched nothing: {rule}")
    assert "make refresh" in p.stderr
    assert _snapshot(out) == before


@pytest.mark.network
def test_a_vanished_copy_list_path_stops_generation(source_farm):
    env, out, src = source_farm
    lines = open(os.path.join(REPO, "drivers", "copy-list")).read().splitlines()
    number, line = next((n, l) for n, l in enumerate(lines, 1) if l.startswith("file "))
    gone = os.path.join(src, line.split()[1])
    before = _snapshot(out)
    os.rename(gone, gone + ".moved")
    try:
        p = run_cli("generate", "--out", str(out), env=env)
    finally:
        os.rename(gone + ".moved", gone)
    _expect_error("test_a_vanished_copy_list_path_stops_generation", p,
                  "the source tree lacks what the copy list names")
    assert f"drivers/copy-list:{number}: file {line.split()[1]}" in p.stderr
    assert _snapshot(out) == before


@pytest.mark.network
def test_a_missing_spatch_is_one_error(good_out, tmp_path):
    before = _snapshot(good_out)
    p = run_cli("generate", "--out", str(good_out),
                env=dict(UNREACHABLE, RETROFI_SPATCH=str(tmp_path / "no-spatch")))
    _expect_error("test_a_missing_spatch_is_one_error", p, "cannot run spatch")
    assert "apt-get install coccinelle" in p.stderr
    assert _snapshot(good_out) == before


# ---------------------------------------------------------------- disk

def _mount_tmpfs(path, size):
    require_root("mount a tmpfs")
    os.makedirs(path, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, f"root, yet a tmpfs cannot be mounted: {p.stdout}"


def _umount(path):
    subprocess.run(["umount", str(path)], check=True)


def _tree_kib(out):
    return int(subprocess.run(["du", "-sk", str(out)], stdout=subprocess.PIPE, text=True,
                              check=True).stdout.split()[0])


@pytest.mark.root
@pytest.mark.network
def test_a_read_only_output_directory_keeps_the_previous_tree(good_out, tmp_path):
    ro = tmp_path / "ro"
    _mount_tmpfs(ro, f"{_tree_kib(good_out) * 3}k")
    try:
        p = run_cli("generate", "--out", str(ro), env=UNREACHABLE)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr
        before = _snapshot(ro)
        subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
        p = run_cli("generate", "--out", str(ro), env=UNREACHABLE)
        _expect_error("test_a_read_only_output_directory_keeps_the_previous_tree", p,
                      "output directory is not writable (Read-only file system)")
        assert _snapshot(ro) == before
    finally:
        _umount(ro)


@pytest.mark.root
@pytest.mark.network
def test_a_full_output_directory_keeps_the_previous_tree(good_out, tmp_path):
    small = tmp_path / "small"
    _mount_tmpfs(small, f"{_tree_kib(good_out) * 3 // 2}k")     # one tree fits, not two
    try:
        p = run_cli("generate", "--out", str(small), env=UNREACHABLE)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr
        before = _snapshot(small)
        p = run_cli("generate", "--out", str(small), env=UNREACHABLE)
        _expect_error("test_a_full_output_directory_keeps_the_previous_tree", p,
                      "no space left on device while writing the output tree; "
                      "previous output left intact")
        assert _snapshot(small) == before
    finally:
        _umount(small)


@pytest.mark.root
@pytest.mark.network
def test_a_full_build_cache_is_one_error(good_out, tmp_path):
    cache = _farm(tmp_path / "cache", targets=("6.12",))
    build = tmp_path / "cache" / "build"
    _mount_tmpfs(build, "2m")           # the output tree does not fit
    try:
        p = run_cli("matrix", "--no-boot", "--targets", "6.12", "--out", str(tmp_path / "out"),
                    env=dict(UNREACHABLE, RETROFI_CACHE=cache))
        _expect_error("test_a_full_build_cache_is_one_error", p,
                      f"{build}: the disk is full (building target 6.12)", stream="stdout")
        assert "RETROFI_CACHE" in p.stdout
        assert sorted(os.listdir(build)) == [".6.12-src6.12.lock"], "no half copy left"
        report = json.load(open(tmp_path / "out" / "report" / "report.json"))
        assert [(r["target"], r["build"]) for r in report["targets"]] == [("6.12", "fail")]
    finally:
        _umount(build)


# ---------------------------------------------------------------- signals and threads

def test_a_signal_a_worker_thread_receives_still_interrupts_the_waiting_main_thread():
    """The kernel may hand a terminal's Ctrl-C to any thread of the run;
    CPython runs the handler only in the main thread, once it runs Python
    code again. The matrix's main thread waits on its targets' futures:
    that wait must notice the signal within a second, not when the
    target's build ends (as_completed() would block until then)."""
    import concurrent.futures
    import threading
    import retrofi_interrupt

    waiting, release = threading.Event(), threading.Event()
    sent = []

    def target():
        # The signal goes to this thread once the main thread waits.
        waiting.wait(30)
        time.sleep(0.3)
        sent.append(time.monotonic())
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        release.wait(30)
        return "finished"

    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            fut = pool.submit(target)
            try:
                with pytest.raises(KeyboardInterrupt):
                    waiting.set()
                    for _ in retrofi_interrupt.completed([fut]):
                        pass
                noticed = time.monotonic()
            finally:
                release.set()
        assert fut.result() == "finished"
    finally:
        signal.signal(signal.SIGINT, old)
    assert sent, "the signal was sent"
    assert noticed - sent[0] < 5, \
        f"the main thread noticed the signal only after {noticed - sent[0]:.1f} s"


def test_an_interrupted_matrix_starts_none_of_its_queued_rows(tmp_path, monkeypatch):
    """Ctrl-C during a sweep ends it: the rows already running end, and the
    rows still queued never start (each would start a build only to be
    stopped, and print a failure of its own)."""
    import types
    import retrofi_generate
    import retrofi_kbuild
    import retrofi_kernels
    import retrofi_matrix
    import retrofi_report
    import retrofi_run

    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    rows = [t for t in m.select(["sweep-all"]) if t.flavour == "amd64"][:6]
    kernels = retrofi_kernels.Kernels(source=None, targets={t.name: object() for t in rows})
    monkeypatch.setattr(retrofi_kernels, "fetch", lambda *a, **k: kernels)
    monkeypatch.setattr(retrofi_run, "refusal", lambda kernel: "")
    monkeypatch.setattr(retrofi_kbuild, "add_built", lambda *a, **k: None)
    monkeypatch.setattr(retrofi_generate, "generate",
                        lambda *a, **k: types.SimpleNamespace(summary=lambda: "", out_path="t"))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    started = []

    def run_target(target, *_args):
        started.append(target.name)
        if len(started) == 1:
            time.sleep(0.2)
            raise KeyboardInterrupt
        time.sleep(2)
        return retrofi_report.Row(target.name, target.kind, "ok", "not run")
    monkeypatch.setattr(retrofi_run, "run_target", run_target)
    with pytest.raises(KeyboardInterrupt):
        retrofi_run.run(m, [t.name for t in rows], out_dir=str(tmp_path), boot=False)
    # Two workers: the interrupted row, the one beside it, and the one the
    # first worker took before the main thread saw the interrupt.
    assert started == [t.name for t in rows[:3]], started


# ---------------------------------------------------------------- build and boot
#
# These run in order on the shared cache: an interrupted build, a killed
# one, two concurrent runs that finish it (the build the runner tests
# reuse), then an interrupted boot, a killed one and its rerun.

@pytest.fixture(scope="module")
def chain(good_out, tmp_path_factory):
    """An output directory with a good tree (the previous good output)."""
    out = tmp_path_factory.mktemp("chain") / "out"
    p = run_cli("generate", "--out", str(out), env=UNREACHABLE)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    return {"out": out, "tmp": tmp_path_factory.mktemp("chain-runs")}


def _cache_for_a_fresh_build(chain):
    """The environment of the build cases: the shared cache when its build
    of the 6.12 stack this checkout generates is not complete yet (then the
    build they finish is the one the runner tests reuse), else a farm, so
    that the interrupted builds really build and the shared cache's
    complete build is left alone."""
    p = run_cli("generate", "--out", str(chain["out"]), env=UNREACHABLE)
    assert p.returncode == 0, p.stderr
    tree = p.stdout.strip().splitlines()[-1].split()[1].rstrip(":")
    kernel = retrofi_kernels.fetch(retrofi_matrix.load(
        os.path.join(REPO, "kernel-matrix.yaml")), ["6.12"], with_source=False).targets["6.12"]
    final = retrofi_build.build_dir(tree, kernel)
    if not os.path.exists(os.path.join(final, retrofi_build.STAMP)):
        return dict(UNREACHABLE)
    return dict(UNREACHABLE, RETROFI_CACHE=_farm(chain["tmp"] / "cache", targets=("6.12",)))


def _said_build_dir(run):
    m = re.search(r"^\[build\] 6\.12: (?:building|resuming the unfinished build) in (\S+)$",
                  run.stdout, re.M)
    return m and m.group(1)


def _objects(build):
    """Finished objects (an object with its .cmd) -> mtime."""
    out = {}
    for d, _, files in os.walk(build):
        for f in files:
            if f.endswith(".o") and not f.endswith(".mod.o") and f".{f}.cmd" in files:
                out[os.path.join(d, f)] = os.stat(os.path.join(d, f)).st_mtime_ns
    return out


def _no_staging_left(out):
    return [n for n in os.listdir(out) if n.startswith(".report.partial-")] == []


@pytest.mark.network
def test_ctrl_c_during_the_build_keeps_no_half_report(chain):
    env = chain["env"] = _cache_for_a_fresh_build(chain)
    out = chain["out"]
    tree_before = _snapshot(out)
    run = Run(chain["tmp"], "build-int", "matrix", "--no-boot", "--targets", "6.12",
              "--out", str(out), env=env)
    run.wait_until(lambda: _said_build_dir(run), 300, "the build starting")
    final = chain["final"] = _said_build_dir(run)
    run.wait_until(lambda: len(_objects(final)) >= 3, 600, "three compiled objects")
    # Objects finished well before the interrupt are reused by the rerun
    # (those of its last SUSPECT_SECONDS are made again).
    early = chain["early"] = _objects(final)
    quiet = max(early.values()) + (retrofi_build.SUSPECT_SECONDS + 5) * 10**9
    run.wait_until(lambda: time.time_ns() > quiet, retrofi_build.SUSPECT_SECONDS + 60,
                   "the end of the suspect window")
    run.signal(signal.SIGINT)
    run.finish(60)
    assert run.returncode == 130, run.stdout[-3000:] + run.stderr
    assert "retrofi: interrupted; nothing half-written was kept" in run.stderr
    assert "Traceback" not in run.stderr
    SEEN["test_ctrl_c_during_the_build_keeps_no_half_report"] = run.stderr.strip().splitlines()[-1]
    assert not os.path.exists(os.path.join(final, retrofi_build.STAMP))
    assert not os.path.exists(out / "report") and _no_staging_left(out)
    assert _snapshot(out) == tree_before
    assert [c for c in os.listdir(os.path.dirname(final)) if c.startswith(".copy-6.12-")] == []


@pytest.mark.network
def test_a_killed_build_is_never_taken_for_complete(chain):
    final, out = chain["final"], chain["out"]
    run = Run(chain["tmp"], "build-kill", "matrix", "--no-boot", "--targets", "6.12",
              "--out", str(out), env=chain["env"])
    run.wait_for_line(f"[build] 6.12: resuming the unfinished build in {final}", 120)
    done = len(_objects(final))
    run.wait_until(lambda: len(_objects(final)) >= done + 2, 600, "two more objects")
    run.signal(signal.SIGKILL)
    run.finish(30)
    assert run.returncode == -signal.SIGKILL
    assert not os.path.exists(os.path.join(final, retrofi_build.STAMP))
    assert not os.path.exists(out / "report")


@pytest.mark.network
def test_two_concurrent_matrix_runs_share_one_build(chain):
    """Both finish; one resumes the killed build, the other waits for it
    and reuses it; what the earlier runs compiled is not compiled again."""
    final, out, early = chain["final"], chain["out"], chain["early"]
    runs = [Run(chain["tmp"], f"concurrent-{i}", "matrix", "--no-boot", "--targets", "6.12",
                "--out", str(out), env=chain["env"]) for i in (1, 2)]
    for r in runs:
        r.finish(1800)
    for r in runs:
        assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
        assert "Traceback" not in r.stderr
    said = [r.stdout for r in runs]
    resumed = [s for s in said if "[build] 6.12: resuming the unfinished build" in s]
    waited = [s for s in said if "[build] 6.12: waiting for another retrofi run" in s]
    assert len(resumed) == 1 and len(waited) == 1, said
    # The line docs/faults.md quotes: the wait for the build itself. Before it,
    # the waiting run may also have waited a moment for the lock of the
    # build's directory name (<cache>/build/.6.12-src6.12.lock), when both
    # runs got there at once.
    line = next(l for l in waited[0].splitlines()
                if "[build] 6.12: waiting for another retrofi run" in l)
    SEEN["test_two_concurrent_matrix_runs_share_one_build"] = _normalise(line)
    assert "build 6.12: ok" in resumed[0] and "[6.12] build 6.12: ok" in waited[0]
    assert "cached" in next(l for l in waited[0].splitlines() if "build 6.12: ok" in l)
    kept = {p: m for p, m in _objects(final).items() if p in early}
    assert kept == early, "objects finished well before the interrupt were not made again"
    assert os.path.isfile(os.path.join(final, retrofi_build.STAMP))
    report = json.load(open(out / "report" / "report.json"))
    assert [(r["target"], r["build"], r["boot"]) for r in report["targets"]] == \
        [("6.12", "ok", "not run")]
    assert os.path.isfile(report["targets"][0]["logs"]["build"])
    assert _no_staging_left(out)


def _qemu_children(pid):
    """QEMU processes among the descendants of pid."""
    import retrofi_interrupt
    out = []
    for child in retrofi_interrupt._descendants(pid):
        try:
            if open(f"/proc/{child}/comm").read().startswith("qemu-system"):
                out.append(child)
        except OSError:
            pass
    return out


def _alive(pid):
    try:
        return open(f"/proc/{pid}/stat").read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def _boot_run(chain, name, sig):
    out = chain["out"]
    # --rerun: a boot of the same inputs stored by an earlier test or run
    # would stand for the boot, and there would be no QEMU to stop.
    run = Run(chain["tmp"], name, "matrix", "--targets", "6.12", "--out", str(out), "--rerun",
              env=dict(UNREACHABLE, RETROFI_ACCEL="tcg"))
    qemu = []

    def started():
        qemu[:] = _qemu_children(run.p.pid)
        return qemu
    run.wait_until(started, 900, "QEMU")
    time.sleep(3)
    run.signal(sig)
    signalled = time.monotonic()
    run.finish(120)
    run.stop_seconds = time.monotonic() - signalled
    return run, qemu


@pytest.mark.network
def test_ctrl_c_during_the_boot_stops_qemu_and_keeps_the_report(chain):
    out = chain["out"]
    before = _snapshot(out)
    run, qemu = _boot_run(chain, "boot-int", signal.SIGINT)
    assert run.returncode == 130, run.stdout[-3000:] + run.stderr
    # At once: not after the guest's tests (a minute) or the boot timeout.
    assert run.stop_seconds < 15, run.stop_seconds
    assert "retrofi: interrupted; nothing half-written was kept" in run.stderr
    assert "Traceback" not in run.stderr
    SEEN["test_ctrl_c_during_the_boot_stops_qemu_and_keeps_the_report"] = \
        run.stderr.strip().splitlines()[-1]
    assert not any(_alive(q) for q in qemu), "QEMU stopped with the run"
    assert _snapshot(out) == before, "the previous report and its logs are untouched"


@pytest.mark.network
def test_a_killed_boot_leaves_no_qemu_and_its_rerun_passes(chain):
    """SIGKILL during the boot: QEMU dies with the run (PR_SET_PDEATHSIG),
    the previous report stays, and the rerun boots again and passes: what
    the killed run left does not damage it."""
    out = chain["out"]
    before = _snapshot(out / "report")
    run, qemu = _boot_run(chain, "boot-kill", signal.SIGKILL)
    assert run.returncode == -signal.SIGKILL
    # QEMU gets SIGKILL when the run dies; give the kernel a moment to
    # deliver it.
    deadline = time.monotonic() + 10
    while any(_alive(q) for q in qemu) and time.monotonic() < deadline:
        time.sleep(0.2)
    orphans = [q for q in qemu if _alive(q)]
    for q in orphans:                   # this test's own QEMU, by its pid
        os.kill(q, signal.SIGKILL)
    assert orphans == [], "QEMU outlived the killed run"
    assert _snapshot(out / "report") == before
    p = run_cli("matrix", "--targets", "6.12", "--out", str(out), "--rerun",
                env=dict(UNREACHABLE, RETROFI_ACCEL="tcg"))
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    report = json.load(open(out / "report" / "report.json"))
    (row,) = report["targets"]
    assert (row["build"], row["boot"], row["ok"], row["boot_reused"]) == \
        ("ok", "pass", True, ""), row
    assert row["tests"], "the guest ran its tests"
    assert open(row["logs"]["console"], errors="replace").read().count("KTAP version") >= 1
    assert _no_staging_left(out), "the killed run's partial report was removed"


@pytest.mark.network
def test_missing_qemu_is_one_error_before_any_build(chain, tmp_path):
    out = chain["out"]
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for d in os.environ["PATH"].split(":"):
        if os.path.isdir(d):
            for n in os.listdir(d):
                if not n.startswith("qemu-system") and not (bindir / n).exists():
                    os.symlink(os.path.join(d, n), bindir / n)
    before = _snapshot(out)
    env = dict(os.environ, PATH=str(bindir), **UNREACHABLE)
    env.pop("RETROFI_ACCEL", None)
    p = subprocess.run([PYTHON, CLI, "matrix", "--targets", "6.12", "--out", str(out)], env=env,
                       cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _expect_error("test_missing_qemu_is_one_error_before_any_build", p,
                  "qemu-system-x86_64 not found")
    assert "apt-get install qemu-system-x86" in p.stderr
    assert "build against" not in p.stdout
    assert _snapshot(out) == before


# ---------------------------------------------------------------- the table

def test_the_docs_fault_table_shows_what_the_user_sees():
    """The table of docs/faults.md names every case and, for those this run
    saw, the message the user saw."""
    table = _table(SEEN)
    where = os.environ.get("RETROFI_FAULT_TABLE")
    if where:
        with open(where, "w") as f:
            f.write(table)
    page = open(os.path.join(REPO, FAULT_DOC)).read()
    for case, test, _ in CASES:
        key = test.split("::", 1)[1]
        row = next((l for l in table.splitlines() if l.startswith(f"| {case} |")), None)
        assert row is not None
        if key in SEEN or not test.startswith("test_faults.py"):
            assert row in page, f"{FAULT_DOC}'s fault table differs for {case!r}:\n{row}"
        else:
            assert f"| {case} |" in page and f"`{test}` |" in page, case


def test_every_line_the_table_quotes_from_another_file_is_checked_by_its_test():
    """A row proven in another file quotes a line that file's test checks
    against its real output (faultcheck.saw); "(...)" rows print nothing."""
    import ast
    for case, test, message in CASES:
        path, name = test.split("::", 1)
        if path == "test_faults.py" or message.startswith("("):
            continue
        tree = ast.parse(open(os.path.join(REPO, "tests", "scripts", path)).read())
        (fn,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name.split("[")[0]]
        # saw(test, line), or a helper given case=test that calls it.
        calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)]
        named = [c for c in calls
                 if getattr(c.func, "id", getattr(c.func, "attr", "")) == "saw" and c.args
                 and isinstance(c.args[0], ast.Constant) and c.args[0].value == test
                 or any(k.arg == "case" and isinstance(k.value, ast.Constant)
                        and k.value.value == test for k in c.keywords)]
        assert named, \
            f"{test} does not pass its output to saw({test!r}, ...): the table's line for " \
            f"{case!r} would be unchecked"

