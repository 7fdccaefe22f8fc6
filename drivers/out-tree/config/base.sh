#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# retrofi: whether a target kernel can host the backported stack at all.
#
#   base.sh <KLIB_BUILD> [<kernel source dir>]
#
# Reads only the target's .config (and, for cfg80211, its netdevice.h):
# fails at once, with one error naming every missing option, when the
# kernel lacks a base facility of config/base, has cfg80211 or mac80211
# built in, or keeps struct net_device's ieee80211_ptr only with a
# cfg80211 it does not have. Run by `make` (check-target), config.sh and
# the matrix runner before each row's build: a kernel that cannot load a
# Wi-Fi stack is refused in well under a second, never by a failed compile.
set -eu

klib=$1 srcdir=${2:-}
base=$(dirname "$0")/base
die() { printf 'retrofi: error: %s\n  fix: %s\n' "$1" "$2" >&2; exit 1; }

config=$klib/.config
[ -f "$config" ] || die "$klib: not a configured kernel build tree (.config missing)" \
	"pass KLIB=<the headers package's build dir>"
[ -f "$base" ] || die "$base: missing (the output tree is incomplete)" "generate the tree again"

if grep -q '^CONFIG_CFG80211=y' "$config"; then
	die "$klib: the target kernel has cfg80211 built in (CONFIG_CFG80211=y)" \
		"use a kernel built with CONFIG_CFG80211=m; a built-in stack cannot be replaced by modules"
fi
if grep -q '^CONFIG_MAC80211=y' "$config"; then
	die "$klib: the target kernel has mac80211 built in (CONFIG_MAC80211=y)" \
		"use a kernel built with CONFIG_MAC80211=m; a built-in stack cannot be replaced by modules"
fi

# Debian's flavour headers include their -common tree's Makefile, which
# holds include/linux: find it (installed, or unpacked beside).
if [ -z "$srcdir" ]; then
	common=$(sed -n 's|^include .*/\(linux-headers-[^/]*\)/Makefile$|\1|p' "$klib/Makefile" 2>/dev/null | head -n 1)
	if [ -d "$klib/source/include" ]; then
		srcdir=$klib/source
	elif [ -n "$common" ] && [ -d "$klib/../$common" ]; then
		srcdir=$klib/../$common
	else
		srcdir=$klib
	fi
fi

missing=""
while read -r option why; do
	case $option in ''|'#'*) continue ;; esac
	grep -Eq "^CONFIG_$option=[ym]\$" "$config" ||
		missing="$missing${missing:+; }CONFIG_$option ($why)"
done < "$base"

# cfg80211 is the one wireless option the base cannot lack: since 6.1
# struct net_device has ieee80211_ptr only when IS_ENABLED(CONFIG_CFG80211),
# and without it no cfg80211 device can exist on that kernel.
netdev=$srcdir/include/linux/netdevice.h
if ! grep -Eq '^CONFIG_CFG80211=[ym]$' "$config" && [ -f "$netdev" ] &&
	grep -B1 'struct wireless_dev[[:space:]]*\*ieee80211_ptr;' "$netdev" |
	grep -q 'IS_ENABLED(CONFIG_CFG80211)'; then
	missing="CONFIG_CFG80211 (the target kernel has no cfg80211, and its struct net_device holds ieee80211_ptr only with it: include/linux/netdevice.h)${missing:+; }$missing"
fi

[ -z "$missing" ] || die "$klib: this kernel cannot load a Wi-Fi stack: it lacks $missing" \
	"use a kernel built with them (Debian's generic or rt flavour, not cloud), or rebuild it with them as y or m (modprobe loads the backport's cfg80211 from updates/, never the target's)"
