"""The source's own KUnit suites as every booted row must run them.

One job: which suites, and how many cases each, the source's test
directories declare (net/wireless/tests, net/mac80211/tests, and iwlwifi's
tests, mvm/tests and mld/tests: what the identity row runs), and whether a guest test that ran a test module's
suites ran exactly those.  KUnit's own KTAP checks only that each suite
ran the cases it planned; a suite that a row never built or registered
would leave no trace there.  A case a row cannot run is its skip, declared
like any other (kernel-matrix.yaml expected_skips); it still counts in its
suite.
"""

import os
import re

import retrofi_kbuild

# The guest test that loads a test module -> the source directory of its suites.
SUITE_DIRS = {"cfg80211_kunit_suites_pass": "net/wireless/tests",
              "mac80211_kunit_suites_pass": "net/mac80211/tests",
              "iwlwifi_kunit_suites_pass": "drivers/net/wireless/intel/iwlwifi/tests",
              "iwlmvm_kunit_suites_pass": "drivers/net/wireless/intel/iwlwifi/mvm/tests",
              "iwlmld_kunit_suites_pass": "drivers/net/wireless/intel/iwlwifi/mld/tests"}

_SUITE_RE = re.compile(r"static\s+struct\s+kunit_suite\s+(\w+)\s*=\s*\{(.*?)\n\};", re.S)
_CASES_RE = re.compile(r"static\s+struct\s+kunit_case\s+(\w+)\s*\[\]\s*=\s*\{(.*?)\n\};", re.S)


def declared_suites(source_dir):
    """{suite name: number of cases} that the .c files of source_dir
    register with kunit_test_suite()/kunit_test_suites(), from their
    struct kunit_suite (.name, .test_cases) and struct kunit_case arrays
    (one KUNIT_CASE*() entry each)."""
    suites = {}
    for f in sorted(os.listdir(source_dir)):
        if not f.endswith(".c"):
            continue
        with open(os.path.join(source_dir, f), encoding="utf-8") as fh:
            text = fh.read()
        cases = {n: len(re.findall(r"\bKUNIT_CASE\w*\s*\(", body))
                 for n, body in _CASES_RE.findall(text)}
        defs = dict(_SUITE_RE.findall(text))
        registered = [v for args in re.findall(r"\bkunit_test_suites?\s*\(([^;]*)\)\s*;", text)
                      for v in re.findall(r"&?\s*(\w+)", args)]
        for var in registered:
            body = defs[var]
            name = re.search(r"\.name\s*=\s*\"([^\"]+)\"", body).group(1)
            arr = re.search(r"\.test_cases\s*=\s*(\w+)", body).group(1)
            suites[name] = cases[arr]
    return suites


def expected_sets(tree):
    """{guest test name: declared_suites()} for the suite directories the
    output tree (or source tree) has; {} for a tree without them."""
    return {test: declared_suites(os.path.join(tree, d)) for test, d in SUITE_DIRS.items()
            if os.path.isdir(os.path.join(tree, d))}


def set_problems(test, declared):
    """What a guest test's KTAP (its subtests: one per suite, each with one
    subtest per case) lacks or adds against the declared suites: a missing
    or unknown suite, or a suite with another number of cases."""
    ran = {s.name: s for s in (test.subtests.tests if test.subtests else [])}
    problems = [f"suite {s} did not run" for s in sorted(set(declared) - set(ran))]
    problems += [f"suite {s} is not one the source declares" for s in sorted(set(ran) - set(declared))]
    for name in sorted(set(declared) & set(ran)):
        n = len(ran[name].subtests.tests) if ran[name].subtests else 0
        if n != declared[name]:
            problems.append(f"suite {name} ran {n} cases, the source declares {declared[name]}")
    return problems


def provider(modules, headers):
    """Which KUnit runs a build's suites, read from what it built: the
    tree's kunit.ko, or the target's own (its .config has CONFIG_KUNIT,
    and the tree then builds no kunit.ko); "" for a build with no suite.
    modules: the built modules' paths or names; headers: the target's
    build tree (its .config)."""
    names = {os.path.basename(m) for m in modules}
    if not any(n.endswith("-tests.ko") for n in names):
        return ""
    if "kunit.ko" in names:
        return "the tree's kunit.ko (the target has no CONFIG_KUNIT)"
    try:
        value = retrofi_kbuild.read_config(os.path.join(headers, ".config")).get("CONFIG_KUNIT", "")
    except OSError:
        value = ""
    if value in ("y", "m"):
        return f"the target's own (CONFIG_KUNIT={value}; the tree builds no kunit.ko)"
    return "none: the suites were built without kunit.ko on a target without CONFIG_KUNIT"
