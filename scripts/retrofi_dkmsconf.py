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
        "# so a built-in option is excluded with !NAME.  dkms 2.8 (bullseye)",
        "# reads no BUILD_EXCLUSIVE_CONFIG, only BUILD_EXCLUSIVE_KERNEL: a kernel",
        "# excluded by its options also gets a kernel rule that matches nothing.",
        'if [[ ! ${kernelver} =~ ${BUILD_EXCLUSIVE_KERNEL} ]]; then',
        f'\t{skip} retrofi supports kernels {OLDEST_KERNEL} and newer"'
        ' >&2',
        'elif [ -e "${kernel_source_dir}/.config" ]; then',
        f"\tfor retrofi_opt in {opts}; do",
        '\t\tif grep -q "^${retrofi_opt}=y" "${kernel_source_dir}/.config"; then',
        '\t\t\tBUILD_EXCLUSIVE_CONFIG="${BUILD_EXCLUSIVE_CONFIG} !${retrofi_opt}"',
        '\t\t\tBUILD_EXCLUSIVE_KERNEL="^$"',
        f'\t\t\t{skip} ${{retrofi_opt}}=y (built in): retrofi replaces'
        ' cfg80211 and mac80211 by modules, it needs both =m" >&2',
        '\t\telif ! grep -q "^${retrofi_opt}=m" "${kernel_source_dir}/.config"; then',
        '\t\t\tBUILD_EXCLUSIVE_KERNEL="^$"',
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
# The tree's own lister of the modules a defconfig builds for a kernel
# (its Kbuild files, config/options and config.sh's rules; writes nothing).
LISTER = "config/modules.sh"


def _selection_lines():
    """Bash that reads the knob and lists, in BUILT_MODULE_*, exactly the
    modules the selected defconfig builds for ${kernel_source_dir}: dkms
    fails on a listed module the build did not make, and installs none
    it does not list.  Which modules that is depends on the kernel (an
    option "since X.Y", a facility the target lacks), so the tree's own
    config/modules.sh computes it each time dkms sources this file."""
    dflt = DEFAULT_DEFCONFIG
    return [
        f"# Which drivers: RETROFI_DEFCONFIG in {DEFAULTS_FILE} (a name of",
        f"# defconfigs/, e.g. hwsim, wifi, drivers, all); default {dflt}, the whole stack.",
        f'retrofi_defaults="${{RETROFI_DEFAULTS:-{DEFAULTS_FILE}}}"',
        f"retrofi_defconfig={dflt}",
        'if [ -r "${retrofi_defaults}" ]; then',
        f'	retrofi_defconfig=$(RETROFI_DEFCONFIG={dflt}; . "${{retrofi_defaults}}" >/dev/null 2>&1;'
        f' echo "${{RETROFI_DEFCONFIG:-{dflt}}}")',
        "fi",
        'retrofi_tree="$(dirname "${BASH_SOURCE[0]}")"',
        'retrofi_defconfigs="${retrofi_tree}/defconfigs"',
        'retrofi_sel="${retrofi_defconfigs}/${retrofi_defconfig}"',
        "# The build log (make.log) says first which modules this kernel does not",
        "# get and why (e.g. an option not backported below its series).",
        f'retrofi_report="sh {LISTER} --report ${{kernel_source_dir}} defconfigs/${{retrofi_defconfig}}; "',
        'if [[ ! ${retrofi_defconfig} =~ ^[A-Za-z0-9_-]+$ ]] || [ ! -f "${retrofi_sel}" ]; then',
        "	retrofi_report=",
        '	echo "retrofi: error: ${retrofi_defaults}: RETROFI_DEFCONFIG=${retrofi_defconfig}:'
        ' no such defconfig" >&2',
        '	echo "  fix: name one of:" $(ls "${retrofi_defconfigs}") >&2',
        "	# (the build stops at make defconfig-NAME; the list is the default's)",
        f'	retrofi_sel="${{retrofi_defconfigs}}/{dflt}"',
        "fi",
        'MAKE[0]="${retrofi_report}make KLIB=${kernel_source_dir} defconfig-${retrofi_defconfig} &&'
        ' make -j$(nproc) KLIB=${kernel_source_dir}${RETROFI_CC:+ CC=$RETROFI_CC} modules"',
        "# The modules that build makes for this kernel (config/modules.sh: the",
        "# tree's Kbuild files, config/options and the kernel's .config and",
        "# version; it writes nothing, and a kernel it cannot read, e.g. without",
        "# headers, gets what the defconfig selects on any kernel).",
        "retrofi_i=0",
        "while read -r retrofi_kind retrofi_ko _; do",
        '	[ "${retrofi_kind}" = m ] || continue',
        '	retrofi_where="${retrofi_ko%/*}"',
        '	[ "${retrofi_where}" != "${retrofi_ko}" ] || retrofi_where=.',
        '	BUILT_MODULE_NAME[retrofi_i]="$(basename "${retrofi_ko}" .ko)"',
        '	BUILT_MODULE_LOCATION[retrofi_i]="${retrofi_where}/"',
        '	DEST_MODULE_LOCATION[retrofi_i]="/updates/${retrofi_where}"',
        "	retrofi_i=$((retrofi_i + 1))",
        f'done < <(sh "${{retrofi_tree}}/{LISTER}" "${{kernel_source_dir}}" "${{retrofi_sel}}" ||',
        f'	echo "retrofi: error: ${{retrofi_tree}}/{LISTER} could not list the modules;'
        ' fix: reinstall the package (the source tree is incomplete)" >&2)',
    ]


def _signing_lines():
    """dkms 3.0 and newer sign what they build with dkms's MOK key; dkms
    2.8 (bullseye) signs only through a sign_tool the administrator sets in
    its framework.conf.  A dkms that signs has dkms_framework_signing_variables
    (readonly in the dkms process that sources this file): where it is
    unset and no sign_tool is named, the tree's config/dkms-sign.sh signs
    the modules dkms saved, with the same key made the same way."""
    return [
        "# dkms 3.0 and newer sign the modules they build with dkms's MOK key",
        "# (/var/lib/dkms/mok.key); bullseye's dkms 2.8 signs nothing unless the",
        "# administrator names a sign_tool. There the tree's own script signs",
        "# the modules dkms saved, with that key, made as dkms 3.0 makes it.",
        'if [ -z "${dkms_framework_signing_variables+set}" ] && [ -z "${sign_tool:-}" ]; then',
        '	POST_BUILD="config/dkms-sign.sh ${kernelver} ${arch}"',
        "fi",
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
    lines += _signing_lines()
    lines += _selection_lines()
    lines += _exclusive_lines()
    return ("\n".join(lines) + "\n").encode()
