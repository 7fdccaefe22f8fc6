#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# retrofi: decide from the target's own headers which probed APIs it has.
#
#   probe.sh <KLIB_BUILD> <probes.list> <output header> [make args...]
#   probe.sh --check-cc <KLIB_BUILD> [make args...]
#
# First, and alone with --check-cc (dkms's PRE_BUILD), it asks the target's
# Kbuild which compiler it builds with (the headers name one: Debian's
# .kernelvariables says gcc-10 for 5.10; CC=... on the make command line
# overrides it) and stops with one error naming it, and the fix, when that
# compiler is not installed: otherwise every probe would fail for it.
#
# Compiles each probe with the target's Kbuild (one make run of single
# targets, -k, in parallel, in a temporary directory; to assembly, where a
# missing declaration fails: assembling and objtool would only add time)
# and writes the header atomically. The layout checks in layout.list
# (beside probes.list) are measured by a second such run, from assembly
# like the kernel's asm-offsets. The result is cached: it is redone only
# when KLIB_BUILD, its kernel release or the lists change.
set -eu

die() { echo "retrofi: error: $*" >&2; exit 1; }

# The installed compilers, "<major> <command>" a line: every gcc-N on
# PATH, and gcc itself by its -dumpversion.
installed_gccs() {
	for d in $(echo "$PATH" | tr ':' ' '); do ls "$d" 2>/dev/null; done |
		sed -n 's/^gcc-\([0-9][0-9]*\)$/\1 gcc-\1/p' | sort -n -u
	v=$(gcc -dumpversion 2>/dev/null) && echo "${v%%.*} gcc" || :
}

# release_with <major>: the first Debian release whose gcc is at least that
# major (its default compiler; trixie's is the one retrofi's toolchain root
# brings for the kernels Debian 13 built), or nothing.
release_with() {
	if [ "$1" -le 10 ]; then echo "Debian 11 (bullseye)"
	elif [ "$1" -le 12 ]; then echo "Debian 12 (bookworm)"
	elif [ "$1" -le 14 ]; then echo "Debian 13 (trixie)"
	fi
}

# check_cc <KLIB_BUILD> [make args...]: the compiler the target's Kbuild
# runs is installed, or one error naming it and the fix.  The fix offers an
# installed compiler only if it is at least as new as the named one (an
# older gcc refuses the newer one's flags in the headers, such as gcc-14's
# -fmin-function-alignment=16); with none, it says so and names the
# release that has one.
check_cc() {
	ccdir=$(mktemp -d "${TMPDIR:-/tmp}/retrofi-cc.XXXXXX")
	echo '$(info RETROFI-CC: $(origin CC): $(CC))' > "$ccdir/Kbuild"
	: > "$ccdir/cc.c"
	ccklib=$1
	shift
	make -s -C "$ccklib" M="$ccdir" "$@" cc.i >"$ccdir/log" 2>&1 || :
	line=$(sed -n 's/^RETROFI-CC: *//p' "$ccdir/log" | head -n 1)
	rm -rf "$ccdir"
	cc=$(echo ${line#*: }) origin=${line%%: *}
	[ -n "$cc" ] || return 0        # the build itself will say what is wrong
	for word in $cc; do
		case $word in -*) continue ;; esac
		command -v "$word" >/dev/null 2>&1 && continue
		# The named compiler's major version, if its name has one
		# (gcc-14, x86_64-linux-gnu-gcc-14).
		want=$(echo "$word" | sed -n 's/^\(.*-\)\{0,1\}gcc-\([0-9][0-9]*\)$/\2/p')
		gccs=$(installed_gccs)
		if [ -n "$want" ]; then
			have=$(echo "$gccs" | awk -v w="$want" '$1 >= w { print $2; exit }')
		else
			have=$(echo "$gccs" | tail -n 1 | cut -s -d' ' -f2)
		fi
		case $origin in
		command*) named="the compiler given as CC=$cc" ;;
		*) named="the compiler the target's headers name (CC=$cc in their Makefile)" ;;
		esac
		echo "retrofi: error: $ccklib: $word is not installed: $named" >&2
		if [ -n "$have" ] || [ -z "$want" ]; then
			echo "  fix: install $word (Debian: apt-get install $word), or build with an installed compiler${want:+ at least as new}: make CC=${have:-gcc-NN} (DKMS: RETROFI_CC=${have:-gcc-NN} dkms ...)" >&2
		else
			older=$(echo "$gccs" | awk 'NF { printf "%s%s", (n++ ? ", " : ""), ($2 == "gcc" ? "gcc " $1 : $2) }')
			release=$(release_with "$want")
			echo "  fix: no installed compiler is gcc-$want or newer (${older:+installed: $older; }older compilers refuse the flags of the headers' gcc-$want);" \
				"install gcc-$want: ${release:-a Debian release newer than Debian 13 (trixie)} has it (build there, or in a chroot of it${release:+$(case $release in *trixie*) echo ": retrofi's matrix builds these kernels in trixie's toolchain root" ;; esac)})" >&2
		fi
		exit 1
	done
}

if [ "${1:-}" = --check-cc ]; then
	[ $# -ge 2 ] || die "usage: probe.sh --check-cc <KLIB_BUILD> [make args...]"
	shift
	[ -f "$1/Makefile" ] || die "$1: not a kernel build tree (no Makefile); pass KLIB=<headers dir>"
	check_cc "$@"
	exit 0
fi

klib=$1 list=$2 out=$3
shift 3

[ -f "$klib/Makefile" ] || die "$klib: not a kernel build tree (no Makefile); pass KLIB=<headers dir>"
[ -f "$list" ] || die "$list: probe list missing"
rel=$(cat "$klib/include/config/kernel.release" 2>/dev/null || echo unknown)
layout=$(dirname "$list")/layout.list
[ -f "$layout" ] || layout=/dev/null
key=$(printf '%s\n%s\n%s\n' "$(cd "$klib" && pwd -P)" "$rel" "$*" | cat - "$list" "$layout" |
	sha256sum | cut -c1-16)

if [ -f "$out" ] && grep -q "^/\* key: $key \*/\$" "$out"; then
	exit 0
fi

check_cc "$klib" "$@"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/retrofi-probe.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
names=""
while IFS='|' read -r name header stmt; do
	name=$(echo "$name" | tr -d ' \t')
	case "$name" in ''|'#'*) continue ;; esac
	header=$(echo "$header" | tr -d ' \t')
	cat > "$tmp/probe_$name.c" <<PROBE
#include <linux/module.h>
#include <$header>
void retrofi_probe_$name(void);
void retrofi_probe_$name(void)
{
	$stmt
}
MODULE_LICENSE("GPL");
PROBE
	echo "obj-m += probe_$name.o" >> "$tmp/Kbuild"
	names="$names $name"
done < "$list"

offsets="" values=""
while IFS='|' read -r st member header option; do
	st=$(echo "$st" | tr -d ' \t')
	case "$st" in ''|'#'*) continue ;; esac
	member=$(echo "$member" | tr -d ' \t')
	header=$(echo "$header" | tr -d ' \t')
	option=$(echo "$option" | tr -d ' \t')
	grep -q "^$option=y" "$klib/.config" || continue
	if [ "$st" = value ]; then
		# A constant the built-in code tests: its value in the target's
		# headers, if they have it (code cannot test one they lack).
		cat > "$tmp/value_$member.c" <<VALUE
#include <$header>
void retrofi_value(void);
void retrofi_value(void)
{
	asm volatile("\n.ascii \"->RETROFI_VALUE %0\"" : : "i" ($member));
}
VALUE
		echo "targets += value_$member.o" >> "$tmp/Kbuild"
		values="$values $member"
		continue
	fi
	cat > "$tmp/layout_${st}_$member.c" <<LAYOUT
#include <linux/stddef.h>
#include <$header>
void retrofi_layout(void);
void retrofi_layout(void)
{
	asm volatile("\n.ascii \"->RETROFI_OFFSET %0\"" : : "i" (offsetof(struct $st, $member)));
}
LAYOUT
	# A single-target build (layout_*.s below) must name a known target;
	# before 5.18 Kbuild refuses one that is not (not built by "modules").
	echo "targets += layout_${st}_$member.o" >> "$tmp/Kbuild"
	offsets="$offsets ${st}_$member"
done < "$layout"

echo "  PROBE   $(echo $names | wc -w) APIs, $(echo $offsets $values | wc -w) layouts in $klib ($rel)"
# Two make runs of single targets (assembly only: no modpost, no
# linking), each over every probe at once, in parallel.
jobs=-j$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
# Each probe must compile without error; warnings are errors here so that
# an implicit declaration never counts as "present".
objs=$(for name in $names; do printf ' probe_%s.s' "$name"; done)
[ -z "$objs" ] || make -k -s "$jobs" -C "$klib" M="$tmp" "$@" KCFLAGS=-Werror $objs >"$tmp/log" 2>&1 || true
asms=$(for o in $offsets; do printf ' layout_%s.s' "$o"; done; for v in $values; do printf ' value_%s.s' "$v"; done)
[ -z "$asms" ] || make -k -s "$jobs" -C "$klib" M="$tmp" "$@" $asms >"$tmp/layout.log" 2>&1 || true
for o in $offsets; do
	[ -f "$tmp/layout_$o.s" ] ||
		die "measuring $o in the target's headers failed: $(grep -m1 error "$tmp/layout.log")"
done

mkdir -p "$(dirname "$out")"
{
	echo "/* Generated by compat/probe.sh: do not edit. */"
	echo "/* key: $key */"
	echo "/* KLIB: $klib ($rel) */"
	echo "#ifndef _RETROFI_PROBES_H"
	echo "#define _RETROFI_PROBES_H"
	for name in $names; do
		if [ -f "$tmp/probe_$name.s" ]; then v=1; else v=0; fi
		echo "#define RETROFI_HAVE_$name $v"
	done
	for o in $offsets; do
		v=$(grep -o -- '->RETROFI_OFFSET \$\{0,1\}[0-9][0-9]*' "$tmp/layout_$o.s" |
			grep -o '[0-9]*$' | head -n 1)
		[ -n "$v" ] || die "no offset for $o in $tmp/layout_$o.s"
		echo "#define RETROFI_TARGET_OFFSETOF_$o $v"
	done
	for v in $values; do
		[ -f "$tmp/value_$v.s" ] || continue
		n=$(grep -o -- '->RETROFI_VALUE \$\{0,1\}-\{0,1\}[0-9][0-9]*' "$tmp/value_$v.s" |
			grep -o -- '-\{0,1\}[0-9]*$' | head -n 1)
		[ -n "$n" ] || die "no value for $v in $tmp/value_$v.s"
		echo "#define RETROFI_TARGET_VALUE_$v $n"
	done
	echo "#endif"
} > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
