"""The probes, not the version, choose the shims: on the oldest and the
newest ABI the archive serves of one major (6.1, 5.10), the compat headers
and the rewritten code take the target's own API exactly where its headers
have it. No build of the stack: compat/probe.sh on each header tree, then
the preprocessor alone on a tiny file, or the compiler on one, as the
output tree compiles it."""

import os
import re
import shutil
import subprocess

import pytest

import retrofi_census
import retrofi_debversion
import retrofi_kernels
import retrofi_matrix
from conftest import REPO
from test_compat import probe_value, rewritten_by_timer_rule

FAMILY = "all-6.1"

# A caller of each probed API whose choice is checked; the timer teardown
# is semantic-patches/0001-timer-shutdown's output (rewritten_by_timer_rule).
LIST_CALLER = """
size_t retrofi_decide_count(struct list_head *h);
size_t retrofi_decide_count(struct list_head *h)
{
	return list_count_nodes(h);
}
"""


def oldest_and_newest_of(family):
    """The oldest and the newest generic (amd64) ABI of a family, as pinned
    in kernel-matrix.lock, with their headers fetched."""
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    rows = sorted((t for t in m.targets if t.family == family
                   and t.flavour == m.family(family).flavours[0]),
                  key=lambda t: retrofi_debversion.sort_key(t.version))
    assert len(rows) >= 2, f"family {family} has {len(rows)} pinned ABIs: run make kernels-update"
    k = retrofi_kernels.fetch(m, [rows[0].name, rows[-1].name], with_source=False).targets
    return k[rows[0].name], k[rows[-1].name]


@pytest.fixture(scope="module")
def oldest_and_newest():
    return oldest_and_newest_of(FAMILY)


def target_has(kt, header, declaration):
    """Whether the target's own header (its -common tree) has a declaration."""
    src = os.path.join(kt.root, "usr", "src")
    for d in os.listdir(src):
        path = os.path.join(src, d, "include", header)
        if d.endswith("-common") and os.path.exists(path):
            return re.search(declaration, open(path).read()) is not None
    raise AssertionError(f"no {header} in {src}")


def probed_tree(kt, tmp_path, mutate=None):
    """The output tree's include/ for kt, with the probes.h that
    compat/probe.sh writes from kt's own headers: (tree, probes.h text).
    mutate(include_dir), if given, edits the copied headers first."""
    tree = tmp_path / kt.name
    shutil.copytree(os.path.join(REPO, "include"), tree / "include")
    if mutate:
        mutate(tree / "include")
    shutil.copy(os.path.join(REPO, "drivers", "out-tree", "include", "retrofi", "version.h"),
                tree / "include" / "retrofi" / "version.h")
    probes = tree / "include" / "retrofi" / "probes.h"
    if kt.headers not in _PROBED:
        p = subprocess.run(["sh", os.path.join(REPO, "compat", "probe.sh"), kt.headers,
                            os.path.join(REPO, "compat", "probes.list"), str(probes)] + cc_of(kt),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert p.returncode == 0, p.stdout
        _PROBED[kt.headers] = probes.read_text()
    probes.write_text(_PROBED[kt.headers])
    return tree, _PROBED[kt.headers]


# probes.h of each header tree: compat/probe.sh compiles every probe of
# compat/probes.list against the target, once per tree in this module.
_PROBED = {}


def cc_of(kt):
    return [f"CC={kt.cc}"] if kt.cc else []


def make_decide(kt, tree, code, target):
    """`make <target>` of decide.c (code) with kt's Kbuild, as every file of
    the output tree is made: compat headers first, retrofi/version.h
    force-included."""
    (tree / "decide.c").write_text(code)
    (tree / "Kbuild").write_text("obj-m += decide.o\n")
    flags = f"-I{tree}/include -include {tree}/include/retrofi/version.h"
    return subprocess.run(["make", "-C", kt.headers, f"M={tree}", f"NOSTDINC_FLAGS={flags}",
                           target] + cc_of(kt),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def compiled_census(kt, tmp_path, code, headers=()):
    """Compile code (with the selftest headers it includes) as one object
    of the output tree against kt: it must build without a warning.
    Returns (probes.h, the census records' names in the object)."""
    tree, probes = probed_tree(kt, tmp_path)
    for h in headers:
        shutil.copy(os.path.join(REPO, "tests", "compat-selftest", h), tree / h)
    p = make_decide(kt, tree, code, "decide.o")
    assert p.returncode == 0, p.stdout[-4000:]
    assert "warning:" not in p.stdout, p.stdout[-4000:]
    data = retrofi_census.elf_section(str(tree / "decide.o"))
    return probes, {s.name for s in retrofi_census.parse(data or b"")}


def decisions(kt, tmp_path, code, mutate=None):
    """What the output tree's headers choose against kt: probe.sh writes
    probes.h, then `make <file>.i` preprocesses code as every file of the
    tree is (compat headers first, retrofi/version.h force-included).
    Returns (probes.h, {api: "own" | "shim"})."""
    tree, probes = probed_tree(kt, tmp_path, mutate)
    p = make_decide(kt, tree, code + LIST_CALLER, "decide.i")
    assert p.returncode == 0, p.stdout[-3000:]
    out = (tree / "decide.i").read_text()
    count = re.search(r"return (\w+)\(h\);", out).group(1)
    teardown = re.findall(r"\b(timer_shutdown_sync|del_timer_sync)\(&t\)", out)
    assert count in ("list_count_nodes", "backport_list_count_nodes"), count
    assert len(teardown) == 1, teardown
    return probes, {
        "list_count_nodes": "own" if count == "list_count_nodes" else "shim",
        "timer_shutdown": "own" if teardown[0] == "timer_shutdown_sync" else "shim"}


def check_the_probes_choose(old, new, tmp_path, mutate=None):
    """On each ABI, every probed API is the target's own exactly where its
    headers declare it, and the shim elsewhere; and the two ABIs differ on
    list_count_nodes()."""
    code = rewritten_by_timer_rule(tmp_path)
    chosen = {}
    for kt in (old, new):
        probes, chosen[kt.name] = decisions(kt, tmp_path / "trees", code, mutate)
        has = {"list_count_nodes": target_has(kt, "linux/list.h",
                                              r"size_t list_count_nodes\(struct list_head"),
               "timer_shutdown": target_has(kt, "linux/timer.h",
                                            r"extern int timer_shutdown_sync\(struct timer_list")}
        for api, present in has.items():
            assert probe_value(probes, api) == int(present), (kt.name, api)
            assert chosen[kt.name][api] == ("own" if present else "shim"), \
                f"{kt.name} ({kt.version}): the headers {'have' if present else 'lack'} " \
                f"{api}, but the tree chose the {chosen[kt.name][api]} one"
    # The premise: one major, two ABIs, and the stable backport of
    # list_count_nodes() (6.1.191) between them.
    assert old.version.split(".")[:2] == new.version.split(".")[:2]
    assert chosen[old.name]["list_count_nodes"] == "shim", chosen
    assert chosen[new.name]["list_count_nodes"] == "own", chosen


@pytest.mark.network
def test_the_probes_not_the_version_choose_the_shims_on_two_abis_of_one_major(oldest_and_newest,
                                                                            tmp_path):
    check_the_probes_choose(*oldest_and_newest, tmp_path)


def list_count_nodes_by_version(include):
    """The mutation the check above must catch: list_count_nodes()'s shim
    chosen by the API version alone (below 6.3), its probe ignored."""
    h = include / "linux" / "list.h"
    text = h.read_text()
    guard = "RETROFI_API_NEED(6, 3, 0, RETROFI_HAVE_list_count_nodes)"
    assert text.count(guard) == 1, f"{h}: the guard of list_count_nodes() changed: update this test"
    h.write_text(text.replace(guard, "RETROFI_API_LESS(6, 3, 0)"))


@pytest.mark.network
def test_a_version_check_in_place_of_a_probe_is_caught_on_the_newer_abi(oldest_and_newest,
                                                                       tmp_path):
    """The check above can fail: with list_count_nodes()'s probe replaced by
    a version check, the newer 6.1 ABI (which has the function from stable)
    gets the shim, and the check names that ABI and the API."""
    old, new = oldest_and_newest
    with pytest.raises(AssertionError) as caught:
        check_the_probes_choose(old, new, tmp_path, mutate=list_count_nodes_by_version)
    assert f"{new.name} ({new.version}): the headers have list_count_nodes, " \
        "but the tree chose the shim one" in str(caught.value), caught.value


# The stack's two calls that 5.10's strict min() and max() refused with a
# warning (mac80211's scan.c: an unsigned long against an int constant;
# cfg80211's sme.c: a u8 against one), and the compat selftest's case of
# them, whose build-time checks fail the compile if a min() or max() gives
# a wrong type or value.
MINMAX_CALLER = """
#include <linux/module.h>
#include <linux/jiffies.h>
#include "retrofi_selftest_minmax.h"

unsigned long retrofi_decide_scan_delay(unsigned int ms);
unsigned long retrofi_decide_scan_delay(unsigned int ms)
{
	return max(msecs_to_jiffies(ms), HZ / 9);
}

size_t retrofi_decide_ssid_len(const u8 *datalen);
size_t retrofi_decide_ssid_len(const u8 *datalen)
{
	return min(*datalen, 32);
}

const char *retrofi_decide_minmax_case(void);
const char *retrofi_decide_minmax_case(void)
{
	return test_min_max_compare_an_unsigned_with_a_positive_int_constant() ?:
	       test_umin_umax_compare_as_unsigned();
}
MODULE_LICENSE("GPL");
"""


@pytest.mark.network
def test_min_max_of_an_unsigned_and_a_positive_constant_build_on_the_oldest_and_newest_5_10(
        tmp_path):
    """Debian's 5.10.0-30 (5.10.218) predates stable's update of
    <linux/minmax.h> (5.10.246) that 5.10.0-46 (5.10.262) has: the probe
    finds the strict min() and max() on the first only, and the shim that
    relaxes them is compiled there (its census records are in the object)
    and nowhere else. On both, the stack's calls and the selftest case
    compile without a warning."""
    old, new = oldest_and_newest_of("all-5.10")
    shimmed = {}
    for kt in (old, new):
        probes, names = compiled_census(kt, tmp_path, MINMAX_CALLER,
                                        ["retrofi_selftest_minmax.h"])
        relaxed = target_has(kt, "linux/minmax.h", r"#define __types_ok\(")
        assert probe_value(probes, "minmax_relaxed") == int(relaxed), (kt.name, kt.version)
        shimmed[kt.name] = names & {"min", "max"}
        assert shimmed[kt.name] == (set() if relaxed else {"min", "max"}), \
            f"{kt.name} ({kt.version}): the headers' min()/max() are " \
            f"{'relaxed' if relaxed else 'strict'}, but the shim records {shimmed[kt.name]}"
    # The premise: one major, the stable update between the two ABIs.
    assert old.version.split(".")[:2] == new.version.split(".")[:2] == ["5", "10"]
    assert shimmed == {old.name: {"min", "max"}, new.name: set()}, shimmed


@pytest.mark.network
def test_the_netns_member_follows_the_probe_on_a_6_12_abi_before_the_stable_rename(tmp_path):
    """Debian's 6.12.107 predates stable's "net: rename netns_local to
    netns_immutable" (6.12.114), which 6.12.118 has: rule 0200's output
    (its test pair's expected file, as the generator writes it) must set
    the member the target's own struct net_device has, netns_local there,
    and compile without a warning. (On 6.12.118 and 5.10 the pair is
    compiled by test_semantic_patches.py, where a wrong choice would name
    a member the struct lacks.)"""
    old, new = oldest_and_newest_of("all-6.12")
    assert target_has(new, "linux/netdevice.h", r"\bnetns_immutable:1;")
    assert target_has(old, "linux/netdevice.h", r"\bnetns_local:1;") and \
        not target_has(old, "linux/netdevice.h", r"\bnetns_immutable\b"), \
        f"{old.name} ({old.version}) no longer predates the rename: pick an older ABI"
    tree, probes = probed_tree(old, tmp_path)
    assert (probe_value(probes, "netdev_netns_immutable"),
            probe_value(probes, "netdev_netns_local")) == (0, 1), old.name
    expected = os.path.join(REPO, "tests", "semantic-patches", "0200-netdev-netns-immutable",
                            "expected.c")
    code = open(expected).read()
    p = make_decide(old, tree, code, "decide.i")
    assert p.returncode == 0, p.stdout[-3000:]
    out = (tree / "decide.i").read_text()
    assert re.findall(r"->(netns_\w+) = (\w+);", out) == \
        [("netns_local", "false"), ("netns_local", "true"), ("netns_local", "true")], out[-2000:]
    assert "NETIF_F_NETNS_LOCAL" not in out
    p = make_decide(old, tree, code, "decide.o")
    assert p.returncode == 0 and "warning:" not in p.stdout, p.stdout[-4000:]


# The 7.3 stack's uses of the cleanup classes (nl80211.c's attribute
# buffers, mac80211's RCU sections, hwsim's NAN state lock), and the
# selftest cases of each, compiled as one object of the output tree.
CLEANUP_CALLER = """
#include <linux/module.h>
#include "retrofi_selftest_cleanup.h"

int retrofi_decide_attrs(size_t n);
int retrofi_decide_attrs(size_t n)
{
	struct nlattr **attrs __free(kfree) = kcalloc(n, sizeof(*attrs), GFP_KERNEL);

	return attrs ? 0 : -ENOMEM;
}

const char *retrofi_decide_cleanup_cases(void);
const char *retrofi_decide_cleanup_cases(void)
{
	return test_spinlock_guard_releases_at_scope_exit() ?:
	       test_spinlock_irqsave_guard_masks_interrupts_in_its_scope() ?:
	       test_kfree_class_leaves_null_and_error_pointers_alone() ?:
	       test_device_node_class_compiles_and_leaves_null_alone();
}

int retrofi_decide_rcu(int __rcu **slot);
int retrofi_decide_rcu(int __rcu **slot)
{
	int *p;

	guard(rcu)();
	p = rcu_dereference(*slot);
	return p ? *p : 0;
}
MODULE_LICENSE("GPL");
"""

CLEANUP_SHIMS = {"spinlock_guard": ("linux/spinlock.h", r"DEFINE_LOCK_GUARD_1\(spinlock,"),
                 "spinlock_irqsave_guard": ("linux/spinlock.h",
                                            r"DEFINE_LOCK_GUARD_1\(spinlock_irqsave,"),
                 "rcu_guard": ("linux/rcupdate.h", r"DEFINE_LOCK_GUARD_0\(rcu,"),
                 "kfree_free_class": ("linux/slab.h", r"DEFINE_FREE\(kfree,")}


@pytest.mark.network
def test_the_cleanup_classes_of_the_stack_build_on_the_oldest_and_newest_5_10(tmp_path):
    """Debian's 5.10.0-30 (5.10.218) has no <linux/cleanup.h>, so none of
    the classes the 7.3 stack uses (its nl80211.c failed: "cleanup
    argument not a function"); 5.10.0-46 (5.10.262) has stable's. The
    probes find each class where the target's own header defines it, the
    shims are compiled on the first only (their census records are in the
    object), and on both the callers and the selftest cases compile
    without a warning."""
    old, new = oldest_and_newest_of("all-5.10")
    shimmed = {}
    for kt in (old, new):
        probes, names = compiled_census(kt, tmp_path, CLEANUP_CALLER,
                                        ["retrofi_selftest_cleanup.h"])
        own = {name for name, (header, definition) in CLEANUP_SHIMS.items()
               if target_has(kt, header, definition)}
        assert {n for n in CLEANUP_SHIMS if probe_value(probes, n)} == own, (kt.name, kt.version)
        shimmed[kt.name] = names & set(CLEANUP_SHIMS)
        assert shimmed[kt.name] == set(CLEANUP_SHIMS) - own, (kt.name, shimmed[kt.name])
    assert shimmed == {old.name: set(CLEANUP_SHIMS), new.name: set()}, shimmed


# What the vendor drivers take from stable 5.10.y that 5.10.0-30 predates:
# rtw89's umin(), ath11k's and ath12k's dma_mb() and
# irq_set_affinity_and_hint(), mt76's two-argument usb_maxpacket().
DRIVER_STABLE_CALLER = """
#include <linux/module.h>
#include <linux/interrupt.h>
#include <linux/minmax.h>
#include <linux/usb.h>
#include <asm/barrier.h>

size_t retrofi_decide_nss(unsigned int idx, size_t n);
size_t retrofi_decide_nss(unsigned int idx, size_t n)
{
	return umin(idx >> 4, n - 1);
}

void retrofi_decide_ring_head(u32 *head, u32 v);
void retrofi_decide_ring_head(u32 *head, u32 v)
{
	dma_mb();
	WRITE_ONCE(*head, v);
}

int retrofi_decide_hint(unsigned int irq);
int retrofi_decide_hint(unsigned int irq)
{
	return irq_set_affinity_and_hint(irq, cpumask_of(0));
}

u16 retrofi_decide_data_len(struct usb_device *udev);
u16 retrofi_decide_data_len(struct usb_device *udev)
{
	return usb_maxpacket(udev, usb_sndctrlpipe(udev, 0));
}
MODULE_LICENSE("GPL");
"""

# name: (the probe's name or None for a macro the guard tests, header,
#        the target's own definition)
DRIVER_STABLE_SHIMS = {
    "umin": (None, "linux/minmax.h", r"#define umin\("),
    "dma_mb": (None, "asm-generic/barrier.h", r"#define dma_mb\(\)"),
    "irq_set_affinity_and_hint": ("irq_set_affinity_and_hint", "linux/interrupt.h",
                                  r"irq_set_affinity_and_hint\(unsigned int irq,"),
    "usb_maxpacket": ("usb_maxpacket_of_the_pipe", "linux/usb.h",
                      r"usb_maxpacket\(struct usb_device \*udev, int pipe,\s*/\*"),
}


@pytest.mark.network
def test_the_stable_apis_of_the_vendor_drivers_build_on_the_oldest_and_newest_5_10(tmp_path):
    """Debian's 5.10.0-46 (5.10.262) carries from stable what rtw89,
    ath11k, ath12k and mt76 call: umin(), dma_mb(),
    irq_set_affinity_and_hint() and usb_maxpacket() of two arguments;
    5.10.0-30 (5.10.218) has none of them, and the drivers failed to
    compile there. On both the callers compile without a warning; the
    probes find the functions where the target's own header defines them,
    the shims are compiled on 5.10.0-30 only (their census records are in
    the object), and dma_mb() is a full barrier (mfence) on both."""
    old, new = oldest_and_newest_of("all-5.10")
    shimmed = {}
    for kt in (old, new):
        probes, names = compiled_census(kt, tmp_path, DRIVER_STABLE_CALLER)
        own = {name for name, (_, header, definition) in DRIVER_STABLE_SHIMS.items()
               if target_has(kt, header, definition)}
        for name, (probe, _, _) in DRIVER_STABLE_SHIMS.items():
            if probe:
                assert probe_value(probes, probe) == int(name in own), (kt.name, name)
        shimmed[kt.name] = names & set(DRIVER_STABLE_SHIMS)
        assert shimmed[kt.name] == set(DRIVER_STABLE_SHIMS) - own, (kt.name, shimmed[kt.name])
        dis = subprocess.run(["objdump", "-d", str(tmp_path / kt.name / "decide.o")],
                             stdout=subprocess.PIPE, text=True, check=True).stdout
        ring = dis.split("<retrofi_decide_ring_head>:", 1)[1].split("\n\n", 1)[0]
        assert "mfence" in ring, (kt.name, ring)
    assert shimmed == {old.name: set(DRIVER_STABLE_SHIMS), new.name: set()}, shimmed


NLMSG_CALLER = """
#include <linux/module.h>
#include <net/netlink.h>

int retrofi_decide_count_type(const struct nlmsghdr *nlh, int type);
int retrofi_decide_count_type(const struct nlmsghdr *nlh, int type)
{
	const struct nlattr *a;
	int rem, n = 0;

	nlmsg_for_each_attr_type(a, type, nlh, 0, rem)
		n++;
	return n;
}
MODULE_LICENSE("GPL");
"""


@pytest.mark.network
def test_an_api_stable_took_below_its_upstream_version_is_probed_on_every_abi_of_that_line(
        tmp_path):
    """nlmsg_for_each_attr_type() is v6.17's; stable 6.12.y took it between
    Debian's 6.12.107 and 6.12.118. A shim guarded by the line's own
    version (6.12) never reaches 6.12.107, whose build of the 7.3 stack
    then failed in nl80211.c: below 6.17 the probe decides. On both ABIs
    the caller compiles without a warning, with the shim's census record
    on 6.12.107 only."""
    old, new = oldest_and_newest_of("all-6.12")
    shimmed = {}
    for kt in (old, new):
        probes, names = compiled_census(kt, tmp_path, NLMSG_CALLER)
        own = target_has(kt, "net/netlink.h", r"#define nlmsg_for_each_attr_type\(")
        assert probe_value(probes, "nlmsg_for_each_attr_type") == int(own), kt.name
        shimmed[kt.name] = "nlmsg_for_each_attr_type" in names
    assert shimmed == {old.name: True, new.name: False}, shimmed
