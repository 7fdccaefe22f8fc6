#!/bin/sh
# retrofi: sign the modules dkms saved for a kernel, as dkms 3.0 and newer
# sign every module they build. dkms.conf runs this as POST_BUILD only
# under a dkms that signs nothing itself (bullseye's 2.8) and where the
# administrator named no sign_tool of their own.
#
#   dkms-sign.sh <kernel release> <arch>     (run in dkms's build directory)
#
# The key is dkms's own: /var/lib/dkms/mok.key and its certificate
# /var/lib/dkms/mok.pub, made here as dkms 3.0 makes them when missing, so
# that an upgrade to dkms 3.0 keeps the key a user has enrolled
# (mokutil --import /var/lib/dkms/mok.pub). The hash is the kernel's
# CONFIG_MODULE_SIG_HASH (sha512 where it names none); the signing tool the
# kernel's own scripts/sign-file (Debian: linux-kbuild).
set -eu

kver=${1:?usage: dkms-sign.sh <kernel release> <arch>}
arch=${2:?usage: dkms-sign.sh <kernel release> <arch>}
dir=../$kver/$arch/module
key=/var/lib/dkms/mok.key
cert=/var/lib/dkms/mok.pub

say() { echo "retrofi: $*"; }

sign_file=/usr/lib/linux-kbuild-${kver%.*}/scripts/sign-file
[ -x "$sign_file" ] || sign_file=/lib/modules/$kver/build/scripts/sign-file
if [ ! -x "$sign_file" ]; then
	say "modules for $kver not signed: no $sign_file"
	say "  fix: install the kernel's linux-kbuild package, then: dkms install retrofi/<version> -k $kver --force"
	exit 1
fi

if [ ! -f "$key" ] || [ ! -f "$cert" ]; then
	if ! command -v openssl >/dev/null; then
		say "modules for $kver not signed: openssl is not installed to make dkms's signing key"
		say "  fix: apt-get install openssl, then: dkms install retrofi/<version> -k $kver --force"
		exit 1
	fi
	say "making dkms's signing key $key and its certificate $cert"
	mkdir -p "${key%/*}"
	(umask 077 &&
	 openssl req -new -x509 -nodes -days 36500 -subj "/CN=DKMS module signing key" \
		-newkey rsa:2048 -keyout "$key" -outform DER -out "$cert" >/dev/null 2>&1)
fi

hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "/lib/modules/$kver/build/.config" 2>/dev/null || true)
hash=${hash:-sha512}

n=0
for ko in "$dir"/*.ko; do
	[ -e "$ko" ] || continue
	"$sign_file" "$hash" "$key" "$cert" "$ko"
	n=$((n + 1))
done
if [ "$n" -eq 0 ]; then
	say "no uncompressed module in $dir to sign"
	exit 1
fi
say "signed $n modules for $kver with $cert ($hash)"
