"""The firmware report (scripts/retrofi_firmware*.py): what built modules
ask for, and which Debian package of a release, or of a newer suite,
ships it."""

import json
import lzma
import os
import subprocess

import pytest

import retrofi_firmware as fw
import retrofi_firmware_index as idx
from conftest import PYTHON, REPO
from retrofi_errors import RetrofiError

SCRIPT = os.path.join(REPO, "scripts", "retrofi_firmware.py")


def make_module(directory, name, firmware, vermagic="6.1.0-57-amd64 SMP preempt mod_unload"):
    """A real ELF object whose .modinfo holds what MODULE_FIRMWARE and
    modpost put there, as <directory>/<name>.ko."""
    os.makedirs(directory, exist_ok=True)
    entries = [f"name={name}", f"vermagic={vermagic}"] + [f"firmware={f}" for f in firmware]
    src = "".join(f'static const char e{i}[] __attribute__((section(".modinfo"), used, '
                  f'aligned(1))) = "{e}";\n' for i, e in enumerate(entries))
    c = os.path.join(directory, f"{name}.c")
    with open(c, "w") as f:
        f.write(src)
    ko = os.path.join(directory, f"{name}.ko")
    subprocess.run(["gcc", "-c", "-o", ko, c], check=True)
    os.unlink(c)
    return ko


def shipped(suite, package, files, version="1"):
    return idx.Shipped(package, version, suite, frozenset(files))


BOOKWORM = {
    "bookworm": [shipped("bookworm", "firmware-iwlwifi", ["iwlwifi-cc-a0-72.ucode"]),
                 shipped("bookworm", "firmware-realtek", ["rtw88/rtw8822c_fw.bin"])],
    "bookworm-backports": [shipped("bookworm-backports", "firmware-mediatek",
                                   ["mediatek/mt7916_wm.bin", "mediatek/mt7925.bin.xz"])],
    "trixie": [shipped("trixie", "firmware-iwlwifi", ["iwlwifi-cc-a0-77.ucode"])],
}


# ---------------------------------------------------------------- modules

def test_firmware_entries_are_read_from_the_modinfo_of_plain_and_xz_modules(tmp_path):
    ko = make_module(str(tmp_path / "m"), "rtw88_8822c", ["rtw88/rtw8822c_fw.bin",
                                                         "rtw88/rtw8822c_wow_fw.bin",
                                                         "rtw88/rtw8822c_fw.bin"])
    with open(ko, "rb") as f, open(ko + ".xz", "wb") as out:
        out.write(lzma.compress(f.read(), format=lzma.FORMAT_XZ))
    os.rename(ko, str(tmp_path / "plain.ko"))
    for path in (str(tmp_path / "plain.ko"), ko + ".xz"):
        assert fw.modinfo(path)["firmware"] == ["rtw88/rtw8822c_fw.bin", "rtw88/rtw8822c_wow_fw.bin",
                                                "rtw88/rtw8822c_fw.bin"]
    reqs, notes = fw.requests(fw.module_files(str(tmp_path)))
    assert [(r.module, r.name) for r in reqs] == [("rtw88_8822c", "rtw88/rtw8822c_fw.bin"),
                                                  ("rtw88_8822c", "rtw88/rtw8822c_wow_fw.bin")] * 2
    assert notes == []


def test_a_wrong_klib_is_one_clear_error(tmp_path):
    for klib, what in ((tmp_path / "nope", "no such directory"),
                       (tmp_path, "no kernel modules")):
        p = subprocess.run([PYTHON, SCRIPT, str(klib)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        assert p.returncode == 1 and what in p.stderr and "fix: pass KLIB=" in p.stderr, p.stderr
        assert p.stdout == ""


def test_a_missing_kernel_config_is_one_clear_error(tmp_path):
    make_module(str(tmp_path), "carl9170", ["carl9170-1.fw"])
    p = subprocess.run([PYTHON, SCRIPT, str(tmp_path), "--config", str(tmp_path / "nope")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 1 and "no such kernel .config" in p.stderr and p.stdout == ""


def test_the_debian_release_comes_from_the_kernel_release():
    assert fw.guess_release("6.1.0-57-amd64") == "bookworm"
    assert fw.guess_release("5.10.0-46-amd64") == "bullseye"
    assert fw.guess_release("6.12.118+deb12-amd64") == "bookworm"
    assert fw.guess_release("7.3.4+deb13-amd64") == "trixie"
    assert fw.guess_release("6.18.0-custom") is None


# ---------------------------------------------------------------- iwlwifi

CFG = '''
#define IWL_22000_UCODE_API_MAX	77
#define IWL_22000_UCODE_API_MIN	72
#define IWL_CC_A_FW_PRE			"iwlwifi-cc-a0"
#define IWL_CC_A_MODULE_FIRMWARE(api)			\\
	IWL_CC_A_FW_PRE "-" __stringify(api) ".ucode"
MODULE_FIRMWARE(IWL_CC_A_MODULE_FIRMWARE(IWL_22000_UCODE_API_MAX));
#define IWL_BZ_UCODE_CORE_MAX	101
#define IWL_BZ_UCODE_CORE_MIN	100
#define IWL_BZ_A_FM_B_FW_PRE		"iwlwifi-bz-a0-fm-b0"
IWL_CORE_FW(IWL_BZ_A_FM_B_FW_PRE, IWL_BZ_UCODE_CORE_MAX);
#define IWL_AX210_UCODE_API_MAX	89
#define IWL_AX210_UCODE_API_MIN	86
#define IWL_SO_A_GF_A_FW_PRE		"iwlwifi-so-a0-gf-a0"
IWL_FW_AND_PNVM(IWL_SO_A_GF_A_FW_PRE, IWL_AX210_UCODE_API_MAX);
'''


def write_cfg(root, text=CFG):
    d = os.path.join(root, "drivers/net/wireless/intel/iwlwifi/cfg")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "22000.c"), "w") as f:
        f.write(text)
    return root


def test_iwlwifi_api_ranges_are_parsed_from_the_three_cfg_forms(tmp_path):
    r = fw.iwlwifi_ranges(write_cfg(str(tmp_path)))
    assert r["iwlwifi-cc-a0-77.ucode"] == (tuple(f"iwlwifi-cc-a0-{n}.ucode" for n in range(77, 71, -1)),
                                           "API 77..72")
    assert r["iwlwifi-bz-a0-fm-b0-c101.ucode"] == (("iwlwifi-bz-a0-fm-b0-c101.ucode",
                                                    "iwlwifi-bz-a0-fm-b0-c100.ucode"), "core 101..100")
    assert r["iwlwifi-so-a0-gf-a0-89.ucode"][0][-1] == "iwlwifi-so-a0-gf-a0-86.ucode"
    assert r["iwlwifi-so-a0-gf-a0-89.ucode"][1] == "API 89..86"


def test_an_iwlwifi_macro_form_the_parser_does_not_know_is_refused(tmp_path):
    write_cfg(str(tmp_path), CFG.replace('__stringify(api) ".ucode"', 'FW_SUFFIX(api)'))
    with pytest.raises(RetrofiError) as e:
        fw.iwlwifi_ranges(str(tmp_path))
    assert "IWL_CC_A_MODULE_FIRMWARE" in e.value.what and e.value.where.endswith("22000.c")


@pytest.mark.skipif(not os.environ.get("RETROFI_TEST_SOURCE"), reason="RETROFI_TEST_SOURCE not set")
def test_iwlwifi_ranges_of_the_real_source_cover_every_ucode_its_cfg_files_name():
    src = os.environ["RETROFI_TEST_SOURCE"]
    r = fw.iwlwifi_ranges(src)
    named = subprocess.run(["grep", "-rhoE", r"^(MODULE_FIRMWARE|IWL_FW_AND_PNVM|IWL_CORE_FW)\(",
                            os.path.join(src, "drivers/net/wireless/intel/iwlwifi/cfg")],
                           stdout=subprocess.PIPE, text=True).stdout.split()
    assert len(named) >= len(r) > 40
    assert all(lo_hi[0][0] == name for name, lo_hi in r.items())


def test_iwlwifi_walks_its_range_and_a_module_of_another_source_keeps_its_exact_names(tmp_path):
    src = write_cfg(str(tmp_path / "src"))
    mine = make_module(str(tmp_path / "a"), "iwlwifi", ["iwlwifi-cc-a0-77.ucode"])
    other = make_module(str(tmp_path / "b"), "iwlwifi", ["iwlwifi-cc-a0-77.ucode",
                                                         "iwlwifi-QuZ-a0-hr-b0-72.ucode"])
    ranges, walks = fw.walks_of(src, [mine])
    reqs, notes = fw.requests([mine], ranges, walks)
    found = fw.resolve(reqs, BOOKWORM, {".xz": True, ".zst": False})
    # The release ships API 72 only: inside 72..77, so the release covers it.
    assert (found[0].status, found[0].file, found[0].suite) == \
        ("release", "iwlwifi-cc-a0-72.ucode", "bookworm")
    reqs, notes = fw.requests([other], ranges, walks)
    assert all(not r.tried for r in reqs) and "1 of its 2 .ucode names are not the source's" in notes[0]
    assert fw.resolve(reqs, BOOKWORM)[0].suite == "trixie"


def test_ath10k_walks_its_firmware_api_and_falls_back_from_board_2(tmp_path):
    hw = tmp_path / "drivers/net/wireless/ath/ath10k/hw.h"
    hw.parent.mkdir(parents=True)
    hw.write_text('#define ATH10K_FW_API_MAX 6\n#define ATH10K_FW_API_MIN 2\n'
                  '#define ATH10K_BOARD_DATA_FILE "board.bin"\n'
                  '#define ATH10K_BOARD_API2_FILE "board-2.bin"\n')
    w = fw.ath10k_walks(str(tmp_path), [("ath10k_pci", "ath10k/QCA6174/hw3.0/firmware-4.bin"),
                                        ("ath10k_pci", "ath10k/QCA9887/hw1.0/board-2.bin"),
                                        ("iwlwifi", "ath10k/x/firmware-4.bin")])
    assert w[("ath10k_pci", "ath10k/QCA6174/hw3.0/firmware-4.bin")][0][0] == \
        "ath10k/QCA6174/hw3.0/firmware-6.bin"
    assert w[("ath10k_pci", "ath10k/QCA9887/hw1.0/board-2.bin")][0] == \
        ("ath10k/QCA9887/hw1.0/board-2.bin", "ath10k/QCA9887/hw1.0/board.bin")
    assert ("iwlwifi", "ath10k/x/firmware-4.bin") not in w


def test_rtw89_walks_its_firmware_formats_down_to_the_plain_name(tmp_path):
    chip = tmp_path / "drivers/net/wireless/realtek/rtw89/rtw8852c.c"
    chip.parent.mkdir(parents=True)
    chip.write_text('#define RTW8852C_FW_FORMAT_MAX 2\n#define RTW8852C_FW_BASENAME "rtw89/rtw8852c_fw"\n'
                    '#define RTW8852C_MODULE_FIRMWARE \\\n'
                    '\tRTW89_GEN_MODULE_FWNAME(RTW8852C_FW_BASENAME, RTW8852C_FW_FORMAT_MAX)\n')
    mod = make_module(str(tmp_path / "m"), "rtw89_8852c", ["rtw89/rtw8852c_fw-2.bin"])
    ranges, walks = fw.walks_of(str(tmp_path), [mod])
    reqs, _ = fw.requests([mod], ranges, walks)
    assert reqs[0].tried == ("rtw89/rtw8852c_fw-2.bin", "rtw89/rtw8852c_fw-1.bin",
                             "rtw89/rtw8852c_fw.bin")
    suites = {"bookworm": [shipped("bookworm", "firmware-realtek", ["rtw89/rtw8852c_fw.bin"])]}
    found = fw.resolve(reqs, suites)
    assert (found[0].status, found[0].file) == ("release", "rtw89/rtw8852c_fw.bin")


# ---------------------------------------------------------------- resolve

def test_each_file_is_found_in_the_release_or_a_newer_suite_with_its_install_line():
    reqs = [fw.Request("rtw88_8822c", "rtw88/rtw8822c_fw.bin"),
            fw.Request("mt7915e", "mediatek/mt7916_wm.bin")]
    found = fw.resolve(reqs, BOOKWORM, {".xz": True, ".zst": False})
    assert [(f.status, f.package, f.suite) for f in found] == [
        ("release", "firmware-realtek", "bookworm"),
        ("newer", "firmware-mediatek", "bookworm-backports")]
    assert fw.install_lines(found, "bookworm") == [
        "apt-get install firmware-realtek",
        "apt-get install -t bookworm-backports firmware-mediatek"]


def test_a_compressed_file_counts_only_when_the_kernel_can_load_it():
    req = [fw.Request("mt7925e", "mediatek/mt7925.bin")]
    yes = fw.resolve(req, BOOKWORM, fw.loadable_suffixes("CONFIG_FW_LOADER_COMPRESS=y\n"
                                                         "CONFIG_FW_LOADER_COMPRESS_XZ=y\n"))
    assert (yes[0].status, yes[0].file) == ("newer", "mediatek/mt7925.bin.xz")
    no = fw.resolve(req, BOOKWORM, fw.loadable_suffixes("# CONFIG_FW_LOADER_COMPRESS is not set\n"))
    assert no[0].status == "missing" and "cannot load" in no[0].note


def test_the_loader_suffixes_follow_the_kernel_config():
    assert fw.loadable_suffixes("CONFIG_FW_LOADER_COMPRESS=y\n") == {".xz": True, ".zst": False}
    assert fw.loadable_suffixes("CONFIG_FW_LOADER_COMPRESS=y\n# CONFIG_FW_LOADER_COMPRESS_XZ is "
                                "not set\nCONFIG_FW_LOADER_COMPRESS_ZSTD=y\n") == \
        {".xz": False, ".zst": True}


def test_a_file_no_package_ships_is_listed_missing_and_strict_fails(tmp_path, monkeypatch, capsys):
    """The mutation: a module asks for a file none of the suites ships."""
    klib = str(tmp_path / "klib")
    make_module(klib, "rtw88_8822c", ["rtw88/rtw8822c_fw.bin"])
    monkeypatch.setattr(idx, "release_packages", lambda cache, release, *a, **k: BOOKWORM)
    assert fw.main([klib, "--strict", "--json", str(tmp_path / "r.json")]) == 0
    make_module(klib, "retrofi_fake", ["retrofi/no-such-firmware.bin"])
    assert fw.main([klib, "--json", str(tmp_path / "r.json")]) == 0
    assert fw.main([klib, "--strict", "--json", str(tmp_path / "r.json")]) == 2
    out = capsys.readouterr().out
    assert "retrofi/no-such-firmware.bin  missing" in out
    data = json.load(open(tmp_path / "r.json"))
    assert data["missing"] == 1 and data["release"] == "bookworm"
    assert [f["status"] for f in data["files"]] == ["missing", "release"]


# ---------------------------------------------------------------- packages

def test_package_listings_keep_files_and_links_under_lib_firmware():
    listing = """drwxr-xr-x root/root         0 2023-02-10 10:00 ./lib/firmware/
-rw-r--r-- root/root     12345 2023-02-10 10:00 ./lib/firmware/iwlwifi-cc-a0-72.ucode
lrwxrwxrwx root/root         0 2025-04-10 10:00 ./usr/lib/firmware/rtw88/a.bin -> b.bin
-rw-r--r-- root/root       711 2023-02-10 10:00 ./usr/share/doc/firmware-iwlwifi/copyright
"""
    assert idx.parse_listing(listing) == {"iwlwifi-cc-a0-72.ucode", "rtw88/a.bin"}


def test_names_a_postinst_installs_as_alternatives_count_as_shipped():
    script = ("update-alternatives --install \\\n\t/lib/firmware/regulatory.db regulatory.db "
              "/lib/firmware/regulatory.db-debian 100 \\\n\t--slave /lib/firmware/regulatory.db.p7s "
              "regulatory.db.p7s /lib/firmware/regulatory.db.p7s-debian\n")
    assert idx.parse_alternatives(script) == {"regulatory.db", "regulatory.db.p7s"}


def test_an_offline_run_without_the_index_in_the_cache_says_so_and_fetches_nothing(
        tmp_path, monkeypatch):
    import retrofi_apt

    def no_network(self):
        raise AssertionError("an offline run ran apt-get update")
    monkeypatch.setattr(retrofi_apt.PrivateApt, "update", no_network)
    with pytest.raises(RetrofiError) as e:
        idx.release_packages(str(tmp_path), "bookworm", offline=True)
    assert "firmware index of bookworm is not in the cache" in e.value.what
    assert "make firmware-report" in e.value.fix


def test_an_unknown_release_is_refused():
    with pytest.raises(RetrofiError) as e:
        idx.ladder("buster")
    assert "buster" in e.value.what and "bookworm" in e.value.fix


@pytest.mark.network
def test_a_suites_firmware_packages_are_fetched_signed_listed_and_cached(tmp_path):
    """Through the private apt config (signatures on): bullseye's non-free
    component, small packages only; the second call needs no network."""
    cache = str(tmp_path / "cache")
    few = ("firmware-zd1211", "firmware-ath9k-htc", "wireless-regdb")
    got = {s.package: s for s in idx.suite_packages(cache, "bullseye", packages=few)}
    assert set(got) == set(few)
    assert "zd1211/zd1211b_ub" in got["firmware-zd1211"].files
    assert any("htc_9271" in f for f in got["firmware-ath9k-htc"].files)
    assert "regulatory.db" in got["wireless-regdb"].files
    sources = open(os.path.join(cache, "apt", "bullseye@main+non-free", "etc",
                                "sources.list")).read()
    assert "signed-by=/usr/share/keyrings/debian-archive-keyring.gpg" in sources
    assert "bullseye main non-free" in sources
    # Warm: the lists and the indexes are cached, the .debs are gone.
    assert not [f for f in os.listdir(os.path.join(cache, "firmware", "index"))
                if f.endswith(".deb")]
    import retrofi_apt
    monkey = retrofi_apt.PrivateApt.update
    try:
        def no_network(self):
            raise AssertionError("a warm run ran apt-get update")
        retrofi_apt.PrivateApt.update = no_network
        again = {s.package: s.files for s in idx.suite_packages(cache, "bullseye", packages=few)}
    finally:
        retrofi_apt.PrivateApt.update = monkey
    assert again == {p: s.files for p, s in got.items()}
    offline = idx.suite_packages(cache, "bullseye", packages=few, offline=True)
    assert {s.package for s in offline} == set(few)


# ---------------------------------------------------------------- the row

def test_a_rows_report_carries_the_firmware_of_the_modules_it_built(tmp_path, monkeypatch):
    import types
    import retrofi_report
    import retrofi_run
    tree = tmp_path / "tree"
    make_module(str(tree / "drivers/net/wireless/realtek/rtw88"), "rtw88_8822c",
                ["rtw88/rtw8822c_fw.bin"])
    make_module(str(tree / "drivers/net/wireless/mediatek/mt76/mt7915"), "mt7915e",
                ["mediatek/mt7916_wm.bin"])
    headers = tmp_path / "headers"
    headers.mkdir()
    (headers / ".config").write_text("CONFIG_FW_LOADER_COMPRESS=y\nCONFIG_FW_LOADER_COMPRESS_XZ=y\n")
    kernel = types.SimpleNamespace(headers=str(headers), kernelrelease="6.1.0-57-amd64")
    build = types.SimpleNamespace(tree=str(tree), modules=(
        "drivers/net/wireless/realtek/rtw88/rtw88_8822c.ko",
        "drivers/net/wireless/mediatek/mt76/mt7915/mt7915e.ko"))
    target = types.SimpleNamespace(name="6.1")
    monkeypatch.setattr(idx, "release_packages", lambda cache, release, *a, **k: BOOKWORM)
    row = retrofi_report.Row("6.1", "real", "ok", "not run")
    retrofi_run._firmware(target, build, kernel, row, str(tmp_path))
    line = ("6.1: firmware: 2 files asked, 1 in bookworm, 1 only in bookworm-backports, "
            "0 in no package; apt-get install firmware-realtek; "
            "apt-get install -t bookworm-backports firmware-mediatek")
    assert line in retrofi_report.table([row]).splitlines() and row.notes == []
    assert row.firmware["compressed"] == {".xz": True, ".zst": False}
    assert "mediatek/mt7916_wm.bin" in open(row.logs["firmware"]).read()
    # It survives the report's JSON.
    again = retrofi_report.from_json(json.loads(json.dumps(retrofi_report.to_json([row]))))
    assert again[0].firmware["summary"]["mt7915e"]["newer"] == {"bookworm-backports": 1}


def test_a_firmware_report_that_cannot_be_made_is_a_note_not_a_failed_row(tmp_path, monkeypatch):
    import types
    import retrofi_report
    import retrofi_run
    tree = tmp_path / "tree"
    make_module(str(tree), "carl9170", ["carl9170-1.fw"])

    def offline(*a, **k):
        raise RetrofiError("cannot fetch the package lists for suites bookworm", where="apt")
    monkeypatch.setattr(idx, "release_packages", offline)
    row = retrofi_report.Row("6.1", "real", "ok", "not run")
    retrofi_run._firmware(types.SimpleNamespace(name="6.1"),
                          types.SimpleNamespace(tree=str(tree), modules=("carl9170.ko",)),
                          types.SimpleNamespace(headers=str(tmp_path), kernelrelease="6.1.0-57-amd64"),
                          row, str(tmp_path))
    assert row.build == "ok"
    assert row.firmware == {"line": "firmware report not made: cannot fetch the package lists "
                                    "for suites bookworm (apt)"}
    assert "6.1: firmware report not made" in retrofi_report.table([row])


def test_the_runner_adds_the_firmware_report_to_a_real_rows_build(tmp_path, monkeypatch):
    import types
    import retrofi_build
    import retrofi_matrix
    import retrofi_run
    repo = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    make_module(str(tmp_path / "tree"), "carl9170", ["carl9170-1.fw"])
    built = types.SimpleNamespace(ok=True, tree=str(tmp_path / "tree"), reason="",
                                  modules=("carl9170.ko",), seconds=0.0, off=(),
                                  summary=lambda: "built")
    monkeypatch.setattr(retrofi_build, "build", lambda *a, **k: built)
    monkeypatch.setattr(retrofi_run, "_census", lambda *a: None)
    suites = {"bookworm": [shipped("bookworm", "firmware-linux-free", ["carl9170-1.fw"])]}
    monkeypatch.setattr(idx, "release_packages", lambda *a, **k: suites)
    monkeypatch.delenv("RETROFI_FIRMWARE_OFFLINE", raising=False)
    kernel = types.SimpleNamespace(kernelrelease="6.1.0-57-amd64", name="6.1", version="",
                                   headers=str(tmp_path))
    row = retrofi_run.run_target(repo.target("6.1"), kernel, str(tmp_path),
                                 str(tmp_path / "report"), boot=False)
    assert row.firmware["line"] == "firmware: 1 files asked, 1 in bookworm, 0 in no package; " \
        "apt-get install firmware-linux-free"
    assert row.firmware["files"][0]["package"] == "firmware-linux-free"


def test_the_firmware_apt_configs_do_not_change_which_linux_sources_the_cache_serves(tmp_path):
    import retrofi_apt
    for root, version in (("trixie", "7.3.4-1"), ("trixie@main+non-free-firmware", "9.9.9-1")):
        lists = tmp_path / "apt" / root / "lists"
        lists.mkdir(parents=True)
        (lists / "deb.debian.org_debian_dists_trixie_main_binary-amd64_Packages").write_text(
            f"Package: linux-source-{version[:3]}\nVersion: {version}\n\n")
    assert retrofi_apt.served(str(tmp_path), "linux-source-*") == [
        ("linux-source-7.3", "7.3.4-1", "trixie")]
