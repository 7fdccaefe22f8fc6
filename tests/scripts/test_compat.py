"""The compat layer, built the way the output tree builds it (compat headers
first on the include path, probes run once per KLIB) against the cached 6.12
and 6.1 headers: no warnings, the right shims chosen by version, by probe and
by the API-level override."""

import os
import re
import shutil
import subprocess

import pytest

import retrofi_census
import retrofi_kernels
import retrofi_matrix
from conftest import REPO


@pytest.fixture(scope="module")
def kernels():
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    return retrofi_kernels.fetch(m, with_source=False).targets


def api_code(level):
    parts = [int(x) for x in level.split(".")] + [0]
    return (parts[0] << 16) + (parts[1] << 8) + min(parts[2], 255)


# probes.h per KLIB, as probe.sh last wrote it: a tree for the same KLIB
# starts with it, and probe.sh keeps it when its key (KLIB, release, lists)
# still matches, as in an output tree built twice for one KLIB.
_PROBES = {}


def build(tmp_path, klib, api_level=None, cc=""):
    """Assemble compat + the selftest module in tmp_path and build them."""
    tree = tmp_path / "tree"
    shutil.copytree(os.path.join(REPO, "include"), tree / "include")
    shutil.copytree(os.path.join(REPO, "compat"), tree / "compat")
    shutil.copytree(os.path.join(REPO, "tests", "compat-selftest"), tree / "selftest")
    (tree / "compat" / "retrofi-version.h").write_text(
        '#define RETROFI_PROJECT_VERSION "test"\n#define RETROFI_SOURCE_KERNEL "test"\n')
    (tree / "Kbuild").write_text("obj-m += compat/ selftest/\n")
    probes = tree / "include" / "retrofi" / "probes.h"
    if (klib, cc) in _PROBES:
        probes.write_text(_PROBES[klib, cc])
    p = subprocess.run(["sh", str(tree / "compat" / "probe.sh"), klib, str(tree / "compat" / "probes.list"),
                        str(probes)] + ([f"CC={cc}"] if cc else []),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    _PROBES[klib, cc] = probes.read_text()
    flags = f"-I{tree}/include"
    argv = ["make", "-C", klib, f"-j{os.cpu_count() or 1}", f"M={tree}", f"NOSTDINC_FLAGS={flags}",
            "modules"]
    if api_level:
        # As the output tree and the initramfs stage do: compat.ko at the
        # level, retrofi_selftest through its Kbuild's variable
        # (retrofi_selftest_api keeps its own, 2.6.21).
        with open(tree / "compat" / "Kbuild", "a") as f:
            f.write(f"ccflags-y += -DRETROFI_API_CODE={api_code(api_level)}\n")
        argv.append(f"RETROFI_SELFTEST_API_CODE={api_code(api_level)}")
    if cc:
        argv.append(f"CC={cc}")
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout[-4000:]
    assert "warning:" not in p.stdout, p.stdout[-4000:]
    return tree, probes.read_text()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """build() once per KLIB, API level and compiler for the whole module:
    the tests that read the same build (the identity target's and 6.1's
    real level, read again by the forced-API module's cases) share it.
    The tests only read a build; one that edits headers builds its own."""
    done = {}

    def get(klib, api_level=None, cc=""):
        if (klib, api_level, cc) not in done:
            done[klib, api_level, cc] = build(tmp_path_factory.mktemp("compat"), klib,
                                              api_level=api_level, cc=cc)
        return done[klib, api_level, cc]
    return get


def shims_used(tree, module="retrofi_selftest"):
    """The names the selftest's calls resolved to, from its '# x: uses y' strings."""
    ko = tree / "selftest" / f"{module}.ko"
    data = ko.read_bytes()
    undefined = subprocess.run(["nm", "-u", str(ko)],
                               stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    return set(re.findall(rb"(?:backport_)?list_[a-z_]+|(?:backport_)?kmemdup_array"
                          rb"|(?:backport_)?kfree_skb_reason", data)), undefined


def census_names(tree, module):
    """The names of the census records a selftest module carries."""
    data = retrofi_census.elf_section(str(tree / "selftest" / f"{module}.ko"))
    return {s.name for s in retrofi_census.parse(data or b"")}


# The structural-probed shims that Debian's 6.1.192 (and 5.10.262) carries
# from stable, so that retrofi_selftest never compiles them there:
# retrofi_selftest_probes_off, built with the probes forced off, must
# (<linux/cleanup.h> replacing the target's, the classes under backport_
# names, min() and max(), genlmsg_multicast_allns() over its stand-in).
PROBES_OFF_6_1 = {"cleanup_h", "mutex_guard", "spinlock_guard", "spinlock_irqsave_guard",
                  "rcu_guard", "kfree_free_class", "device_node_free", "min", "max", "umin",
                  "genlmsg_multicast_allns"}


def probe_value(header, name):
    return int(re.search(rf"#define RETROFI_HAVE_{name} (\d)", header).group(1))


# What compat.ko exports for APIs newer than 6.12 (the AES-CMAC library of
# <crypto/aes-cbc-macs.h>, debugfs_change_name(), debugfs_create_file() of
# short operations, irq_can_set_affinity(), which 6.12 does not export),
# which the selftest calls on 6.12 too.
NEWER_THAN_6_12 = ("backport_aes_cmac_preparekey", "backport_aes_cmac_update",
                   "backport_aes_cmac_final", "backport_debugfs_change_name",
                   "backport_debugfs_create_file_short", "backport_irq_can_set_affinity")


@pytest.mark.network
def test_identity_target_uses_its_own_apis(kernels, built):
    t = kernels["6.12"]
    tree, probes = built(t.headers)
    assert probe_value(probes, "kmemdup_array") == 1
    for api in ("FIELD_PREP_CONST", "SKB_CONSUMED", "drop_reasons_register_subsys"):
        assert probe_value(probes, api) == 1, api
    # Debian's 6.12.118 carries these 6.13-7.0 APIs from stable: their
    # shims must stand aside; the newer ones it lacks are shimmed.
    for api in ("kmalloc_obj", "system_dfl_wq", "strscpy_2arg", "spinlock_bh_guard",
                "secs_to_jiffies", "nlmsg_for_each_attr_type", "NL_SET_ERR_MSG_FMT"):
        assert probe_value(probes, api) == 1, api
    for api in ("timer_container_of", "hrtimer_setup", "us_to_ktime", "nla_get_u32_default"):
        assert probe_value(probes, api) == 0, api
    # 6.13's scoped_guard() (from stable), 6.9's two-argument
    # strscpy_pad() and 6.4's const struct class: the target's own.
    for api in ("scoped_guard_return", "strscpy_pad_2arg", "class_register_const"):
        assert probe_value(probes, api) == 1, api
    names, undefined = shims_used(tree)
    assert "kmemdup_array" in undefined and "backport_kmemdup_array" not in undefined
    # Only compat.ko's exports of APIs that 6.12 does not have.
    assert {u for u in undefined if u.startswith("backport_")} == set(NEWER_THAN_6_12), undefined
    assert not any(n.startswith(b"backport_") for n in names)
    # Every structural-probed shim is above 6.12's version or stands aside
    # by version: forcing the probes off adds none.
    assert census_names(tree, "retrofi_selftest_probes_off") == census_names(tree, "retrofi_selftest")


@pytest.mark.network
@pytest.mark.parametrize("target", ["6.12", "6.1"])
def test_a_string_namespace_is_exported_and_imported_without_quotes(kernels, built, target):
    """EXPORT_SYMBOL_NS_GPL(sym, "NS") and MODULE_IMPORT_NS("NS") as the
    stack writes them (6.13's form): below 6.13 the target's macros would
    quote the literal again, and modpost would write the namespace with
    its quotes into the .mod.c (which does not compile) and Module.symvers.
    (7.3's own macros take the string: the KUnit suites' exports of
    test_kunit.py's 7.3 build are that row.)"""
    tree, _ = built(kernels[target].headers)
    symvers = (tree / "Module.symvers").read_text()
    line = re.search(r"^0x[0-9a-f]+\tretrofi_selftest_namespaced\t(\S+)\t(\S+)\t(.*)$",
                     symvers, re.M)
    assert line, symvers[-500:]
    assert line.group(1).endswith("selftest/retrofi_selftest")
    assert line.group(3) == "RETROFI_SELFTEST", line.group(0)
    modinfo = retrofi_census.elf_section(str(tree / "selftest" / "retrofi_selftest.ko"),
                                         ".modinfo")
    assert b"\0import_ns=RETROFI_SELFTEST\0" in b"\0" + modinfo, modinfo


@pytest.mark.network
def test_stable_6_1_keeps_its_backported_list_count_nodes_and_gets_kmemdup_array(kernels, built):
    # Debian's 6.1.192 carries list_count_nodes() (6.3) from stable: a shim
    # guarded by version alone would redefine it and break the build.
    tree, probes = built(kernels["6.1"].headers)
    assert probe_value(probes, "list_count_nodes") == 1
    assert probe_value(probes, "kmemdup_array") == 0
    for api in ("FIELD_PREP_CONST", "SKB_CONSUMED", "drop_reasons_register_subsys"):
        assert probe_value(probes, api) == 0, api
    # From stable in 6.1.192, newer than 6.1: kept, not shimmed.
    for api in ("timer_delete", "timer_delete_sync", "secs_to_jiffies", "get_random_u8",
                "get_random_u32_inclusive", "DEFINE_RAW_FLEX"):
        assert probe_value(probes, api) == 1, api
    for api in ("kmalloc_obj", "spinlock_bh_guard", "strscpy_2arg", "NL_SET_ERR_MSG_FMT",
                "system_dfl_wq", "scoped_guard_return", "strscpy_pad_2arg",
                "class_register_const"):
        assert probe_value(probes, api) == 0, api
    names, undefined = shims_used(tree)
    assert b"backport_list_count_nodes" not in names
    # Exported by compat.ko (6.3's export, 6.4, 6.9, 6.11); the rest are inline.
    exported = ("backport_x509_load_certificate_list", "backport_kmemdup_array",
                "backport_virtio_find_vqs", "backport_drop_reasons_register_subsys",
                "backport_drop_reasons_unregister_subsys",
                "backport_drop_reasons_by_subsys") + NEWER_THAN_6_12
    for sym in exported:
        assert sym in undefined, sym
    assert b"backport_kfree_skb_reason" in names
    # The shims 6.1.192 has from stable run their bodies with the probes
    # forced off, and only there; the classes' cases take the shims'.
    for api in ("mutex_guard", "spinlock_guard", "spinlock_irqsave_guard", "rcu_guard",
                "kfree_free_class", "device_node_free", "minmax_relaxed",
                "genlmsg_multicast_allns_noflags"):
        assert probe_value(probes, api) == 1, api
    plain = census_names(tree, "retrofi_selftest")
    assert census_names(tree, "retrofi_selftest_probes_off") - plain == PROBES_OFF_6_1
    assert not PROBES_OFF_6_1 & plain
    data = (tree / "selftest" / "retrofi_selftest_probes_off.ko").read_bytes()
    for cls in (b"mutex", b"spinlock", b"spinlock_irqsave", b"rcu", b"kfree", b"device_node"):
        assert b"\0backport_" + cls + b"\0" in data, cls
    symvers = (tree / "Module.symvers").read_text()
    for sym in exported:
        assert re.search(rf"\t{sym}\t.*compat/compat\t", symvers), sym


@pytest.mark.network
def test_api_level_override_forces_the_seed_list_helpers(kernels, tmp_path):
    # 2.6.21: the forced-API module's own level (tests/compat-selftest/Kbuild
    # defines it for that object; another value would be a redefinition).
    tree, _ = build(tmp_path, kernels["6.1"].headers, api_level="2.6.21")
    names, undefined = shims_used(tree)
    for sym in (b"list_splice_tail", b"list_splice_tail_init", b"list_cut_position",
                b"list_is_singular", b"list_count_nodes"):
        assert b"backport_" + sym in names, sym
    assert "backport_kmemdup_array" in undefined


SEED_HELPERS = (b"list_splice_tail", b"list_splice_tail_init", b"list_cut_position",
                b"list_is_singular")
# Additive shims that compat.ko defines out of line and exports only for a
# target that needs them: the forced-level module must not reference them.
EXPORTED_ADDITIVE = ("backport_kmemdup_array", "backport_x509_load_certificate_list",
                     "backport_drop_reasons_register_subsys",
                     "backport_debugfs_change_name")


@pytest.mark.network
@pytest.mark.parametrize("target", ["6.12", "6.1"])
def test_forced_api_module_uses_every_inline_shim_and_loads_with_compat(kernels, built, target):
    """retrofi_selftest_api, the guest's second selftest module: built at
    2.6.21 whatever the target, it calls the inline shims (the seeds' list
    helpers, list_count_nodes, kfree_skb_reason) and needs no symbol that
    the target's compat.ko does not export."""
    tree, _ = built(kernels[target].headers)
    names, undefined = shims_used(tree, "retrofi_selftest_api")
    for sym in SEED_HELPERS + (b"list_count_nodes", b"kfree_skb_reason"):
        assert b"backport_" + sym in names, sym
    for sym in ("backport_list_splice_tail", "backport_list_count_nodes"):
        assert sym not in undefined, sym      # inline: nothing to link
    symvers = (tree / "Module.symvers").read_text()
    exported = set(re.findall(r"^0x[0-9a-f]+\t(\S+)\t\S*compat/compat\t", symvers, re.M))
    for sym in undefined:
        if sym.startswith("backport_"):
            assert sym in exported, f"{sym} is not exported by {target}'s compat.ko"
    assert not set(EXPORTED_ADDITIVE) & set(undefined)
    # Left out, and said so in its KTAP.
    data = (tree / "selftest" / "retrofi_selftest_api.ko").read_bytes()
    assert b"# SKIP exported shim %s" in data
    assert b"kmemdup_array_copies_and_refuses_overflow" in data
    symbols = subprocess.run(["nm", str(tree / "selftest" / "retrofi_selftest_api.ko")],
                             stdout=subprocess.PIPE, text=True, check=True).stdout
    assert "test_kmemdup_array_copies_and_refuses_overflow" not in symbols
    assert "test_x509_load_certificate_list_loads_and_stops_at_bad_entry" not in symbols
    assert "test_drop_reason_subsystems_as_upstream" not in symbols
    assert "test_splice_tail_appends_in_order" in symbols


_MATRIX = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
SHAPES = [t for t in _MATRIX.targets if t.kind == "shape" and _MATRIX.target(t.base).kind == "real"]


@pytest.mark.network
@pytest.mark.parametrize("shape", SHAPES, ids=[t.name for t in SHAPES])
def test_compat_and_the_selftest_build_at_every_shape_level(kernels, tmp_path, shape):
    """What a shape row builds first, without a warning: compat.ko and the
    selftest at the shape's API level on its base (the shims in force at one
    level must not lean on a helper that only a lower level defines)."""
    kt = kernels[shape.base]
    tree, _ = build(tmp_path, kt.headers, api_level=shape.api_level, cc=kt.cc)
    assert (tree / "compat" / "compat.ko").is_file()
    assert (tree / "selftest" / "retrofi_selftest.ko").is_file()


def copy_headers(kt, dst):
    """A private copy of an unpacked target (headers + kbuild) to edit."""
    root = kt.root
    shutil.copytree(os.path.join(root, "usr", "src"), dst / "usr" / "src", symlinks=True)
    shutil.copytree(os.path.join(root, "usr", "lib"), dst / "usr" / "lib", symlinks=True)
    rel = os.path.relpath(kt.headers, root)
    common = [d for d in os.listdir(dst / "usr" / "src") if d.endswith("-common")][0]
    return str(dst / rel), dst / "usr" / "src" / common


@pytest.mark.network
def test_probe_sees_an_api_removed_from_the_headers(kernels, tmp_path):
    klib, common = copy_headers(kernels["6.1"], tmp_path / "h")
    list_h = common / "include" / "linux" / "list.h"
    text = list_h.read_text()
    start = text.index("static inline size_t list_count_nodes(")
    end = text.index("\n}\n", start) + 3
    list_h.write_text(text[:start] + text[end:])
    tree, probes = build(tmp_path, klib)
    assert probe_value(probes, "list_count_nodes") == 0
    names, _ = shims_used(tree)
    assert b"backport_list_count_nodes" in names


@pytest.mark.network
def test_probe_sees_an_api_added_to_the_headers(kernels, tmp_path):
    klib, common = copy_headers(kernels["6.1"], tmp_path / "h")
    string_h = common / "include" / "linux" / "string.h"
    text = string_h.read_text()
    # As a stable kernel might carry it: inline, after kmemdup's declaration.
    decl = ("static inline void *kmemdup_array(const void *src, size_t count, size_t element_size,"
            " gfp_t gfp) { return kmemdup(src, element_size * count, gfp); }\n")
    anchor = re.search(r"extern void \*kmemdup\([^;]*;\n", text).group(0)
    string_h.write_text(text.replace(anchor, anchor + decl, 1))
    tree, probes = build(tmp_path, klib)
    assert probe_value(probes, "kmemdup_array") == 1
    names, undefined = shims_used(tree)
    assert "backport_kmemdup_array" not in undefined and b"backport_kmemdup_array" not in names


def test_every_compat_guard_is_closed_with_its_version():
    """Kernel-style: each version block ends with `#endif /* < X.Y */`."""
    bad = []
    for d in ("include", "compat"):
        for root, _, files in os.walk(os.path.join(REPO, d)):
            for f in files:
                if not f.endswith((".h", ".c")):
                    continue
                opens = closes = 0
                for line in open(os.path.join(root, f)):
                    if re.match(r"#if \(?RETROFI_(API|LINUX)_(LESS|NEED)", line):
                        opens += 1
                    if re.match(r"#endif /\* < \d+\.\d+(\.\d+)? \*/", line):
                        closes += 1
                if opens != closes:
                    bad.append(f"{f}: {opens} version guards, {closes} closed with '#endif /* < X.Y */'")
    assert bad == []


def build_module(tmp_path, klib, files, api_level=None, cc="", force_version_h=False):
    """compat.ko and one module, retrofi_test, made of FILES ({name: text}; the
    objects are the .c files), built the way the output tree builds the
    stack: compat headers first, probes run against KLIB, and with
    FORCE_VERSION_H the output tree's force-included retrofi/version.h.
    Returns (module path, probes.h text, build output)."""
    tree = tmp_path / "tree"
    shutil.copytree(os.path.join(REPO, "include"), tree / "include")
    shutil.copy(os.path.join(REPO, "drivers", "out-tree", "include", "retrofi", "version.h"),
                tree / "include" / "retrofi" / "version.h")
    shutil.copytree(os.path.join(REPO, "compat"), tree / "compat")
    (tree / "compat" / "retrofi-version.h").write_text(
        '#define RETROFI_PROJECT_VERSION "test"\n#define RETROFI_SOURCE_KERNEL "test"\n')
    (tree / "mod").mkdir()
    for name, text in files.items():
        (tree / "mod" / name).write_text(text)
    objs = " ".join(n[:-2] + ".o" for n in sorted(files) if n.endswith(".c"))
    (tree / "mod" / "Kbuild").write_text(
        f"obj-m += retrofi_test.o\nretrofi_test-y := {objs}\nccflags-y += -I$(src)\n")
    (tree / "Kbuild").write_text("obj-m += compat/ mod/\n")
    probes = tree / "include" / "retrofi" / "probes.h"
    if (klib, cc) in _PROBES:
        probes.write_text(_PROBES[klib, cc])
    p = subprocess.run(["sh", str(tree / "compat" / "probe.sh"), klib, str(tree / "compat" / "probes.list"),
                        str(probes)] + ([f"CC={cc}"] if cc else []),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    _PROBES[klib, cc] = probes.read_text()
    flags = f"-I{tree}/include"
    if force_version_h:
        flags += f" -include {tree}/include/retrofi/version.h"
    if api_level:
        flags += f" -DRETROFI_API_CODE={api_code(api_level)}"
    argv = ["make", "-C", klib, f"-j{os.cpu_count() or 1}", f"M={tree}", f"NOSTDINC_FLAGS={flags}",
            "modules"]
    if cc:
        argv.append(f"CC={cc}")
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return tree / "mod" / "retrofi_test.ko", probes.read_text(), p


TIMER_TEARDOWN = """\
#include <linux/module.h>
#include <linux/timer.h>

static struct timer_list t;

static void fire(struct timer_list *unused)
{
}

static int __init start(void)
{
	timer_setup(&t, fire, 0);
	return 0;
}

static void __exit stop(void)
{
	timer_shutdown_sync(&t);
	timer_shutdown(&t);
}

module_init(start);
module_exit(stop);
MODULE_LICENSE("GPL");
"""


def rewritten_by_timer_rule(tmp_path):
    """TIMER_TEARDOWN as semantic-patches/0001-timer-shutdown rewrites it."""
    import retrofi_generate as gen
    src = tmp_path / "in.c"
    src.write_text(TIMER_TEARDOWN)
    out = tmp_path / "out.c"
    p = subprocess.run([gen.SPATCH, "--sp-file",
                        os.path.join(REPO, "semantic-patches", "0001-timer-shutdown.cocci"),
                        *gen.SPATCH_OPTIONS, str(src), "-o", str(out)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert out.exists(), p.stdout
    text = out.read_text()
    assert text.count("RETROFI_API_HAS(6,2,0, timer_shutdown)") == 2, text
    return text


@pytest.mark.network
@pytest.mark.parametrize("target,api_level,keeps_shutdown", [
    ("6.12", None, True),
    ("6.1", None, True),            # 6.1.158+ exports timer_shutdown[_sync]()
    ("6.12", "6.2", True),          # a shape at 6.2 still has it
    ("6.1", "2.6.26", False),       # a shape below 6.2 runs the old teardown
])
def test_timer_rule_keeps_timer_shutdown_wherever_the_target_has_it(kernels, tmp_path, target,
                                                                    api_level, keeps_shutdown):
    code = rewritten_by_timer_rule(tmp_path)
    ko, probes, p = build_module(tmp_path, kernels[target].headers, {"mod.c": code},
                                 api_level=api_level, force_version_h=True)
    assert p.returncode == 0 and "warning:" not in p.stdout, p.stdout[-4000:]
    assert probe_value(probes, "timer_shutdown") == 1
    undefined = subprocess.run(["nm", "-u", str(ko)], stdout=subprocess.PIPE, text=True,
                               check=True).stdout.split()
    shutdown = {"timer_shutdown_sync", "timer_shutdown"} & set(undefined)
    if keeps_shutdown:
        assert shutdown == {"timer_shutdown_sync", "timer_shutdown"}, undefined
    else:
        assert not shutdown, undefined


@pytest.mark.network
def test_timer_probe_sees_timer_shutdown_removed_from_the_headers(kernels, tmp_path):
    """A 6.1 without the stable backport (before 6.1.158) tears down with
    del_timer_sync(): the probe, not the version, decides."""
    klib, common = copy_headers(kernels["6.1"], tmp_path / "h")
    timer_h = common / "include" / "linux" / "timer.h"
    text = timer_h.read_text()
    for decl in ("extern int timer_shutdown_sync(struct timer_list *timer);\n",
                 "extern int timer_shutdown(struct timer_list *timer);\n"):
        assert decl in text, decl
        text = text.replace(decl, "")
    timer_h.write_text(text)
    code = rewritten_by_timer_rule(tmp_path)
    ko, probes, p = build_module(tmp_path, klib, {"mod.c": code}, force_version_h=True)
    assert p.returncode == 0 and "warning:" not in p.stdout, p.stdout[-4000:]
    assert probe_value(probes, "timer_shutdown") == 0
    undefined = subprocess.run(["nm", "-u", str(ko)], stdout=subprocess.PIPE, text=True,
                               check=True).stdout.split()
    assert not {"timer_shutdown_sync", "timer_shutdown"} & set(undefined), undefined


TWO_TRACE_HEADERS = {
    "trace_a.h": """\
#undef TRACE_SYSTEM
#define TRACE_SYSTEM retrofi_a

#if !defined(_TRACE_A_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_A_H
#include <linux/tracepoint.h>

TRACE_EVENT(retrofi_a,
	TP_PROTO(const char *name),
	TP_ARGS(name),
	TP_STRUCT__entry(__string(name, name)),
	TP_fast_assign(__assign_str(name);),
	TP_printk("%s", __get_str(name))
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_a
#include <trace/define_trace.h>
""",
    "trace_b.h": """\
#undef TRACE_SYSTEM
#define TRACE_SYSTEM retrofi_b

#if !defined(_TRACE_B_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_B_H
#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(retrofi_b_class,
	TP_PROTO(const char *dev, const char *what, int n),
	TP_ARGS(dev, what, n),
	TP_STRUCT__entry(__string(dev, dev) __field(int, n) __string(what, what)),
	TP_fast_assign(__assign_str(dev); __entry->n = n; __assign_str(what);),
	TP_printk("%s %s %d", __get_str(dev), __get_str(what), __entry->n)
);

DEFINE_EVENT(retrofi_b_class, retrofi_b,
	TP_PROTO(const char *dev, const char *what, int n),
	TP_ARGS(dev, what, n)
);
#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_b
#include <trace/define_trace.h>
""",
    "mod.c": """\
#include <linux/module.h>
#define CREATE_TRACE_POINTS
#include "trace_a.h"
#include "trace_b.h"

static int __init start(void)
{
	trace_retrofi_a("a");
	trace_retrofi_b("dev", "what", 1);
	return 0;
}

module_init(start);
MODULE_LICENSE("GPL");
""",
}


@pytest.mark.network
@pytest.mark.parametrize("target", ["6.12", "6.1"])
def test_two_trace_headers_with_one_argument_assign_str_build_in_one_file(kernels, tmp_path,
                                                                          target):
    """mac80211's trace.c creates trace.h and trace_msg.h: with 6.10's
    one-argument __assign_str(), a second header created in the same file
    must build on a kernel older than 6.10 too."""
    ko, _, p = build_module(tmp_path, kernels[target].headers, TWO_TRACE_HEADERS)
    assert p.returncode == 0 and "warning:" not in p.stdout, p.stdout[-4000:]
    assert ko.exists()


RCU_CONDITION_ONLY = """\
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <net/sock.h>

struct rt_owner {
	struct mutex mtx;
	int __rcu *p;
};

struct rt_user {
	struct rt_owner *owner;
	int __rcu *q;
};

static struct rt_owner o;
static struct rt_user u = { .owner = &o };

/* As 7.3's ieee80211_set_sta_4addr(): 'owner' is used only in the check. */
static int *read_locked(struct rt_user *user)
{
	struct rt_owner *owner = user->owner;

	return rcu_dereference_protected(user->q, lockdep_is_held(&owner->mtx));
}

static int __init start(void)
{
	struct sock *sk = NULL;

	mutex_init(&o.mtx);
	mutex_lock(&o.mtx);
	(void)read_locked(&u);
	mutex_unlock(&o.mtx);
	/* <net/sock.h>'s __sk_dst_get() is compiled with its condition too. */
	if (sk)
		(void)__sk_dst_get(sk);
	return 0;
}

module_init(start);
MODULE_LICENSE("GPL");
"""


@pytest.mark.network
def test_a_variable_used_only_in_an_rcu_condition_is_used_on_5_10(kernels, tmp_path):
    """5.10 without lockdep drops the condition of rcu_dereference_protected():
    "unused variable" (7.3's wiphy_dereference(wiphy, ...)), unless the
    compat RCU_LOCKDEP_WARN() compiles it, which <net/sock.h>'s own
    __sk_dst_get() must survive (lockdep_sock_is_held() declared)."""
    kt = kernels["5.10"]
    ko, _, p = build_module(tmp_path, kt.headers, {"mod.c": RCU_CONDITION_ONLY}, cc=kt.cc,
                            force_version_h=True)
    assert p.returncode == 0 and "warning:" not in p.stdout, p.stdout[-4000:]
    # The condition is dead code: nothing of lockdep's is linked.
    undefined = subprocess.run(["nm", "-u", str(ko)], stdout=subprocess.PIPE, text=True,
                               check=True).stdout.split()
    assert not {"lockdep_is_held", "lockdep_sock_is_held"} & set(undefined), undefined
