"""Every rule in semantic-patches/ against its test pairs.

tests/semantic-patches/<rule>/input.c + expected.c, and further cases as
<case>-input.c + <case>-expected.c. spatch runs with --sp-file <rule>
--very-quiet (plus the generator's own options) on a copy of the input,
writing to a temporary file; a mismatch fails with a unified diff.
"""

import difflib
import os
import shutil
import subprocess

import pytest

import retrofi_generate as gen

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
RULES = os.path.join(REPO, "semantic-patches")
CASES = os.path.join(REPO, "tests", "semantic-patches")


def _rules():
    return gen.load_rules(RULES)


def _cases():
    out = []
    for rule in _rules():
        d = os.path.join(CASES, rule.name)
        if not os.path.isdir(d):
            continue
        for n in sorted(os.listdir(d)):
            if n.endswith("input.c"):
                out.append(pytest.param(rule, os.path.join(d, n),
                                        id=f"{rule.name}/{n}"))
    return out


def test_every_rule_has_a_test_pair():
    missing = [r.name for r in _rules()
               if not os.path.isfile(os.path.join(CASES, r.name, "input.c"))
               or not os.path.isfile(os.path.join(CASES, r.name,
                                                  "expected.c"))]
    assert not missing, (f"rules without tests/semantic-patches/<rule>/"
                         f"input.c + expected.c: {missing}")


def test_every_test_dir_has_a_rule():
    names = {r.name for r in _rules()}
    orphans = [d for d in sorted(os.listdir(CASES)) if d not in names]
    assert not orphans, f"test pairs for rules that do not exist: {orphans}"


def test_every_rule_declares_its_upstream_change():
    for r in _rules():
        assert r.upstream and r.targets, r.path
        with open(r.path) as f:
            head = f.read(4000)
        assert "must-match:" in head and "why:" in head, r.path


def test_at_least_one_rule_must_match():
    assert any(r.must_match for r in _rules())


@pytest.mark.parametrize("rule,input_path", _cases())
def test_rule_pair(rule, input_path, tmp_path):
    expected_path = input_path[:-len("input.c")] + "expected.c"
    assert os.path.isfile(expected_path), f"{expected_path} missing"
    src = tmp_path / "in.c"
    shutil.copyfile(input_path, src)
    out = tmp_path / "out.c"
    p = subprocess.run([gen.SPATCH, "--sp-file", rule.path, "--very-quiet",
                        *[o for o in gen.SPATCH_OPTIONS
                          if o != "--very-quiet"],
                        str(src), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    if out.exists():
        got = out.read_text()
    else:
        # spatch writes no -o file when nothing changed (and exits 255).
        assert gen._NO_CHANGE_MSG in p.stdout + p.stderr, \
            f"spatch failed on {input_path}:\n{p.stdout}{p.stderr}"
        got = src.read_text()
    with open(expected_path) as f:
        want = f.read()
    if got != want:
        diff = "".join(difflib.unified_diff(
            want.splitlines(True), got.splitlines(True),
            fromfile=os.path.relpath(expected_path, REPO),
            tofile=f"spatch {rule.name} {os.path.basename(input_path)}"))
        pytest.fail(f"{rule.name} output differs from "
                    f"{os.path.relpath(expected_path, REPO)}:\n{diff}")


def test_every_probe_a_rule_tests_is_in_the_probe_list():
    """A rule's RETROFI_API_HAS(a,b,c, name) reads RETROFI_HAVE_name, which
    compat/probe.sh defines only for the names in compat/probes.list."""
    import re
    with open(os.path.join(REPO, "compat", "probes.list")) as f:
        probes = {line.split("|")[0].strip() for line in f
                  if line.strip() and not line.startswith("#")}
    used = {}
    for r in _rules():
        with open(r.path) as f:
            for name in re.findall(r"RETROFI_API_HAS\(\s*\d+\s*,\s*\d+\s*,\s*\d+\s*,"
                                   r"\s*(\w+)\s*\)", f.read()):
                used.setdefault(name, r.name)
    assert used, "no rule uses a probe (RETROFI_API_HAS)"
    missing = {n: rule for n, rule in used.items() if n not in probes}
    assert not missing, f"probes used by rules but not in compat/probes.list: {missing}"


# Each rule's main pair must also build: expected.c, carried through the
# rules after it as the generator carries every file (a later rule may own
# what an earlier one leaves for older kernels), compiled as the output
# tree compiles the stack (compat headers first, include/retrofi/version.h
# forced in, drivers/out-tree/Kbuild.cflags, the target's probes), against
# the oldest and the newest real target, and at the API level of the
# oldest shape on the oldest target (what a shape row builds): both sides
# of every version test a rule writes are C that compiles, without a
# warning, at both levels.
COMPILE_TARGETS = ("5.10", "6.12")
SHAPE_LEVEL = "2.6.21"
COMPILE_LEVELS = [("5.10", None), ("5.10", SHAPE_LEVEL), ("6.12", None)]


@pytest.fixture(scope="module")
def compile_targets(tmp_path_factory):
    """name -> (KernelTree, directory holding retrofi/probes.h for it)."""
    import retrofi_kernels
    import retrofi_matrix
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    targets = retrofi_kernels.fetch(m, names=list(COMPILE_TARGETS),
                                    with_source=False).targets
    out = {}
    for name in COMPILE_TARGETS:
        kt = targets[name]
        probes = tmp_path_factory.mktemp("probes")
        p = subprocess.run(["sh", os.path.join(REPO, "compat", "probe.sh"), kt.headers,
                            os.path.join(REPO, "compat", "probes.list"),
                            str(probes / "retrofi" / "probes.h")]
                           + ([f"CC={kt.cc}"] if kt.cc else []),
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr
        out[name] = (kt, probes)
    return out


def compile_rule_pair(rule, target, api_level, compile_targets, tmp_path, goal="rule_pair.o"):
    """Build goal (rule_pair.o or .i) of rule's expected.c, carried through
    the later rules, for target at api_level (None: the target's own)."""
    import retrofi_census
    kt, probes = compile_targets[target]
    out_tree = os.path.join(REPO, "drivers", "out-tree")
    mod = tmp_path / "mod"
    mod.mkdir(parents=True)
    src = mod / "rule_pair.c"
    shutil.copyfile(os.path.join(CASES, rule, "expected.c"), src)
    for later in [r for r in _rules() if r.name > rule]:
        out = tmp_path / f"{later.name}.c"
        subprocess.run([gen.SPATCH, "--sp-file", later.path, *gen.SPATCH_OPTIONS,
                        str(src), "-o", str(out)], capture_output=True, timeout=300)
        if out.exists():
            shutil.copyfile(out, src)
    shutil.copyfile(os.path.join(out_tree, "Kbuild.cflags"), mod / "Kbuild.cflags")
    level = (f" -DRETROFI_API_CODE={retrofi_census.version_code(api_level)}"
             if api_level else "")
    (mod / "Kbuild").write_text(
        "obj-m += rule_pair.o\n"
        f"NOSTDINC_FLAGS += -I{probes} -I{REPO}/include{level} "
        f"-I{out_tree}/include -include {out_tree}/include/retrofi/version.h\n"
        "include $(src)/Kbuild.cflags\n")
    argv = ["make", "-C", kt.headers, f"M={mod}", goal]
    if kt.cc:
        argv.append(f"CC={kt.cc}")
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    what = f"{rule}/expected.c for {target}" + (f" at API level {api_level}" if api_level else "")
    assert p.returncode == 0 and (mod / goal).exists(), \
        f"{what} does not build:\n{p.stdout[-4000:]}"
    warnings = [line for line in p.stdout.splitlines() if "warning:" in line]
    assert warnings == [], f"{what} warns:\n{p.stdout[-4000:]}"
    return (mod / goal).read_text(errors="replace") if goal.endswith(".i") else None


@pytest.mark.network
@pytest.mark.parametrize("target,api_level", COMPILE_LEVELS,
                         ids=[f"{t}" + (f"-api{a}" if a else "") for t, a in COMPILE_LEVELS])
@pytest.mark.parametrize("rule", [r.name for r in _rules()])
def test_rule_expected_output_compiles(rule, target, api_level, compile_targets, tmp_path):
    compile_rule_pair(rule, target, api_level, compile_targets, tmp_path)


# A rewrite whose old form still works on the newer kernel follows the API
# level (RETROFI_API_HAS), so a shape runs the old-kernel code on its base:
# on 6.12, which has timer_shutdown_sync(), rule 0001's expected output
# calls it at the real level and del_timer_sync() at a 2.6.21 API level.
# (Every other rule's forms follow the real version: their old forms do not
# compile, or change an ABI, on a kernel that has the new one.)
@pytest.mark.network
def test_a_rule_whose_old_form_still_works_follows_the_api_level(compile_targets, tmp_path):
    rule = "0001-timer-shutdown"
    assert rule in [r.name for r in _rules() if "RETROFI_API_HAS(" in open(r.path).read()]
    real = compile_rule_pair(rule, "6.12", None, compile_targets, tmp_path / "real", "rule_pair.i")
    shape = compile_rule_pair(rule, "6.12", SHAPE_LEVEL, compile_targets, tmp_path / "shape",
                              "rule_pair.i")
    assert "timer_shutdown_sync(" in own_lines(real) and "del_timer_sync(" not in own_lines(real)
    assert "del_timer_sync(" in own_lines(shape) and "timer_shutdown_sync(" not in own_lines(shape)


def own_lines(preprocessed):
    """The lines of a .i file that come from rule_pair.c itself (after its
    line markers), not from the headers it includes."""
    import re
    mine, out = False, []
    for line in preprocessed.splitlines():
        m = re.match(r'^# \d+ "([^"]*)"', line)
        if m:
            mine = m.group(1).endswith("rule_pair.c")
        elif mine:
            out.append(line)
    return "\n".join(out)
