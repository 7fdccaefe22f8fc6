"""The vendor drivers' device IDs the guest checks (retrofi_guest_drivers):
the list is read strictly, each line becomes the modalias its bus core
writes, and the guest gets the lines of the modules the build made and,
for every other module, why it is not there."""

import pytest

import retrofi_guest_drivers as gd
from retrofi_errors import RetrofiError


def test_the_repository_list_names_real_modules_on_known_buses():
    ids = gd.parse()
    mods = {i.module for i in ids}
    # the IDs the vendor drivers' section names (mt76, rtw88, rtw89, USB)
    for want in ("mt7921e pci 14c3:7961", "mt7925e pci 14c3:7925",
                 "rtw89_8852ae pci 10ec:8852", "rtw88_8822ce pci 10ec:c822",
                 "mt7921u usb 0e8d:7961", "rtw88_8822cu usb 0bda:c82c",
                 "rtw89_8852bu usb 0bda:b832"):
        assert want in [i.text for i in ids]
    assert {"ath9k_htc", "carl9170", "mt76x0u", "mt76x2u", "mt7915e", "mt7996e"} <= mods
    assert len({i.text for i in ids}) == len(ids), "a line is listed twice"


@pytest.mark.parametrize("line", ["mt7921e pci 14c3", "mt7921e isa 14c3:7961",
                                  "mt7921e pci 14c3:79610", "mt7921e pci 14c3:7961 extra"])
def test_a_malformed_line_is_refused_naming_the_file_and_line(tmp_path, line):
    f = tmp_path / "ids"
    f.write_text("# ok\nmt7925e pci 14c3:7925\n" + line + "\n")
    with pytest.raises(RetrofiError) as e:
        gd.parse(str(f))
    assert f"{f}:3" in e.value.format() and "MODULE BUS VENDOR:DEVICE" in e.value.format()


def test_an_empty_list_is_refused(tmp_path):
    f = tmp_path / "ids"
    f.write_text("# nothing\n")
    with pytest.raises(RetrofiError):
        gd.parse(str(f))


def test_modalias_is_what_the_bus_core_writes():
    assert gd.modalias("pci", "14c3", "7961") == \
        "pci:v000014C3d00007961sv00001234sd00005678bc02sc80i00"
    assert gd.modalias("usb", "0e8d", "7961") == \
        "usb:v0E8Dp7961d0000dc00dsc00dp00icFFiscFFipFFin00"
    assert gd.modalias("sdio", "024c", "c822") == "sdio:c00v024CdC822"


def test_the_guest_gets_the_lines_of_built_modules_and_why_the_others_are_not(tmp_path):
    f = tmp_path / "ids"
    f.write_text("mt7921e pci 14c3:7961\nmt7921e pci 14c3:7922\nrtw88_8822ce pci 10ec:c822\n"
                 "mt7925u usb 0e8d:7925\ncarl9170 usb 0cf3:9170\n")
    text = gd.guest_lines(gd.parse(str(f)),
                          ["drivers/net/wireless/mediatek/mt76/mt7921/mt7921e.ko",
                           "drivers/net/wireless/ath/carl9170/carl9170.ko"],
                          [("drivers/net/wireless/realtek/rtw88/rtw88_8822ce.ko",
                            "RETROFI_CONFIG_RTW88_8822CE off: CONFIG_RTW88_CORE is off")])
    assert text == ("mt7921e pci 14c3:7961\nmt7921e pci 14c3:7922\n"
                    "# rtw88_8822ce: not built (off: RETROFI_CONFIG_RTW88_8822CE off: "
                    "CONFIG_RTW88_CORE is off)\n"
                    "# mt7925u: not built (not selected by this build's configuration)\n"
                    "carl9170 usb 0cf3:9170\n")


def test_guest_init_builds_the_same_modalias_as_the_host():
    """tests/guest/init's bus_alias() and modalias() agree (the guest's
    shell function run here with sh: it only formats strings)."""
    import os
    import subprocess
    from conftest import REPO
    init = open(os.path.join(REPO, "tests", "guest", "init")).read()
    start = init.index("bus_alias() {")
    body = init[start:init.index("\n}\n", start) + 3]
    for bus, v, d in (("pci", "14c3", "7961"), ("usb", "0bda", "c82c"), ("sdio", "037a", "7901")):
        out = subprocess.run(["sh", "-c", body + f'bus_alias {bus} {v} {d}'],
                             capture_output=True, text=True, check=True).stdout.strip()
        assert out == gd.modalias(bus, v, d)


def _guest_functions(*names):
    import os
    from conftest import REPO
    init = open(os.path.join(REPO, "tests", "guest", "init")).read()
    out = []
    for n in names:
        start = init.index(f"\n{n}() {{") + 1
        out.append(init[start:init.index("\n}\n", start) + 3])
    return "".join(out)


@pytest.mark.parametrize("dep,verdict", [
    ("updates/drivers/net/wireless/mediatek/mt76/mt76.ko", "ok"),
    ("kernel/drivers/net/wireless/mediatek/mt76/mt76.ko.xz",
     "mt7921e needs /lib/modules/K/kernel/drivers/net/wireless/mediatek/mt76/mt76.ko.xz, "
     "the kernel's own copy of a backported module"),
    ("kernel/drivers/bus/mhi/host/mhi.ko.xz", "ok")])
def test_a_dependency_from_the_kernels_own_copy_of_a_backported_module_fails(tmp_path, dep,
                                                                             verdict):
    """tests/guest/init's deps_from_updates(), run here with sh, a stand-in
    modprobe and an updates/ tree: a dependency modprobe takes from the
    kernel's tree fails the check when the backport has a module of that
    name (mt76), not when it has none (mhi)."""
    import subprocess
    updates = tmp_path / "lib" / "modules" / "K" / "updates"
    for ko in ("drivers/net/wireless/mediatek/mt76/mt76.ko",
               "drivers/net/wireless/mediatek/mt76/mt7921/mt7921e.ko"):
        (updates / ko).parent.mkdir(parents=True, exist_ok=True)
        (updates / ko).write_bytes(b"")
    show = (f"insmod {tmp_path}/lib/modules/K/{dep}\n"
            f"insmod {updates}/drivers/net/wireless/mediatek/mt76/mt7921/mt7921e.ko\n")
    script = ("fail() { echo \"$*\"; exit 1; }\n"
              f"modprobe() {{ printf '%s' '{show}'; }}\n"
              f"UPDATES={updates}\n"
              + _guest_functions("backport_names", "deps_from_updates")
              + "cd " + str(tmp_path) + " && deps_from_updates mt7921e && echo ok\n")
    script = script.replace("/tmp/deps", str(tmp_path / "deps"))
    p = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
    assert p.stdout.strip().replace(str(tmp_path), "") == verdict, p.stdout + p.stderr
    assert p.returncode == (0 if verdict == "ok" else 1)


@pytest.mark.network
def test_every_listed_id_is_in_its_modules_own_id_table(fetched):
    """Each line's modalias matches an alias of the named module as 7.3's
    own build of the same source has it (modinfo of the target's module, the
    ID table MODULE_DEVICE_TABLE exported): a wrong ID or a wrong bus format
    fails here, on the host, before any guest."""
    import fnmatch
    import glob
    import os
    import subprocess
    kt = fetched.targets["7.3"]
    files = {os.path.basename(p).split(".ko")[0].replace("-", "_"): p
             for p in glob.glob(os.path.join(kt.modules, "kernel", "drivers", "net", "wireless",
                                             "**", "*.ko*"), recursive=True)}
    wrong, aliases, by_source = [], {}, []
    for i in gd.parse():
        if i.module not in files:
            # Debian's 7.3 does not build it (mt7921s, rtw89_8922au/de): the
            # ID must be on a *_DEVICE(...) line of the source's drivers.
            if not source_has_id(fetched.source.path, i):
                wrong.append(f"{i.text} (not on a DEVICE line of the source)")
            by_source.append(i.module)
            continue
        if i.module not in aliases:
            aliases[i.module] = subprocess.run(["modinfo", "-F", "alias", files[i.module]],
                                               capture_output=True, text=True,
                                               check=True).stdout.split()
        alias = gd.modalias(i.bus, i.vendor, i.device)
        if not any(fnmatch.fnmatchcase(alias, a) for a in aliases[i.module]):
            wrong.append(f"{i.text} ({alias})")
    assert wrong == [], "not in the module's own ID table"
    print("checked against the source's tables:", sorted(set(by_source)))
    assert len(set(by_source)) <= 3, "most lines must be checked against a real build"


def source_has_id(src, i):
    """A line of the source's drivers/net/wireless with a *_DEVICE macro
    and the device ID as a hex literal."""
    import os
    import re
    pat = re.compile(r"DEVICE.*\b0x0*" + i.device.lstrip("0") + r"\b", re.I)
    for root, _, names in os.walk(os.path.join(src, "drivers", "net", "wireless")):
        for n in names:
            if n.endswith(".c"):
                with open(os.path.join(root, n), errors="replace") as f:
                    if any(pat.search(l) for l in f):
                        return True
    return False


def test_the_matrix_rows_build_retrofi_defconfig_and_the_guest_gets_the_build_s_ids(monkeypatch):
    import types
    import retrofi_run
    monkeypatch.delenv("RETROFI_DEFCONFIG", raising=False)
    assert retrofi_run.run_defconfig() == "wifi"
    monkeypatch.setenv("RETROFI_DEFCONFIG", "drivers")
    assert retrofi_run.run_defconfig() == "drivers"
    census = types.SimpleNamespace(guest_lines=lambda: "")
    target = types.SimpleNamespace(event_timeout=20)
    build = types.SimpleNamespace(
        modules=("drivers/net/wireless/mediatek/mt76/mt7921/mt7921e.ko",), off=())
    config = retrofi_run.guest_config(target, "tests", census, False, build)
    lines = config["etc/retrofi-driver-aliases"].splitlines()
    assert "mt7921e pci 14c3:7961" in lines
    assert "# mt7925e: not built (not selected by this build's configuration)" in lines
    assert "etc/retrofi-driver-aliases" not in retrofi_run.guest_config(target, "tests",
                                                                         census, False)
