"""The build stage: a tree built per target in the cache, reused when its
inputs are unchanged, and failed on an error or on any compiler warning."""

import os

import pytest

import retrofi_build
import retrofi_kernels
import retrofi_matrix
from conftest import REPO, out_tree_kbuild, selected_drivers_config_mk

MAKEFILE = "all:\n\t$(MAKE) -C $(KLIB) M=$(CURDIR) modules\n"


@pytest.fixture(scope="module")
def kernel():
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    return retrofi_kernels.fetch(m, with_source=False).targets["6.12"]


def tiny_tree(path, body):
    path.mkdir()
    (path / "Makefile").write_text(MAKEFILE)
    (path / "Kbuild").write_text("obj-m += tiny.o\n")
    (path / "tiny.c").write_text('#include <linux/module.h>\nMODULE_LICENSE("GPL");\n' + body)
    return str(path)


@pytest.mark.network
def test_build_is_reused_until_an_input_changes(kernel, tmp_path):
    tree = tiny_tree(tmp_path / "t", "static int __init t_init(void) { return 0; }\nmodule_init(t_init);\n")
    cache = str(tmp_path / "cache")
    first = retrofi_build.build(tree, kernel, str(tmp_path / "b1.log"), cache=cache)
    assert first.ok and not first.cached, first.summary()
    assert first.modules == ("tiny.ko",)
    assert os.path.isfile(os.path.join(first.tree, "tiny.ko"))
    again = retrofi_build.build(tree, kernel, str(tmp_path / "b2.log"), cache=cache)
    assert again.cached and again.tree == first.tree
    # Build products in the source tree do not change its identity...
    (tmp_path / "t" / "tiny.o").write_text("x")
    assert retrofi_build.build(tree, kernel, str(tmp_path / "b3.log"), cache=cache).cached
    # ...but a source change does. The older build stays while this process
    # uses it, and goes once no run does.
    with open(os.path.join(tree, "tiny.c"), "a") as f:
        f.write("/* changed */\n")
    changed = retrofi_build.build(tree, kernel, str(tmp_path / "b4.log"), cache=cache)
    assert changed.ok and not changed.cached and changed.tree != first.tree
    assert os.path.isfile(os.path.join(first.tree, "tiny.ko"))
    retrofi_build.release(first.tree)
    with open(os.path.join(tree, "tiny.c"), "a") as f:
        f.write("/* changed again */\n")
    third = retrofi_build.build(tree, kernel, str(tmp_path / "b5.log"), cache=cache)
    assert third.ok and not os.path.exists(first.tree)
    assert os.path.isdir(changed.tree), "still used by this process"


@pytest.mark.network
def test_a_compiler_warning_fails_the_build(kernel, tmp_path):
    tree = tiny_tree(tmp_path / "t", "static int __init t_init(void) { int unused; return 0; }\n"
                                     "module_init(t_init);\n")
    r = retrofi_build.build(tree, kernel, str(tmp_path / "b.log"), cache=str(tmp_path / "c"))
    assert not r.ok and "compiler warnings" in r.reason and "unused" in r.reason
    assert not os.path.exists(os.path.join(r.tree, ".retrofi-build.json"))


@pytest.mark.network
def test_a_compile_error_fails_with_the_error_quoted(kernel, tmp_path):
    tree = tiny_tree(tmp_path / "t", "this is not C;\n")
    r = retrofi_build.build(tree, kernel, str(tmp_path / "b.log"), cache=str(tmp_path / "c"))
    assert not r.ok and "error" in r.reason
    assert "FAIL" in r.summary() and r.log in r.summary()


@pytest.mark.network
def test_a_build_killed_mid_way_resumes_and_remakes_what_it_may_have_half_written(kernel, tmp_path):
    """A kill can stop Kbuild while it writes a .cmd file (seen: "unterminated
    variable reference" on every later make); the resumed build makes the
    last objects of the stopped attempt again instead."""
    tree = tiny_tree(tmp_path / "t", "static int __init t_init(void) { return 0; }\nmodule_init(t_init);\n")
    (tmp_path / "t" / "Kbuild").write_text("obj-m += tiny.o other.o\n")
    (tmp_path / "t" / "other.c").write_text('#include <linux/module.h>\nMODULE_LICENSE("GPL");\n')
    cache = str(tmp_path / "cache")
    first = retrofi_build.build(tree, kernel, str(tmp_path / "b1.log"), cache=cache)
    assert first.ok, first.summary()
    retrofi_build.release(first.tree)
    # As a run killed with its make leaves it: no stamp, no end of the
    # attempt in the log, the newest .cmd cut short, an older one intact.
    build = first.tree
    os.unlink(os.path.join(build, retrofi_build.STAMP))
    log = os.path.join(build, retrofi_build.LOG)
    text = open(log).read()
    open(log, "w").write(text[:text.rindex(retrofi_build.ENDED)])
    cut = os.path.join(build, ".tiny.o.cmd")
    old = os.path.join(build, ".other.o.cmd")
    os.utime(old, ns=(os.stat(cut).st_mtime_ns - 120 * 10**9,) * 2)
    kept = os.stat(os.path.join(build, "other.o")).st_mtime_ns
    data = open(cut).read()
    open(cut, "w").write(data[:len(data) // 2].rstrip("\n") + " $(deps_")
    again = retrofi_build.build(tree, kernel, str(tmp_path / "b2.log"), cache=cache)
    assert again.ok and again.tree == build, again.summary()
    assert "make ended" not in open(cut).read() and open(cut).read().endswith("\n")
    assert os.stat(os.path.join(build, "other.o")).st_mtime_ns == kept, "not made again"
    assert "# retrofi: resuming a build that did not finish" in open(str(tmp_path / "b2.log")).read()


# A tree whose "build" is four jobs that record how many of them, across
# every build sharing the machine, run at once.
COUNTING_MAKEFILE = """\
all: j1 j2 j3 j4
j%:
\t@mkdir -p $(RUNNING); touch $(RUNNING)/$(notdir $(CURDIR))-$@; \\
\t ls $(RUNNING) | wc -l >> $(RUNNING)/../peaks; sleep 0.6; \\
\t rm $(RUNNING)/$(notdir $(CURDIR))-$@
"""


class FakeKernel:
    def __init__(self, root):
        self.name, self.root, self.version, self.cc = "fake", root, "9.9", ""
        self.headers = root


def counting_tree(path, running):
    path.mkdir()
    (path / "Makefile").write_text(f"# {path.name}\nRUNNING := {running}\n" + COUNTING_MAKEFILE)
    return str(path)


def peak(tmp_path):
    return max(int(x) for x in (tmp_path / "peaks").read_text().split())


def test_a_build_alone_under_the_jobserver_gets_every_slot(tmp_path):
    js = retrofi_build.Jobserver(2)
    try:
        tree = counting_tree(tmp_path / "t", tmp_path / "running")
        r = retrofi_build.build(tree, FakeKernel(str(tmp_path)), str(tmp_path / "b.log"),
                                cache=str(tmp_path / "c"), jobs=js)
        assert r.ok, r.reason
        assert peak(tmp_path) == 2
        assert "jobserver of 2 slots" in open(r.log).read()
    finally:
        js.close()


def test_builds_sharing_the_jobserver_run_one_job_more_than_its_slots_at_most(tmp_path):
    import concurrent.futures
    js = retrofi_build.Jobserver(2)
    try:
        trees = [counting_tree(tmp_path / n, tmp_path / "running") for n in ("a", "b")]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            results = list(pool.map(
                lambda t: retrofi_build.build(t, FakeKernel(str(tmp_path)),
                                              t + ".log", cache=str(tmp_path / "c"), jobs=js),
                trees))
        assert all(r.ok for r in results), [r.reason for r in results]
        # Two makes with one implicit job each and one token between them.
        assert peak(tmp_path) == 3
    finally:
        js.close()


def test_without_the_jobserver_a_build_runs_at_its_own_j(tmp_path):
    tree = counting_tree(tmp_path / "t", tmp_path / "running")
    r = retrofi_build.build(tree, FakeKernel(str(tmp_path)), str(tmp_path / "b.log"),
                            cache=str(tmp_path / "c"), jobs=1)
    assert r.ok, r.reason
    assert peak(tmp_path) == 1


def test_a_cache_reached_through_a_symlink_shares_the_build_key(tmp_path):
    """A test's private cache links the shared one's kernels: the same
    kernel there keys the same build (it is reused, not built again)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "Makefile").write_text("all:\n")
    real = tmp_path / "shared" / "targets" / "6.12"
    (real / "root").mkdir(parents=True)
    (tmp_path / "private" / "targets").mkdir(parents=True)
    os.symlink(real, tmp_path / "private" / "targets" / "6.12")

    def kernel(root, version="6.12.1"):
        return retrofi_kernels.KernelTree("6.12", "", version, str(root), "", "", "", "", "")
    key = retrofi_build.build_key(str(tree), kernel(real / "root"))
    assert retrofi_build.build_key(str(tree), kernel(tmp_path / "private/targets/6.12/root")) == key
    assert retrofi_build.build_key(str(tree), kernel(real / "root", "6.12.2")) != key


def test_modules_order_naming_the_real_path_of_a_tree_reached_through_a_symlink(tmp_path):
    """Newer kbuild writes absolute paths into modules.order, under the
    directory make ran in; a build directory reached through a symlink (a
    test's private cache) still reads as the tree's own modules."""
    real = tmp_path / "shared" / "build" / "6.12-x"
    (real / "net" / "wireless").mkdir(parents=True)
    (real / "modules.order").write_text(f"{real}/compat/compat.o\n"
                                        f"{real}/net/wireless/cfg80211.o\n")
    link = tmp_path / "private-build"
    os.symlink(real, link)
    assert retrofi_build._modules(str(link)) == ("compat/compat.ko", "net/wireless/cfg80211.ko")
    assert retrofi_build._modules(str(real)) == ("compat/compat.ko", "net/wireless/cfg80211.ko")


def _sections(ko):
    import subprocess
    out = subprocess.run(["readelf", "-S", "-W", ko], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    return {l.split("]", 1)[1].split()[0] for l in out.splitlines() if "]" in l and "[Nr]" not in l}


def test_builds_add_g0_after_the_callers_kcflags_unless_debug_info_is_asked(monkeypatch, tmp_path):
    monkeypatch.delenv("KCFLAGS", raising=False)
    monkeypatch.delenv(retrofi_build.DEBUG_INFO_ENV, raising=False)
    assert retrofi_build.kcflags() == "-g0"
    monkeypatch.setenv("KCFLAGS", "-fno-inline  -DX=1")
    assert retrofi_build.kcflags() == "-fno-inline -DX=1 -g0"
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "Makefile").write_text("all:\n")
    k = retrofi_kernels.KernelTree("6.12", "", "6.12.1", str(tmp_path), "", "", "", "", "")
    without = retrofi_build.build_key(str(tree), k)
    monkeypatch.setenv(retrofi_build.DEBUG_INFO_ENV, "1")
    assert retrofi_build.kcflags() == "-fno-inline -DX=1"
    assert retrofi_build.build_key(str(tree), k) != without, "a build with debug info is another"


@pytest.mark.network
def test_a_build_has_no_debug_info_unless_asked_and_the_same_code(kernel, tmp_path, monkeypatch):
    """-g0 (the stage's default) drops the DWARF sections and changes no
    code: the module's .text is byte-identical to the one built with the
    kernel's own -g (RETROFI_DEBUG_INFO=1)."""
    import subprocess
    tree = tiny_tree(tmp_path / "t", "int tiny_sum(const int *v, int n);\n"
                     "int tiny_sum(const int *v, int n) { int s = 0; while (n--) s += v[n]; "
                     "return s; }\nEXPORT_SYMBOL(tiny_sum);\n")
    cache = str(tmp_path / "cache")
    monkeypatch.delenv(retrofi_build.DEBUG_INFO_ENV, raising=False)
    plain = retrofi_build.build(tree, kernel, str(tmp_path / "b1.log"), cache=cache)
    assert plain.ok, plain.summary()
    assert "KCFLAGS=-g0 CONFIG_DEBUG_INFO_BTF_MODULES=\n" in open(plain.log).read()
    monkeypatch.setenv(retrofi_build.DEBUG_INFO_ENV, "1")
    debug = retrofi_build.build(tree, kernel, str(tmp_path / "b2.log"), cache=cache)
    assert debug.ok and not debug.cached and debug.tree != plain.tree, debug.summary()
    ko, ko_g = os.path.join(plain.tree, "tiny.ko"), os.path.join(debug.tree, "tiny.ko")
    assert ".debug_info" not in _sections(ko) and ".debug_info" in _sections(ko_g)

    def text(path):
        out = tmp_path / "text.bin"
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.text", path, str(out)],
                       check=True)
        return out.read_bytes()
    assert text(ko) == text(ko_g) and len(text(ko)) > 0


# ---------------------------------------------------------------- what the configuration selects

STACK = ("compat/compat.ko", "net/wireless/cfg80211.ko", "net/mac80211/mac80211.ko",
         "drivers/net/wireless/virtual/mac80211_hwsim.ko", "drivers/net/wireless/ath/ath.ko",
         "drivers/net/wireless/ath/ath5k/ath5k.ko", "drivers/net/wireless/ath/ath9k/ath9k.ko",
         "drivers/net/wireless/ath/ath9k/ath9k_hw.ko",
         "drivers/net/wireless/ath/ath9k/ath9k_common.ko")

# A stubbed build: make exits 0 having made only the modules listed in
# `made` (and probes.h if `probes` exists), as a cut-short or faked build
# would.  A "module" is any ELF file (the census reads its sections).
STUB_MAKEFILE = """\
all:
\t@mkdir -p include/retrofi && cp config.mk.stub include/retrofi/config.mk
\t@: > modules.order; for m in $$(cat made); do mkdir -p $$(dirname $$m); \\
\t  cp /bin/true $$m; echo $${m%.ko}.o >> modules.order; done
\t@if [ -f probes ]; then echo '/* probes */' > include/retrofi/probes.h; fi
"""


def stub_output_tree(path, made, probes=True, config_mk="RETROFI_CONFIG_CFG80211 := m\n"):
    """The output tree's own Kbuild files, config/options and defconfigs,
    built by STUB_MAKEFILE."""
    out_tree_kbuild(str(path))
    (path / "Makefile").write_text(STUB_MAKEFILE)
    (path / "made").write_text("\n".join(made) + "\n")
    (path / "config.mk.stub").write_text(config_mk + selected_drivers_config_mk(str(path)))
    if probes:
        (path / "probes").write_text("")
    return str(path)


def test_a_build_that_made_one_module_and_no_probes_h_fails_naming_what_is_missing(tmp_path):
    """make exiting 0 is no proof: a stubbed build with compat.ko alone and
    no probes.h used to be "ok, 1 modules"."""
    tree = stub_output_tree(tmp_path / "t", ["compat/compat.ko"], probes=False)
    r = retrofi_build.build(tree, FakeKernel(str(tmp_path)), str(tmp_path / "b.log"),
                            cache=str(tmp_path / "c"), jobs=1)
    assert not r.ok and "FAIL" in r.summary(), r.summary()
    assert r.reason.startswith("make exited 0, but include/retrofi/probes.h missing"), r.reason
    assert "8 of the 9 selected modules not built: net/wireless/cfg80211.ko, " \
        "net/mac80211/mac80211.ko, drivers/net/wireless/virtual/mac80211_hwsim.ko" in r.reason
    assert "drivers/net/wireless/ath/ath9k/ath9k_common.ko" in r.reason
    assert not os.path.exists(os.path.join(r.tree, retrofi_build.STAMP)), "not stamped complete"


def test_a_build_with_every_selected_module_and_probes_h_is_ok(tmp_path):
    tree = stub_output_tree(tmp_path / "t", STACK)
    r = retrofi_build.build(tree, FakeKernel(str(tmp_path)), str(tmp_path / "b.log"),
                            cache=str(tmp_path / "c"), jobs=1)
    assert r.ok and r.modules == STACK and r.off == (), r.summary()
    # The hwsim defconfig selects compat, cfg80211, mac80211 and hwsim only.
    (tmp_path / "t" / ".retrofi-config").write_text(
        open(os.path.join(REPO, "drivers", "out-tree", "defconfigs", "hwsim")).read())
    (tmp_path / "t" / "made").write_text("\n".join(STACK[:4]) + "\n")
    r = retrofi_build.build(tree, FakeKernel(str(tmp_path)), str(tmp_path / "b2.log"),
                            cache=str(tmp_path / "c"), jobs=1)
    assert r.ok and r.modules == STACK[:4], r.summary()


def test_a_module_the_configuration_switched_off_is_not_missing_and_the_build_says_why(tmp_path):
    tree = stub_output_tree(tmp_path / "t", STACK, config_mk=(
        "RETROFI_CONFIG_CFG80211 := m\n"
        "RETROFI_CONFIG_FAKE_PCI := # off: the target has no CONFIG_PCI\n"))
    with open(os.path.join(tree, "Kbuild"), "a") as f:
        f.write("obj-$(RETROFI_CONFIG_FAKE_PCI) += drivers/fake/\n")
    r = retrofi_build.build(tree, FakeKernel(str(tmp_path)), str(tmp_path / "b.log"),
                            cache=str(tmp_path / "c"), jobs=1)
    assert r.ok, r.summary()
    assert r.off == (("drivers/fake/", "RETROFI_CONFIG_FAKE_PCI off: the target has no CONFIG_PCI"),)
    assert "not selected: drivers/fake/ (RETROFI_CONFIG_FAKE_PCI off: the target has no " \
        "CONFIG_PCI)" in r.summary()
    # Selected (config.mk says m) but not made: missing, by name.
    with open(os.path.join(tree, "config.mk.stub"), "a") as f:
        f.write("RETROFI_CONFIG_FAKE_USB := m\n")
    with open(os.path.join(tree, "Kbuild"), "a") as f:
        f.write("obj-$(RETROFI_CONFIG_FAKE_USB) += fake_usb.o\n")
    r = retrofi_build.build(tree, FakeKernel(str(tmp_path)), str(tmp_path / "b2.log"),
                            cache=str(tmp_path / "c"), jobs=1)
    assert not r.ok and r.reason.endswith("1 of the 10 selected modules not built: fake_usb.ko"), \
        r.reason


def test_a_kbuild_variable_nothing_sets_fails_the_build_naming_it(tmp_path):
    tree = stub_output_tree(tmp_path / "t", STACK)
    with open(os.path.join(tree, "Kbuild"), "a") as f:
        f.write("obj-$(RETROFI_CONFIG_NOWHERE) += nowhere.o\n")
    r = retrofi_build.build(tree, FakeKernel(str(tmp_path)), str(tmp_path / "b.log"),
                            cache=str(tmp_path / "c"), jobs=1)
    assert not r.ok and "sets RETROFI_CONFIG_NOWHERE" in r.reason, r.reason


def test_a_matrix_row_requires_its_tree_to_be_an_output_tree(tmp_path):
    """The matrix builds only output trees: a tree without config.mk or
    probes.h fails its row even if it lacks the output tree's markers."""
    tree = tiny_tree_fake(tmp_path / "t")
    r = retrofi_build.build(tree, FakeKernel(str(tmp_path)), str(tmp_path / "b.log"),
                            cache=str(tmp_path / "c"), jobs=1)
    assert r.ok, r.summary()
    r = retrofi_build.build(tree, FakeKernel(str(tmp_path)), str(tmp_path / "b.log"),
                            cache=str(tmp_path / "c"), jobs=1, output_tree=True)
    assert not r.ok and "include/retrofi/config.mk: missing" in r.reason, r.reason


def tiny_tree_fake(path):
    path.mkdir()
    (path / "Makefile").write_text("all:\n\t@cp /bin/true tiny.ko; echo tiny.o > modules.order\n")
    (path / "Kbuild").write_text("obj-m += tiny.o\n")
    return str(path)
