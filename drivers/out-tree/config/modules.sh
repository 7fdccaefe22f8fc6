#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# retrofi: the modules a defconfig builds for one target, without building.
#
#   modules.sh [--report] <KLIB_BUILD> <defconfig file>
#
# Walks the tree's Kbuild files from the top one (obj-m, obj-y and
# obj-$(VAR) lines, as Kbuild reads them) with the defconfig's driver
# selection (RETROFI_<DRIVER>=m) and the option values config/config.sh
# gives for that target (config.sh --values: nothing is written), and
# prints one line per module and per module or directory switched off:
#   m <dir>/<name>.ko
#   off <dir>/<name>.ko|<dir>/ <why>      (e.g. CONFIG_MT76_CORE off: not
#                                          backported below 7.3)
# With --report, only the switched-off ones, as sentences for a build log.
# dkms.conf lists the "m" lines (dkms installs exactly what the build
# makes); a target config.sh cannot read or refuses (no headers, a base
# that cannot host the stack: the build itself says why) is taken as any
# target, so the list is what the defconfig selects at most.
set -eu

report=""
if [ "${1:-}" = --report ]; then
	report=1
	shift
fi
[ $# -eq 2 ] || { echo "usage: modules.sh [--report] <KLIB_BUILD> <defconfig file>" >&2; exit 2; }
klib=$1 sel=$2
tree=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$sel" ] || { echo "retrofi: error: $sel: no such defconfig" >&2; exit 1; }

values=$(sh "$tree/config/config.sh" --values "$sel" "$klib" "$tree" 2>/dev/null) ||
	values=$(sh "$tree/config/config.sh" --values "$sel" - "$tree") ||
	{ echo "retrofi: error: $tree/config/config.sh: no configuration for $sel" >&2; exit 1; }

out=$(printf '%s\n' "$values" | awk -v tree="$tree" -v selfile="$sel" -v optfile="$tree/config/options" -v report="$report" '
function fail(msg) { print "retrofi: error: " msg > "/dev/stderr"; failed = 1; exit 1 }
function walk(rel,    kbuild, line, text, lines, n, i, key, words, nw, j, w, value, why, var, path) {
	kbuild = tree "/" (rel == "" ? "" : rel "/") "Kbuild"
	if ((getline line < kbuild) <= 0)
		fail(kbuild ": missing, but its parent Kbuild descends into " rel "/; fix: regenerate the output tree")
	text = line "\n"
	while ((getline line < kbuild) > 0)
		text = text line "\n"
	close(kbuild)
	gsub(/\\\n/, " ", text)
	n = split(text, lines, "\n")
	for (i = 1; i <= n; i++) {
		line = lines[i]
		sub(/^[ \t]+/, "", line)
		sub(/#.*/, "", line)
		if (line !~ /^obj-[^ \t]+[ \t]*[:+]?=/)
			continue
		key = line; sub(/[ \t]*[:+]?=.*/, "", key); sub(/^obj-/, "", key)
		w = line; sub(/^[^=]*=/, "", w)
		why = ""
		if (key == "m" || key == "y") {
			value = key
		} else if (key ~ /^\$\([A-Za-z0-9_]+\)$/) {
			var = substr(key, 3, length(key) - 3)
			if (!(var in val))
				fail(kbuild ": obj-" key ": neither the driver selection nor config/options sets " var "; fix: add it to config/options or the defconfigs")
			value = val[var]
			if (off[var] != "")
				why = var " off: " off[var]
		} else {
			fail(kbuild ": obj-" key ": not obj-m, obj-y or obj-$(VAR)")
		}
		nw = split(w, words, /[ \t]+/)
		for (j = 1; j <= nw; j++) {
			if (words[j] == "")
				continue
			path = (rel == "" ? "" : rel "/") words[j]
			while (sub(/\/\.\//, "/", path) || sub(/^\.\//, "", path))
				;
			if (path ~ /\/$/) {
				if (value == "m" || value == "y")
					walk(substr(path, 1, length(path) - 1))
				else if (why != "")
					print "off " path " " why
			} else if (path ~ /\.o$/) {
				sub(/\.o$/, ".ko", path)
				if (value == "m")
					print "m " path
				else if (why != "")
					print "off " path " " why
			}
		}
	}
}
BEGIN {
	# The drivers a defconfig may select (config/options: sel:DRIVER),
	# off unless the defconfig selects them.
	while ((getline line < optfile) > 0) {
		sub(/#.*/, "", line)
		while (match(line, /sel:[A-Z0-9_]+/)) {
			val["RETROFI_" substr(line, RSTART + 4, RLENGTH - 4)] = ""
			line = substr(line, RSTART + RLENGTH)
		}
	}
	while ((getline line < selfile) > 0) {
		if (line ~ /^RETROFI_CONFIG_/ || line !~ /^RETROFI_[A-Za-z0-9_]+[ \t]*:?=/)
			continue
		name = line; sub(/[ \t]*:?=.*/, "", name)
		v = line; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t#].*/, "", v)
		val[name] = v
	}
}
{
	# config.sh --values: NAME VALUE WHY (tab-separated)
	split($0, f, "\t")
	val["RETROFI_CONFIG_" f[1]] = (f[2] == "n") ? "" : f[2]
	off["RETROFI_CONFIG_" f[1]] = f[3]
}
END {
	if (failed)
		exit 1
	walk("")
}') || exit 1
if [ -n "$report" ]; then
	printf '%s\n' "$out" | sed -n 's|^off \([^ ]*\) \(.*\)$|retrofi: not built: \1 (\2)|p'
else
	printf '%s\n' "$out"
fi
