"""retrofi_e2e's leftover check, on a synthetic overlay (plain lower and
upper directories, nothing mounted): what the upper layer holds after the
purge that it did not hold before the install is a leftover, but for
apt's, dpkg's and dkms's own records (retrofi_e2e.IGNORED, each with its
reason), directories of the lower root and files rewritten with the
lower root's bytes (depmod's modules.dep after the purge)."""

import os
import stat

import retrofi_e2e


def _cycle(tmp_path):
    lower = tmp_path / "lower"
    (lower / "lib/modules/6.1.0-57-amd64").mkdir(parents=True)
    (lower / "lib/modules/6.1.0-57-amd64/modules.dep").write_text("kernel/net/wireless/cfg80211.ko:\n")
    (lower / "etc").mkdir()
    for d in ("var/lib/dpkg", "var/log/apt", "var/lib/dkms"):
        (lower / d).mkdir(parents=True)
    (lower / "etc/hostname").write_text("root\n")
    c = retrofi_e2e.Cycle(str(lower), str(tmp_path / "scratch"))
    c.write("etc/default/retrofi", "RETROFI_DEFCONFIG=hwsim\n")
    return c, retrofi_e2e.walk_upper(c.upper)


def _put(c, rel, text):
    path = os.path.join(c.upper, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def test_a_clean_purge_leaves_nothing(tmp_path):
    c, before = _cycle(tmp_path)
    # What apt, dpkg and dkms keep, and depmod's output back to the kernel's own.
    _put(c, "var/lib/dpkg/status", "...")
    _put(c, "var/log/apt/history.log", "...")
    _put(c, "var/lib/dkms/mok.key", "key")
    _put(c, "var/lib/dkms/mok.pub", "cert")
    _put(c, "lib/modules/6.1.0-57-amd64/modules.dep", "kernel/net/wireless/cfg80211.ko:\n")
    os.makedirs(os.path.join(c.upper, "etc"), exist_ok=True)
    assert retrofi_e2e.leftovers(c, before) == []


def test_a_file_the_package_leaves_behind_is_a_leftover(tmp_path):
    c, before = _cycle(tmp_path)
    _put(c, "usr/src/retrofi-1.0/dkms.conf", "...")
    _put(c, "lib/modules/6.1.0-57-amd64/updates/dkms/cfg80211.ko", "...")
    assert retrofi_e2e.leftovers(c, before) == [
        ("lib/modules/6.1.0-57-amd64/updates", "new directory"),
        ("lib/modules/6.1.0-57-amd64/updates/dkms", "new directory"),
        ("lib/modules/6.1.0-57-amd64/updates/dkms/cfg80211.ko", "new file"),
        ("usr", "new directory"),
        ("usr/src", "new directory"),
        ("usr/src/retrofi-1.0", "new directory"),
        ("usr/src/retrofi-1.0/dkms.conf", "new file"),
    ]


def test_a_changed_or_deleted_file_of_the_root_is_a_leftover(tmp_path):
    c, before = _cycle(tmp_path)
    _put(c, "lib/modules/6.1.0-57-amd64/modules.dep", "updates/dkms/cfg80211.ko:\n")
    # An overlay whiteout: the lower root's file removed.
    os.mknod(os.path.join(c.upper, "etc", "hostname"), 0o600 | stat.S_IFCHR, 0)
    left = dict(retrofi_e2e.leftovers(c, before))
    assert left["lib/modules/6.1.0-57-amd64/modules.dep"] == "file changed"
    assert left["etc/hostname"] == "deleted from the root"
