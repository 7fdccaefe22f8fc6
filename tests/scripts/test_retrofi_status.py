"""retrofi-status (packaging/retrofi-status) on fake /proc, /sys, /lib and
/var trees (RETROFI_STATUS_ROOT), run by dash as a user's shell would:
each state of a machine gets its report and its exit status.

The run in a guest, with the backport loaded and with the in-tree stack
loaded, is the end-to-end test's (not here).
"""

import os
import subprocess

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "packaging", "retrofi-status")
REL = "6.1.0-18-amd64"
VER = "7.3.4-1.bpo13.1"
EFI = "8be4df61-93ca-11d2-aa0d-e39c3b11c5a7"
SHIM = "605dab50-e046-4300-abb6-3dd810dd8b23"
CERT = b"0\x82\x03\x1cretrofi-test-dkms-signing-key" + bytes(range(40))

RETROFI = ["compat", "cfg80211", "mac80211", "ath", "ath9k_hw", "ath9k_common", "ath9k"]
# Who uses whom (holders): module -> the modules that depend on it.
HOLDERS = {"compat": ["cfg80211", "mac80211", "ath", "ath9k_hw", "ath9k_common", "ath9k"],
           "cfg80211": ["mac80211", "ath", "ath9k"], "mac80211": ["ath9k"],
           "ath": ["ath9k_hw", "ath9k_common", "ath9k"], "ath9k_hw": ["ath9k_common", "ath9k"],
           "ath9k_common": ["ath9k"]}
IN_TREE = {"cfg80211": ["mac80211", "iwlwifi", "iwlmvm"], "mac80211": ["iwlmvm"],
           "iwlwifi": ["iwlmvm"]}


def _write(path, data, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


class Machine:
    """A fake root: what retrofi-status reads."""

    def __init__(self, root):
        self.root = str(root)
        self.dmesg = ""
        self.dmesg_readable = True
        _write(self.p("proc/sys/kernel/osrelease"), REL + "\n")
        _write(self.p("proc/modules"), "")
        _write(self.p(f"lib/modules/{REL}/modules.dep"), "")

    def p(self, rel):
        return os.path.join(self.root, rel)

    def load(self, holders, version=None):
        mods = set(holders) | {h for hs in holders.values() for h in hs}
        with open(self.p("proc/modules"), "a") as f:
            for m in sorted(mods):
                users = ",".join(holders.get(m, []))
                f.write(f"{m} 16384 {len(holders.get(m, []))} {users or '-'}, Live 0x0\n")
        for m in mods:
            os.makedirs(self.p(f"sys/module/{m}/holders"), exist_ok=True)
        for m, hs in holders.items():
            for h in hs:
                os.symlink(f"../../{h}", self.p(f"sys/module/{m}/holders/{h}"))
        if version:
            _write(self.p("sys/module/compat/version"), version + "\n")

    def modules_dep(self, where):
        """modules.dep: where[m] is the file modprobe takes for m."""
        _write(self.p(f"lib/modules/{REL}/modules.dep"),
               "".join(f"{path}: \n" for path in where.values()))

    def dkms(self, built=True, installed=True):
        base = self.p(f"var/lib/dkms/retrofi/{VER}")
        os.makedirs(base)
        os.symlink(f"/usr/src/retrofi-{VER}", os.path.join(base, "source"))
        if built:
            os.makedirs(os.path.join(base, REL, "x86_64", "module"))
        if installed:
            os.symlink(f"{VER}/{REL}/x86_64",
                       self.p(f"var/lib/dkms/retrofi/kernel-{REL}-x86_64"))

    def secure_boot(self, on, enrolled):
        _write(self.p(f"sys/firmware/efi/efivars/SecureBoot-{EFI}"),
               b"\x06\x00\x00\x00" + (b"\x01" if on else b"\x00"), "wb")
        _write(self.p("var/lib/dkms/mok.pub"), CERT, "wb")
        other = b"0\x82\x05\x00some-distribution-key" + bytes(range(60))
        _write(self.p(f"sys/firmware/efi/efivars/MokListRT-{SHIM}"),
               b"\x06\x00\x00\x00" + b"\xa1\x59\xc0\xa5" + other + (CERT if enrolled else b""),
               "wb")

    def run(self, *args):
        stub = self.p("stub-bin")
        os.makedirs(stub, exist_ok=True)
        _write(os.path.join(stub, "dmesg"),
               "#!/bin/sh\n" + ("cat \"$RETROFI_STATUS_ROOT/dmesg.txt\"\n" if self.dmesg_readable
                                else "echo 'dmesg: read kernel buffer failed' >&2; exit 1\n"))
        os.chmod(os.path.join(stub, "dmesg"), 0o755)
        _write(self.p("dmesg.txt"), self.dmesg)
        env = {"PATH": f"{stub}:/usr/bin:/bin", "RETROFI_STATUS_ROOT": self.root,
               "LC_ALL": "C"}
        p = subprocess.run(["dash", SCRIPT, *args], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        assert p.stderr == "" or args, p.stderr
        return p.returncode, p.stdout, p.stderr


def lines(out, key):
    return [l.split(None, 1)[1] for l in out.splitlines() if l.split(None, 1)[0] == key]


def backport(m):
    m.load(HOLDERS, version="v0.4-12-gabcdef0")
    m.modules_dep({n: f"updates/dkms/{n}.ko" for n in RETROFI})
    m.dkms()


def test_backport_loaded_reports_each_module_as_retrofis_and_exits_0(tmp_path):
    m = Machine(tmp_path)
    backport(m)
    m.secure_boot(on=True, enrolled=True)
    m.dmesg = "[    2.1] ath9k 0000:00:05.0: enabling device\n"
    rc, out, _ = m.run()
    assert rc == 0, out
    assert lines(out, "kernel") == [REL]
    assert lines(out, "stack") == [
        "cfg80211: retrofi's v0.4-12-gabcdef0 (modprobe takes updates/dkms/cfg80211.ko)",
        "mac80211: retrofi's v0.4-12-gabcdef0 (modprobe takes updates/dkms/mac80211.ko)"]
    assert [l.split(":")[0] for l in lines(out, "driver")] == \
        ["ath", "ath9k", "ath9k_common", "ath9k_hw"]
    assert all("retrofi's" in l for l in lines(out, "driver"))
    assert lines(out, "dkms") == [f"retrofi {VER}: installed for {REL}"]
    assert lines(out, "secureboot") == \
        ["on; DKMS's signing key /var/lib/dkms/mok.pub is enrolled"]
    assert lines(out, "firmware") == ["no failed firmware load from the loaded drivers"]
    assert lines(out, "result") == ["OK: retrofi's wireless stack is loaded (v0.4-12-gabcdef0)"]


def test_in_tree_stack_loaded_without_retrofi_built_exits_1_and_says_so(tmp_path):
    m = Machine(tmp_path)
    m.load(IN_TREE)
    m.modules_dep({"cfg80211": "kernel/net/wireless/cfg80211.ko",
                   "mac80211": "kernel/net/mac80211/mac80211.ko",
                   "iwlwifi": "kernel/drivers/net/wireless/intel/iwlwifi/iwlwifi.ko",
                   "iwlmvm": "kernel/drivers/net/wireless/intel/iwlwifi/mvm/iwlmvm.ko"})
    m.dkms(built=False, installed=False)
    rc, out, _ = m.run()
    assert rc == 1, out
    assert lines(out, "stack")[0] == \
        "cfg80211: the kernel's own (kernel/net/wireless/cfg80211.ko)"
    assert [l.split(":")[0] for l in lines(out, "driver")] == ["iwlmvm", "iwlwifi"]
    assert lines(out, "dkms")[0].startswith(f"retrofi {VER}: not built for {REL}")
    assert lines(out, "secureboot") == ["off (not booted with EFI)"]
    assert lines(out, "result") == [
        "NOT IN USE: the kernel's own wireless stack is loaded, not retrofi's; "
        f"retrofi's modules are not installed for {REL} (see the dkms line)"]


def test_in_tree_stack_loaded_with_retrofi_installed_says_to_reload(tmp_path):
    m = Machine(tmp_path)
    m.load(IN_TREE)
    m.modules_dep({"cfg80211": "updates/dkms/cfg80211.ko", "mac80211": "updates/dkms/mac80211.ko"})
    m.dkms()
    rc, out, _ = m.run()
    assert rc == 1, out
    assert "retrofi's updates/dkms/cfg80211.ko is installed but not the one loaded" \
        in lines(out, "stack")[0]
    assert lines(out, "result")[0].endswith(
        "retrofi's modules are installed: reboot, or unload the stack and modprobe it again")


def test_a_kernel_driver_on_retrofis_stack_is_a_mix_and_exits_1(tmp_path):
    m = Machine(tmp_path)
    backport(m)
    m.load({"cfg80211": ["brcmfmac"]})
    rc, out, _ = m.run()
    assert rc == 1, out
    assert "brcmfmac: the kernel's own" in lines(out, "driver")
    assert lines(out, "result")[0].startswith(
        "NOT IN USE: a mix of retrofi's modules and the kernel's own is loaded")


def test_no_stack_loaded_exits_2(tmp_path):
    m = Machine(tmp_path)
    rc, out, _ = m.run()
    assert rc == 2, out
    assert lines(out, "stack") == ["cfg80211 is not loaded: no wireless stack runs"]
    assert lines(out, "dkms") == ["retrofi is not added to DKMS (is retrofi-dkms installed?)"]
    assert lines(out, "result")[0].startswith("NOT IN USE: no wireless stack is loaded")


def test_firmware_a_loaded_driver_did_not_get_exits_3_and_names_the_file(tmp_path):
    m = Machine(tmp_path)
    backport(m)
    m.dmesg = ("[    3.2] ath9k 0000:00:05.0: Direct firmware load for ath9k/ar9271.fw "
               "failed with error -2\n"
               "[    3.3] iwlwifi 0000:00:14.3: Direct firmware load for "
               "iwlwifi-so-a0-gf-a0-86.ucode failed with error -2\n"
               "[    3.4] ath9k 0000:00:05.0: firmware: failed to load ath9k/ar9271.fw (-2)\n")
    rc, out, _ = m.run()
    assert rc == 3, out
    # iwlwifi is not loaded: its failure is not this machine's problem now.
    assert lines(out, "firmware") == [
        "ath9k asked for ath9k/ar9271.fw and did not get it: install the package that has "
        "/lib/firmware/ath9k/ar9271.fw"]
    assert lines(out, "result") == [
        "retrofi's stack is loaded, but a driver is missing firmware (see above)"]


def test_an_unreadable_kernel_log_is_said_not_checked(tmp_path):
    m = Machine(tmp_path)
    backport(m)
    m.dmesg_readable = False
    rc, out, _ = m.run()
    assert rc == 0, out
    assert lines(out, "firmware") == [
        "the kernel log cannot be read (dmesg needs root here): not checked"]


@pytest.mark.parametrize("on,enrolled,want", [
    (True, False, "on; DKMS's signing key /var/lib/dkms/mok.pub is NOT enrolled: "
                  "mokutil --import /var/lib/dkms/mok.pub, then reboot"),
    (False, True, "off; DKMS's signing key /var/lib/dkms/mok.pub is enrolled"),
])
def test_secure_boot_state_and_whether_the_signing_key_is_enrolled(tmp_path, on, enrolled,
                                                                   want):
    m = Machine(tmp_path)
    backport(m)
    m.secure_boot(on=on, enrolled=enrolled)
    rc, out, _ = m.run()
    assert lines(out, "secureboot") == [want]


def test_secure_boot_without_a_dkms_key_yet(tmp_path):
    m = Machine(tmp_path)
    backport(m)
    m.secure_boot(on=True, enrolled=False)
    os.unlink(m.p("var/lib/dkms/mok.pub"))
    rc, out, _ = m.run()
    assert lines(out, "secureboot")[0].startswith("on; DKMS has no signing key yet")


def test_an_unknown_argument_is_refused_with_exit_64(tmp_path):
    m = Machine(tmp_path)
    rc, out, err = m.run("--frobnicate")
    assert rc == 64 and out == ""
    assert err.splitlines() == ["retrofi-status: error: unknown argument '--frobnicate'",
                                "  fix: run retrofi-status without arguments "
                                "(retrofi-status --help)"]


def test_help_prints_the_exit_statuses(tmp_path):
    rc, out, _ = Machine(tmp_path).run("--help")
    assert rc == 0 and "3  retrofi's stack is loaded, but a loaded driver is missing" in out
