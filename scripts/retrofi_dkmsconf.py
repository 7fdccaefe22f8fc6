"""The output tree's dkms.conf: what DKMS builds, and for which kernels.

One job: the bytes of dkms.conf for a source (retrofi_generate writes them
into the tree, so the release tarball and the retrofi-dkms package carry
the same file).

The kernels retrofi supports are the Debian releases 5.10 and newer whose
cfg80211 and mac80211 are modules (=m): the backported stack replaces
them from updates/, which a built-in (=y) one cannot be.  dkms (3.0.10,
bookworm) skips any other kernel with exit 77 ("Skipped." in its
postinst) and a message naming only "a BUILD_EXCLUSIVE directive";
dkms.conf is a bash file dkms sources with $kernelver and
$kernel_source_dir set, so it says on stderr which rule excluded the
kernel and why.  dkms 3.0.10 reads BUILD_EXCLUSIVE_CONFIG as NAME (=y or
=m) or !NAME (neither): "=m only" has no syntax there, so a built-in
option is excluded by adding !NAME for that kernel.
"""

import re

# The modules of the output tree: (name, directory).
DKMS_MODULES = (
    ("compat", "compat"), ("cfg80211", "net/wireless"), ("mac80211", "net/mac80211"),
    ("mac80211_hwsim", "drivers/net/wireless/virtual"), ("ath", "drivers/net/wireless/ath"),
    ("ath9k", "drivers/net/wireless/ath/ath9k"), ("ath9k_hw", "drivers/net/wireless/ath/ath9k"),
    ("ath9k_common", "drivers/net/wireless/ath/ath9k"),
    ("ath5k", "drivers/net/wireless/ath/ath5k"),
)

# The oldest kernel release dkms builds for, and its rule as dkms matches
# it (a bash regular expression on the kernel release, `uname -r`).
OLDEST_KERNEL = "5.10"
BUILD_EXCLUSIVE_KERNEL = r"^(5\.[1-9][0-9]|[6-9]|[1-9][0-9]+)\."
# The options a kernel must have as modules.
MODULE_OPTIONS = ("CONFIG_CFG80211", "CONFIG_MAC80211")


def dkms_version(source):
    """The source version as DKMS takes it ('~' and '+' are not safe in its paths)."""
    return re.sub(r"[^A-Za-z0-9.-]", ".", source.version)


def _exclusive_lines():
    opts = " ".join(MODULE_OPTIONS)
    skip = 'echo "retrofi: not built for kernel ${kernelver}:'
    return [
        f"# The kernels retrofi supports: {OLDEST_KERNEL} and newer, with cfg80211",
        "# and mac80211 built as modules (=m): the stack in updates/ replaces",
        "# them, which a built-in (=y) one cannot be.  dkms skips the others.",
        f'BUILD_EXCLUSIVE_KERNEL="{BUILD_EXCLUSIVE_KERNEL}"',
        f'BUILD_EXCLUSIVE_CONFIG="{opts}"',
        "# dkms's own message names only \"a BUILD_EXCLUSIVE directive\": say why.",
        "# Its BUILD_EXCLUSIVE_CONFIG takes NAME (=y or =m) or !NAME (neither),",
        "# so a built-in option is excluded with !NAME.",
        'if [[ ! ${kernelver} =~ ${BUILD_EXCLUSIVE_KERNEL} ]]; then',
        f'\t{skip} retrofi supports kernels {OLDEST_KERNEL} and newer"'
        ' >&2',
        'elif [ -e "${kernel_source_dir}/.config" ]; then',
        f"\tfor retrofi_opt in {opts}; do",
        '\t\tif grep -q "^${retrofi_opt}=y" "${kernel_source_dir}/.config"; then',
        '\t\t\tBUILD_EXCLUSIVE_CONFIG="${BUILD_EXCLUSIVE_CONFIG} !${retrofi_opt}"',
        f'\t\t\t{skip} ${{retrofi_opt}}=y (built in): retrofi replaces'
        ' cfg80211 and mac80211 by modules, it needs both =m" >&2',
        '\t\telif ! grep -q "^${retrofi_opt}=m" "${kernel_source_dir}/.config"; then',
        f'\t\t\t{skip} ${{retrofi_opt}} is not set: the kernel has no'
        ' wireless stack for retrofi to replace" >&2',
        "\t\tfi",
        "\tdone",
        "fi",
    ]


# The driver selection knob: RETROFI_DEFCONFIG=<name of defconfigs/> in this
# file (shell syntax, as /etc/default files are) makes dkms build that
# selection instead of the whole stack (defconfig-wifi).  RETROFI_DEFAULTS
# names another file (the tests' way in).
DEFAULTS_FILE = "/etc/default/retrofi"
DEFAULT_DEFCONFIG = "wifi"
# The selection's option that builds each module (None: always built).
MODULE_OPTION = {
    "compat": None, "cfg80211": None, "mac80211": None,
    "mac80211_hwsim": "RETROFI_MAC80211_HWSIM", "ath": "RETROFI_ATH_COMMON",
    "ath9k": "RETROFI_ATH9K", "ath9k_hw": "RETROFI_ATH9K", "ath9k_common": "RETROFI_ATH9K",
    "ath5k": "RETROFI_ATH5K",
}


def _selection_lines():
    """Bash that reads the knob and lists, in BUILT_MODULE_*, only the
    modules the selected defconfig builds (dkms fails on a listed module
    the build did not make)."""
    rows = " ".join(f"{mod}:{where}:{MODULE_OPTION[mod] or '-'}" for mod, where in DKMS_MODULES)
    dflt = DEFAULT_DEFCONFIG
    return [
        f"# Which drivers: RETROFI_DEFCONFIG in {DEFAULTS_FILE} (a name of",
        f"# defconfigs/: hwsim, ath9k, ath5k, wifi, all); default {dflt}, the whole stack.",
        f'retrofi_defaults="${{RETROFI_DEFAULTS:-{DEFAULTS_FILE}}}"',
        f"retrofi_defconfig={dflt}",
        'if [ -r "${retrofi_defaults}" ]; then',
        f'\tretrofi_defconfig=$(RETROFI_DEFCONFIG={dflt}; . "${{retrofi_defaults}}" >/dev/null 2>&1;'
        f' echo "${{RETROFI_DEFCONFIG:-{dflt}}}")',
        "fi",
        'retrofi_defconfigs="$(dirname "${BASH_SOURCE[0]}")/defconfigs"',
        'retrofi_sel="${retrofi_defconfigs}/${retrofi_defconfig}"',
        'if [[ ! ${retrofi_defconfig} =~ ^[A-Za-z0-9_-]+$ ]] || [ ! -f "${retrofi_sel}" ]; then',
        '\techo "retrofi: error: ${retrofi_defaults}: RETROFI_DEFCONFIG=${retrofi_defconfig}:'
        ' no such defconfig" >&2',
        '\techo "  fix: name one of:" $(ls "${retrofi_defconfigs}") >&2',
        "fi",
        'MAKE[0]="make KLIB=${kernel_source_dir} defconfig-${retrofi_defconfig} &&'
        ' make -j$(nproc) KLIB=${kernel_source_dir}${RETROFI_CC:+ CC=$RETROFI_CC} modules"',
        "retrofi_i=0",
        f"for retrofi_row in {rows}; do",
        '\tIFS=: read -r retrofi_mod retrofi_where retrofi_opt <<< "${retrofi_row}"',
        '\tif [ "${retrofi_opt}" = - ] || [ ! -f "${retrofi_sel}" ] ||'
        ' grep -q "^${retrofi_opt}=m" "${retrofi_sel}"; then',
        '\t\tBUILT_MODULE_NAME[retrofi_i]="${retrofi_mod}"',
        '\t\tBUILT_MODULE_LOCATION[retrofi_i]="${retrofi_where}/"',
        '\t\tDEST_MODULE_LOCATION[retrofi_i]="/updates/${retrofi_where}"',
        "\t\tretrofi_i=$((retrofi_i + 1))",
        "\tfi",
        "done",
    ]


def dkms_conf(source, name) -> bytes:
    """dkms.conf of the output tree generated from source."""
    lines = [
        "# Generated by retrofi: DKMS builds the backported stack for each kernel",
        "# (the whole stack, defconfig-wifi, unless /etc/default/retrofi selects",
        "# another defconfig), installed into updates/.",
        f'PACKAGE_NAME="{name}"',
        f'PACKAGE_VERSION="{dkms_version(source)}"',
        "# The compiler is the one the kernel's headers name (Debian's 5.10 names",
        "# gcc-10); where it is not installed, PRE_BUILD says so and how to fix it:",
        "# install it, or give another: RETROFI_CC=gcc-12 dkms build ...",
        'PRE_BUILD="compat/probe.sh --check-cc ${kernel_source_dir}${RETROFI_CC:+ CC=$RETROFI_CC}"',
        'CLEAN="make KLIB=${kernel_source_dir} clean"',
        'AUTOINSTALL="yes"',
    ]
    lines += _selection_lines()
    lines += _exclusive_lines()
    return ("\n".join(lines) + "\n").encode()
