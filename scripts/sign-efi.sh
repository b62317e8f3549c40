#!/bin/sh
# Sign a UEFI application for Secure Boot (make usb SB_KEY=... SB_CERT=...).
#   sign-efi.sh KEY CERT IN.EFI OUT.EFI
# KEY: the PEM private key (sbsign asks for its passphrase, if any); CERT:
# its PEM certificate, the one enrolled in the firmware's db or as a MOK
# (README: Secure Boot).  Checks the signature with sbverify afterwards.
# Needs Debian's sbsigntool.
set -eu
[ $# = 4 ] || { echo "usage: sign-efi.sh KEY CERT IN.EFI OUT.EFI" >&2; exit 2; }
key=$1 cert=$2 in=$3 out=$4
command -v sbsign >/dev/null 2>&1 ||
	{ echo "sign-efi: sbsign missing: apt-get install sbsigntool" >&2; exit 2; }
for f in "$key" "$cert" "$in"; do
	[ -f "$f" ] || { echo "sign-efi: $f: no such file" >&2; exit 2; }
done
mkdir -p "$(dirname "$out")"
# sbsign warns about the gaps between the PE sections of a GNU-EFI image
# (objcopy leaves them); the firmware checks the hash all the same.
if ! msg=$(sbsign --key "$key" --cert "$cert" --output "$out" "$in" 2>&1); then
	echo "sign-efi: sbsign failed: $(printf '%s\n' "$msg" | grep -v '^warning: data remaining' | tr '\n' ' ')" >&2
	exit 1
fi
if ! sbverify --cert "$cert" "$out" >/dev/null 2>&1; then
	echo "sign-efi: $out does not verify against $cert (is $key the key of $cert?)" >&2
	exit 1
fi
echo "sign-efi: $out signed with $key ($(openssl x509 -noout -subject -in "$cert" 2>/dev/null || echo "$cert"))"
