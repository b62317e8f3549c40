#!/bin/sh
# Build kvm-unit-tests (docs/kvm-unit-tests.md) out of tree into OUT
# (build/kut): OUT/src holds the unpacked source (unless KUT_SRC names a
# folder), OUT/obj the configured build with x86/*.flat and x86/unittests.cfg.
#   build-kut.sh [OUT]
# Source: KUT_SRC=DIR, else KUT_TARBALL or the shared vendor tarball, else
# upstream at the pinned commit; without any, one line and status 0 (a skip;
# OUT/obj/x86 then does not exist).  Nothing is rebuilt while OUT/SOURCE
# names the same source and the build is complete.
set -eu
cd "$(dirname "$0")/.."
. scripts/vendor-src.sh

NAME=kvm-unit-tests-1da1819e
COMMIT=1da1819e49fc4938985edca67df669099b4c87a7
UPSTREAM=https://gitlab.com/kvm-unit-tests/kvm-unit-tests
out=${1:-build/kut}
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [ -n "${KUT_SRC:-}" ]; then
	[ -f "$KUT_SRC/configure" ] || { echo "kut: KUT_SRC=$KUT_SRC has no configure" >&2; exit 2; }
	src=$(cd "$KUT_SRC" && pwd)
	# KUT's own make decides what to rebuild in a source folder that changes.
	ident=$(vendor_src_ident "$src")
else
	src=$out/src
	ident=$NAME
fi
if [ "$(cat "$out/SOURCE" 2>/dev/null)" = "$ident" ] && [ -f "$out/obj/.built" ]; then
	echo "kut: up to date ($ident) in $out/obj"
	exit 0
fi

if [ -z "${KUT_SRC:-}" ] && [ "$(cat "$src/.mhv-source" 2>/dev/null)" != "$NAME" ]; then
	if tb=$(vendor_tarball "$NAME" "${KUT_TARBALL:-}"); then
		echo "kut: unpacking $tb"
		vendor_unpack "$tb" "$src"
	elif [ -z "${KUT_TARBALL:-}" ] && echo "kut: no $NAME.tar.xz; cloning $UPSTREAM" &&
		vendor_clone "$UPSTREAM" "$COMMIT" . "$src"; then
		:
	else
		echo "kut: skipped: no source; set KUT_SRC=DIR (a checkout of $UPSTREAM at $COMMIT) or KUT_TARBALL=FILE ($NAME.tar.xz)"
		rm -rf "$src"
		exit 0
	fi
	echo "$NAME" >"$src/.mhv-source"
fi

rm -f "$out/obj/.built" "$out/SOURCE"
mkdir -p "$out/obj"
echo "kut: building $ident in $out/obj"
(cd "$out/obj" && "$src/configure" --arch=x86_64 >../configure.log 2>&1) ||
	{ tail -n 20 "$out/configure.log" >&2; echo "kut: configure failed" >&2; exit 1; }
(cd "$out/obj" && nice make -j2 >../make.log 2>&1) ||
	{ tail -n 30 "$out/make.log" >&2; echo "kut: build failed" >&2; exit 1; }
ls "$out/obj/x86/"*.flat >/dev/null
touch "$out/obj/.built"
echo "$ident" >"$out/SOURCE"
echo "kut: $(find "$out/obj/x86" -name "*.flat" | wc -l) x86 binaries in $out/obj/x86"
