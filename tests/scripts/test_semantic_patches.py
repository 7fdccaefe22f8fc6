"""Every rule in semantic-patches/ against its test pairs.

tests/semantic-patches/<rule>/input.c + expected.c, and further cases as
<case>-input.c + <case>-expected.c. The rule runs on the input as the
generator runs it (retrofi_spatch.run_spatch: the generator's options, on
a private copy); a mismatch fails with a unified diff, and so does any
part of the input spatch could not parse (it would leave that part
unchanged, which an input equal to its expected output cannot tell).
Every expected file also compiles (below).
"""

import contextlib
import difflib
import hashlib
import os
import re
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
    # A plain patch names the source's files it changes: it is tested on
    # them (test_plain_patch_applies_to_the_source_files_it_names).
    missing = [r.name for r in _rules() if r.kind == "cocci"
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


@pytest.mark.network
@pytest.mark.parametrize("rule", [r for r in _rules() if r.kind == "patch"],
                         ids=lambda r: r.name)
def test_plain_patch_applies_to_the_source_files_it_names(rule, fetched, tmp_path):
    # As the generator applies it (patch -p1 --fuzz=0 on the copied tree),
    # to the default source's copies of the files it names; its own test
    # directory, where it has one, holds no pairs (a patch rewrites paths,
    # not an input file).
    source = fetched.source.path
    names = re.findall(r"^\+\+\+ b/(\S+)", open(rule.path).read(), re.M)
    assert names, f"{rule.name} names no file (+++ b/PATH)"
    for rel in names:
        os.makedirs(os.path.dirname(tmp_path / rel), exist_ok=True)
        shutil.copyfile(os.path.join(source, rel), tmp_path / rel)
    p = subprocess.run(["patch", "-p1", "--batch", "--forward", "--fuzz=0",
                        "--no-backup-if-mismatch", "-r", "-", "-d", str(tmp_path),
                        "-i", rule.path], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    if rule.name == "0900-kunit-config":
        # No copied KUnit file tests the kernel's own CONFIG_KUNIT any more
        # (IS_BUILTIN() stays: without CONFIG_KUNIT it is 0, as the tree
        # needs), and <kunit/test-bug.h> reads compat.ko's names.
        for rel in names:
            text = (tmp_path / rel).read_text()
            assert not re.search(r"IS_(ENABLED|MODULE)\(CONFIG_KUNIT\)", text), rel
        bug = (tmp_path / "include/kunit/test-bug.h").read_text()
        assert "#if IS_ENABLED(CONFIG_RETROFI_KUNIT)" in bug
        assert "#include <retrofi/kunit.h>" in bug


@pytest.mark.parametrize("rule,input_path", _cases())
def test_rule_pair(rule, input_path, tmp_path):
    expected_path = input_path[:-len("input.c")] + "expected.c"
    assert os.path.isfile(expected_path), f"{expected_path} missing"
    with open(input_path, "rb") as f:
        content = f.read()
    changed, out, unparsed = gen.run_spatch(rule, content, os.path.basename(input_path),
                                            str(tmp_path), 300)
    lines = content.decode().splitlines()
    assert not unparsed, (
        f"spatch cannot parse {os.path.relpath(input_path, REPO)} with {rule.name}, "
        f"so the rule never looks at these lines:\n"
        + "\n".join(f"  line {n}: {lines[n - 1] if n <= len(lines) else ''}"
                    for n in unparsed))
    got = (out if changed else content).decode()
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
    compat/probe.sh defines only for the names in compat/probes.list; so
    does a structural test of RETROFI_HAVE_name itself."""
    import re
    with open(os.path.join(REPO, "compat", "probes.list")) as f:
        probes = {line.split("|")[0].strip() for line in f
                  if line.strip() and not line.startswith("#")}
    used = {}
    for r in _rules():
        with open(r.path) as f:
            text = f.read()
            for name in re.findall(r"RETROFI_API_HAS\(\s*\d+\s*,\s*\d+\s*,\s*\d+\s*,"
                                   r"\s*(\w+)\s*\)", text):
                used.setdefault(name, r.name)
            for name in re.findall(r"RETROFI_HAVE_(\w+)", text):
                used.setdefault(name, r.name)
    assert used, "no rule uses a probe (RETROFI_API_HAS)"
    missing = {n: rule for n, rule in used.items() if n not in probes}
    assert not missing, f"probes used by rules but not in compat/probes.list: {missing}"


# Every expected file must also build: each rule's expected.c and
# <case>-expected.c, carried through the rules after it as the generator
# carries every file (a later rule may own what an earlier one leaves for
# older kernels), compiled as the output tree compiles the stack (compat
# headers first, include/retrofi/version.h forced in,
# drivers/out-tree/Kbuild.cflags, the target's probes), against the oldest
# and the newest real target, and at the API level of the oldest shape on
# the oldest target (what a shape row builds): both sides of every version
# test a rule writes are C that compiles, without a warning, at both
# levels. A case whose code must not build at a level (old-form code a rule
# leaves alone on purpose, or the #error a rule writes) says so in a line
#     // does-not-build: <level>[, <level>...]: <text of the error>
# (levels as in the test ids: 5.10, 5.10-api2.6.21, 6.12; gcc's quotes as
# '), and there its build must fail with that error. One kbuild run per
# level compiles every file that must build, one more (make -k) the ones
# that must not; a level whose inputs (sources, flags, headers, probes,
# compiler) all gave the expected results before is not built again
# (<cache>/semantic-patch-builds/<key>).
COMPILE_TARGETS = ("5.10", "6.12")
SHAPE_LEVEL = "2.6.21"
COMPILE_LEVELS = [("5.10", None), ("5.10", SHAPE_LEVEL), ("6.12", None)]
OUT_TREE = os.path.join(REPO, "drivers", "out-tree")
_DOES_NOT_BUILD = re.compile(r"^// does-not-build: ([^:]+): (.+)$", re.M)


def _level_id(target, api_level):
    return target + (f"-api{api_level}" if api_level else "")


def does_not_build(content):
    """{level id: error text} of a test file's does-not-build lines."""
    out = {}
    for levels, text in _DOES_NOT_BUILD.findall(content.decode()):
        for level in levels.split(","):
            out[level.strip()] = text.strip()
    return out


def test_does_not_build_lines_name_levels_that_are_built():
    ids = {_level_id(t, a) for t, a in COMPILE_LEVELS}
    for rule, name in _expected_files():
        with open(os.path.join(CASES, rule, name), "rb") as f:
            unknown = set(does_not_build(f.read())) - ids
        assert not unknown, f"{rule}/{name}: does-not-build names no level built: {unknown}"


def _expected_files():
    """(rule name, file name) of every expected output in CASES."""
    out = []
    for rule in _rules():
        d = os.path.join(CASES, rule.name)
        if os.path.isdir(d):
            out += [(rule.name, n) for n in sorted(os.listdir(d)) if n.endswith("expected.c")]
    return out


@pytest.fixture(scope="module")
def carried(tmp_path_factory):
    """{"<rule>/<file>": content} of every expected file, carried through the
    rules after its own by the generator's code and spatch cache."""
    rules = _rules()
    cache = gen.SpatchCache(gen.default_cache_dir(), gen.spatch_version(), gen.SPATCH_OPTIONS)
    work = tmp_path_factory.mktemp("carry")
    out = {}
    for i, rule in enumerate(rules):
        files = []
        for r, name in _expected_files():
            if r == rule.name:
                with open(os.path.join(CASES, r, name), "rb") as f:
                    files.append((f"{r}/{name}", f.read()))
        if files:
            contents, _, _ = gen.apply_rules(files, rules[i + 1:], cache, 300,
                                             str(work / rule.name), jobs=2)
            out.update(contents)
    return out


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


def _object_name(key):
    """"0001-timer-shutdown/expression-expected.c" -> a C file name kbuild takes."""
    return re.sub(r"[^A-Za-z0-9_]", "_", key[:-len(".c")])


def _module(mod, sources, target, api_level, compile_targets):
    """Write a kbuild module directory building sources ({object: content})
    for target at api_level (None: the target's own); return its Kbuild."""
    import retrofi_census
    _, probes = compile_targets[target]
    mod.mkdir(parents=True)
    for obj, content in sources.items():
        (mod / f"{obj}.c").write_bytes(content)
    shutil.copyfile(os.path.join(OUT_TREE, "Kbuild.cflags"), mod / "Kbuild.cflags")
    level = (f" -DRETROFI_API_CODE={retrofi_census.version_code(api_level)}"
             if api_level else "")
    kbuild = ("".join(f"obj-m += {obj}.o\n" for obj in sorted(sources))
              + f"NOSTDINC_FLAGS += -I{probes} -I{REPO}/include{level} "
              f"-I{OUT_TREE}/include -include {OUT_TREE}/include/retrofi/version.h\n"
              "include $(src)/Kbuild.cflags\n")
    (mod / "Kbuild").write_text(kbuild)
    return kbuild


def _make(mod, target, compile_targets, goals):
    kt, _ = compile_targets[target]
    argv = ["make", "-C", kt.headers, f"M={mod}", *goals]
    if kt.cc:
        argv.append(f"CC={kt.cc}")
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _warnings(log):
    return [line for line in log.splitlines() if "warning:" in line]


def _build_key(target, api_level, kbuild, sources, compile_targets):
    """sha256 of everything a level's build depends on: the sources, the
    Kbuild and its flags, the project's headers, the probes, the kernel
    headers tree and the compiler."""
    kt, probes = compile_targets[target]
    cc = subprocess.run([kt.cc or "gcc", "--version"], capture_output=True, text=True).stdout
    kbuild = kbuild.replace(str(probes), "<probes>").replace(REPO, "<repo>")
    h = hashlib.sha256("\0".join([target, str(api_level), kt.headers, kt.kernelrelease,
                                  kt.cc or "", cc, kbuild]).encode())
    files = {"<probes>/retrofi/probes.h": os.path.join(probes, "retrofi", "probes.h")}
    for top in (os.path.join(REPO, "include"), os.path.join(OUT_TREE, "include")):
        files.update({os.path.relpath(os.path.join(top, rel), REPO): os.path.join(top, rel)
                      for rel in gen._tree_files(top)})
    files["drivers/out-tree/Kbuild.cflags"] = os.path.join(OUT_TREE, "Kbuild.cflags")
    for name, path in sorted(files.items()):
        with open(path, "rb") as f:
            h.update(b"\0" + name.encode() + b"\0" + f.read())
    for obj in sorted(sources):
        h.update(b"\0" + obj.encode() + b"\0" + sources[obj])
    return h.hexdigest()


@pytest.fixture(scope="module")
def level_builds(carried, compile_targets, tmp_path_factory):
    """(target, api_level) -> {"<rule>/<file>": None if it built without a
    warning (or, declared not to build there, failed with its error), else
    why not}. One kbuild run (-j2) builds every file that must build: when
    it fails or warns, each is built on its own to tell which; one more
    (-k) the files that must not."""
    done = {}

    def build(target, api_level):
        if (target, api_level) in done:
            return done[(target, api_level)]
        objs = {_object_name(key): key for key in carried}
        sources = {obj: carried[key] for obj, key in objs.items()}
        mod = tmp_path_factory.mktemp("level") / "mod"
        kbuild = _module(mod, sources, target, api_level, compile_targets)
        stamp = os.path.join(gen.default_cache_dir(), "semantic-patch-builds",
                             _build_key(target, api_level, kbuild, sources, compile_targets))
        result = {key: None for key in carried}
        done[(target, api_level)] = result
        if os.path.exists(stamp):
            return result
        fails = {obj: does_not_build(sources[obj]).get(_level_id(target, api_level))
                 for obj in objs}
        good = sorted(obj for obj in objs if fails[obj] is None)
        bad = sorted(obj for obj in objs if fails[obj] is not None)
        p = _make(mod, target, compile_targets, ["-j2", *[f"{o}.o" for o in good]])
        if p.returncode != 0 or _warnings(p.stdout):
            for obj in good:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(mod / f"{obj}.o")
                q = _make(mod, target, compile_targets, [f"{obj}.o"])
                if q.returncode != 0 or _warnings(q.stdout) or not (mod / f"{obj}.o").exists():
                    result[objs[obj]] = q.stdout[-4000:]
            assert any(result.values()), \
                f"the shared build failed, but every file builds alone:\n{p.stdout[-4000:]}"
        else:
            missing = [o for o in good if not (mod / f"{o}.o").exists()]
            assert not missing, f"make succeeded without building {missing}:\n{p.stdout[-4000:]}"
        if bad:
            q = _make(mod, target, compile_targets, ["-k", "-j2", *[f"{o}.o" for o in bad]])
            for obj in bad:
                errors = [line.replace("\u2018", "'").replace("\u2019", "'")
                          for line in q.stdout.splitlines()
                          if line.startswith(f"{mod}/{obj}.c:") and " error: " in line]
                if (mod / f"{obj}.o").exists():
                    result[objs[obj]] = f"it builds, but says does-not-build: {fails[obj]}"
                elif not any(fails[obj] in line for line in errors):
                    result[objs[obj]] = (f"it does not build, as it says, but not with the "
                                         f"error it names ({fails[obj]}):\n" + "\n".join(errors))
        if not any(result.values()):
            os.makedirs(os.path.dirname(stamp), exist_ok=True)
            with open(stamp, "w") as f:
                f.write("every file built as expected\n")
        return result
    return build


def compile_rule_pair(rule, target, api_level, compile_targets, carried, tmp_path,
                      goal="rule_pair.i"):
    """Build goal (rule_pair.o or .i) of rule's expected.c, carried through
    the later rules, for target at api_level (None: the target's own)."""
    mod = tmp_path / "mod"
    _module(mod, {"rule_pair": carried[f"{rule}/expected.c"]}, target, api_level,
            compile_targets)
    p = _make(mod, target, compile_targets, [goal])
    what = f"{rule}/expected.c for {target}" + (f" at API level {api_level}" if api_level else "")
    assert p.returncode == 0 and (mod / goal).exists(), \
        f"{what} does not build:\n{p.stdout[-4000:]}"
    assert _warnings(p.stdout) == [], f"{what} warns:\n{p.stdout[-4000:]}"
    return (mod / goal).read_text(errors="replace") if goal.endswith(".i") else None


@pytest.mark.network
@pytest.mark.parametrize("target,api_level", COMPILE_LEVELS,
                         ids=[f"{t}" + (f"-api{a}" if a else "") for t, a in COMPILE_LEVELS])
@pytest.mark.parametrize("expected", [f"{r}/{n}" for r, n in _expected_files()])
def test_expected_output_compiles(expected, target, api_level, level_builds):
    why = level_builds(target, api_level)[expected]
    what = f"tests/semantic-patches/{expected} for {target}" + (
        f" at API level {api_level}" if api_level else "")
    assert why is None, f"{what} does not build as it should:\n{why}"


# A rewrite whose old form still works on the newer kernel follows the API
# level (RETROFI_API_HAS), so a shape runs the old-kernel code on its base:
# on 6.12, which has timer_shutdown_sync(), rule 0001's expected output
# calls it at the real level and del_timer_sync() at a 2.6.21 API level.
# (Every other rule's forms follow the real version: their old forms do not
# compile, or change an ABI, on a kernel that has the new one.)
@pytest.mark.network
def test_a_rule_whose_old_form_still_works_follows_the_api_level(compile_targets, carried,
                                                                 tmp_path):
    rule = "0001-timer-shutdown"
    assert rule in [r.name for r in _rules() if "RETROFI_API_HAS(" in open(r.path).read()]
    real = compile_rule_pair(rule, "6.12", None, compile_targets, carried, tmp_path / "real")
    shape = compile_rule_pair(rule, "6.12", SHAPE_LEVEL, compile_targets, carried,
                              tmp_path / "shape")
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
