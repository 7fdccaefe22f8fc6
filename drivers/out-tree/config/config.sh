#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# retrofi: the output tree's own configuration, for one target.
#
#   config.sh <KLIB_BUILD> <tree> [<kernel source dir>]
#   config.sh --values <defconfig> <KLIB_BUILD|-> <tree>
#
# Reads config/options (every option of the stack, its value, whether a
# defconfig may set it, and what it needs: base facilities or earlier
# options), the selected defconfig (<tree>/.retrofi-config, else
# defconfigs/wifi: RETROFI_<DRIVER>=m, RETROFI_CONFIG_<NAME>=VALUE
# overrides, and RETROFI_ALL_OPTIONS=y: every option a defconfig may set
# turned on) and, of the target's .config, only the base facilities named
# after "needs".  Writes, atomically and only when an input changed:
#   include/retrofi/config.h   #undef/#define of CONFIG_<NAME> for every
#                              option, after the target's own autoconf.h
#   include/retrofi/config.mk  RETROFI_CONFIG_<NAME> := y|m|<value>|(empty)
# With --values, writes nothing: prints the lines "NAME<tab>VALUE<tab>why
# off" that config.h and config.mk are made of, for the given defconfig
# file (config/modules.sh lists the modules from them without touching
# the tree).  KLIB_BUILD "-" is any target: no "since" and no base
# facility switches an option off (what the defconfig selects at most).
set -eu

values_only="" sel=""
if [ "${1:-}" = --values ]; then
	values_only=1 sel=$2
	shift 2
fi
klib=$1 tree=$2 srcdir=${3:-$1}
die() { echo "retrofi: error: $*" >&2; exit 1; }

options=$tree/config/options
[ -f "$options" ] || die "$options: missing (the output tree is incomplete)"
[ "$klib" = - ] || [ -f "$klib/.config" ] ||
	die "$klib: not a configured kernel build tree (.config missing)"
if [ -z "$values_only" ]; then
	sel=$tree/.retrofi-config
	[ -f "$sel" ] || sel=$tree/defconfigs/wifi
fi
[ -f "$sel" ] || die "$sel: no defconfig selected and defconfigs/wifi missing"
hdr=$tree/include/retrofi/config.h
mk=$tree/include/retrofi/config.mk

# The API the code is built against, for "since X.Y": the target's
# LINUX_VERSION_CODE, or the API level of a shape (RETROFI_API_CODE, from
# the Makefile's API_LEVEL=) when that is older.  Any target: no bound.
if [ "$klib" = - ]; then
	api=any kconfig=/dev/null
else
	# A base that cannot host the stack at all (config/base): refused here
	# too, for a Kbuild run that did not go through the Makefile's check-target.
	sh "$tree/config/base.sh" "$klib" "$srcdir" || exit 1
	vh=$klib/include/generated/uapi/linux/version.h
	kcode=$(sed -n 's/^#define LINUX_VERSION_CODE \([0-9]*\)$/\1/p' "$vh" 2>/dev/null)
	[ -n "$kcode" ] || die "$vh: no LINUX_VERSION_CODE (not a configured kernel build tree)"
	api=$kcode kconfig=$klib/.config
	[ -z "${RETROFI_API_CODE:-}" ] || [ "$RETROFI_API_CODE" -ge "$kcode" ] || api=$RETROFI_API_CODE
fi

# name value reason, one line per option, the defconfig's overrides and
# the needs applied: a need is an earlier option of this file (its value
# here) or else a facility of the target (its .config; any target: every
# facility).
values() {
	awk -v selfile="$1" -v kconfig="$2" -v optfile="$options" -v api="$3" '
function fail(msg) { print "retrofi: error: " msg > "/dev/stderr"; failed = 1; exit 1 }
BEGIN {
	while ((getline l < optfile) > 0)
		if (l !~ /^[ \t]*(#|$)/) { split(l, w); known[w[1]] = 1 }
	while ((getline l < selfile) > 0) {
		if (l ~ /^RETROFI_ALL_OPTIONS=y$/) {
			all = 1
		} else if (l ~ /^RETROFI_CONFIG_[A-Za-z0-9_]+=/) {
			n = l; sub(/=.*/, "", n); sub(/^RETROFI_CONFIG_/, "", n)
			v = l; sub(/^[^=]*=/, "", v); override[n] = v
		} else if (l ~ /^RETROFI_[A-Z0-9_]+=/) {
			n = l; sub(/=.*/, "", n); sub(/^RETROFI_/, "", n)
			v = l; sub(/^[^=]*=/, "", v); driver[n] = v
		}
	}
	while ((getline l < kconfig) > 0)
		if (l ~ /^CONFIG_[A-Za-z0-9_]+=[ym]$/) {
			n = l; sub(/=.*/, "", n); sub(/^CONFIG_/, "", n); base[n] = 1
		}
}
/^[ \t]*(#|$)/ { next }
{
	name = $1; value = $2; why = ""; fixed = 0; nneeds = 0; since = ""
	if (name in seen) fail("option " name " listed twice")
	for (i = 3; i <= NF; i++) {
		if ($i == "fixed" && i == 3) fixed = 1
		else if ($i == "since" && nneeds == 0) {
			since = $(++i)
			if (since !~ /^[0-9]+\.[0-9]+$/)
				fail("option " name ": since takes a kernel series X.Y, not \"" since "\"")
		}
		else if ($i == "needs") {
			for (i++; i <= NF; i++) {
				needs[++nneeds] = $i
				if ($i ~ /^!/ && (substr($i, 2) in known))
					fail("option " name " needs " $i ": a facility the target must not have is never an option of config/options")
				if ($i ~ /\|/ && $i ~ /!/)
					fail("option " name " needs " $i ": a facility the target must not have is never one of alternatives")
				nalt = split($i, alt, "|")
				for (j = 1; j <= nalt; j++)
					if ((alt[j] in known) && !(alt[j] in seen))
						fail("option " name " needs " alt[j] ", which config/options lists after it; fix: move " alt[j] " above it")
			}
		}
		else fail("option " name ": unknown word " $i " (NAME VALUE [fixed] [since X.Y] [needs NAME...])")
	}
	if (fixed && (name in override) && override[name] != value)
		fail(selfile ": RETROFI_CONFIG_" name "=" override[name] ": the option is fixed at " value " (config/options says why); fix: remove the line")
	if (value ~ /^sel:/) {
		d = substr(value, 5); value = (driver[d] == "m") ? "m" : "n"
	} else if (all && !fixed && value ~ /^[yn]$/) {
		value = "y"
	}
	if (name in override) value = override[name]
	if (value != "n" && since != "") {
		split(since, sv, ".")
		if (api != "any" && api + 0 < sv[1] * 65536 + sv[2] * 256) {
			why = "not backported below " since; value = "n"
		}
	}
	if (value != "n") {
		for (i = 1; i <= nneeds; i++) {
			n = needs[i]
			if (n ~ /^!/) {
				if (api != "any" && (substr(n, 2) in base)) {
					why = "the target has CONFIG_" substr(n, 2); value = "n"; break
				}
			} else {
				# NAME, or A|B: one of them is enough (an earlier
				# option that is on, or a facility of the target)
				nalt = split(n, alt, "|"); ok = 0; why = ""
				for (j = 1; j <= nalt; j++) {
					a = alt[j]
					if (a in seen) {
						if (seen[a] != "n") ok = 1
						else why = why (why == "" ? "" : " and ") "CONFIG_" a " is off"
					} else if (api == "any" || (a in base)) {
						ok = 1
					} else {
						why = why (why == "" ? "" : " and ") "the target has no CONFIG_" a
					}
				}
				if (!ok) { value = "n"; break }
				why = ""
			}
		}
	}
	if (value !~ /^(y|m|n|-?[0-9]+|0x[0-9a-fA-F]+|"[^"]*")$/)
		fail("option " name ": bad value " value)
	seen[name] = value
	print name "\t" value "\t" why
}
END {
	if (failed) exit 1
	for (n in override)
		if (!(n in seen)) fail(selfile ": RETROFI_CONFIG_" n ": no such option in config/options; fix: use an option config/options lists")
}' "$options"
}

if [ -n "$values_only" ]; then
	values "$sel" "$kconfig" "$api" || die "$options and $sel: no configuration (see above)"
	exit 0
fi

key=$(printf '%s\n' "$(cd "$klib" && pwd -P)" "api $api" | cat - "$options" "$sel" "$klib/.config" "$0" |
	sha256sum | cut -c1-16)
if [ -f "$hdr" ] && [ -f "$mk" ] && grep -q "^/\* key: $key \*/\$" "$hdr" &&
	grep -q "^# key: $key\$" "$mk"; then
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/retrofi-config.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

values "$sel" "$kconfig" "$api" > "$tmp/values" ||
	die "$options and $sel: no configuration written (see above)"

{
	echo "/* SPDX-License-Identifier: GPL-2.0 */"
	echo "/*"
	echo " * retrofi: the output tree's configuration (config/options, $(basename "$sel"))"
	echo " * for $(cat "$klib/include/config/kernel.release" 2>/dev/null || echo "$klib")."
	echo " * Generated by config/config.sh; force-included before every file, so"
	echo " * the stack's CONFIG_ options are these, never the target's."
	echo " */"
	echo "/* key: $key */"
	echo "#ifndef _RETROFI_CONFIG_H"
	echo "#define _RETROFI_CONFIG_H"
	echo "/* The target's own configuration first (once: kconfig.h has a guard). */"
	echo "#include <linux/kconfig.h>"
	while IFS='	' read -r name value why; do
		echo "#undef CONFIG_$name"
		echo "#undef CONFIG_${name}_MODULE"
		case $value in
		n) [ -z "$why" ] || echo "/* CONFIG_$name off: $why */" ;;
		y) echo "#define CONFIG_$name 1" ;;
		m) echo "#define CONFIG_${name}_MODULE 1" ;;
		*) echo "#define CONFIG_$name $value" ;;
		esac
	done < "$tmp/values"
	echo "#endif /* _RETROFI_CONFIG_H */"
} > "$tmp/config.h"

{
	echo "# retrofi: the output tree's configuration for the Kbuild files"
	echo "# (generated by config/config.sh from config/options and $(basename "$sel"))."
	echo "# key: $key"
	while IFS='	' read -r name value why; do
		case $value in
		n) echo "RETROFI_CONFIG_$name :=${why:+ # off: $why}" ;;
		*) echo "RETROFI_CONFIG_$name := $value" ;;
		esac
	done < "$tmp/values"
	echo "export $(cut -f1 "$tmp/values" | sed 's/^/RETROFI_CONFIG_/' | tr '\n' ' ')"
} > "$tmp/config.mk"

mkdir -p "$(dirname "$hdr")"
cp "$tmp/config.h" "$hdr.tmp.$$" && mv "$hdr.tmp.$$" "$hdr"
cp "$tmp/config.mk" "$mk.tmp.$$" && mv "$mk.tmp.$$" "$mk"
