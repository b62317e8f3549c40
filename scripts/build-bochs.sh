#!/bin/sh
# Build the pinned Bochs (docs/testing.md) once, into a cache outside
# the clone, and print the path of its binary on the last line.
#   build-bochs.sh [--path]
# --path only prints where the binary is (or would be) for the current key.
# Source: BOCHS_SRC=DIR, else BOCHS_TARBALL or the shared vendor tarball,
# else upstream at the pinned commit; without any, one line and status 0
# with no path printed (a skip).  The cache key covers the source, the
# configure line and the patch series tests/emu/bochs/*.patch, so a new
# patch rebuilds into a new folder.
set -eu
cd "$(dirname "$0")/.."
. scripts/vendor-src.sh

NAME=bochs-783b58fd
COMMIT=783b58fd6d9bae598a07c59719122322fa0edce6
UPSTREAM=https://github.com/bochs-emu/Bochs
# ../shared/vendor/README.md: headless, no plugins, both vendors' extensions;
# --enable-debugger keeps -rc command files working.
CONFIGURE="--with-rfb --with-nogui --enable-cpu-level=6 --enable-x86-64 --enable-smp \
--enable-vmx=2 --enable-svm --enable-avx --enable-evex --enable-cet --enable-protection-keys \
--enable-a20-pin --enable-pci --enable-memtype --enable-x86-debugger --enable-all-optimizations \
--enable-debugger --disable-debugger-gui --enable-es1370 --disable-plugins"
CACHE=${MHV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mhv}

patches=$(find tests/emu/bochs -name "*.patch" 2>/dev/null | LC_ALL=C sort)
if [ -n "${BOCHS_SRC:-}" ]; then
	[ -f "$BOCHS_SRC/configure" ] || { echo "bochs: BOCHS_SRC=$BOCHS_SRC has no configure" >&2; exit 2; }
	BOCHS_SRC=$(cd "$BOCHS_SRC" && pwd)
	ident=$(vendor_src_ident "$BOCHS_SRC")
else
	ident=$NAME
fi
key=$( { echo "$ident"; echo "$CONFIGURE"; for p in $patches; do echo "== $p"; cat "$p"; done; } |
	sha256sum | cut -c1-12)
dir=$CACHE/bochs-$key
bin=$dir/bin/bochs
if [ "${1:-}" = --path ]; then echo "$bin"; exit 0; fi
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

mkdir -p "$CACHE"
tmp=$dir.tmp-$$
trap 'rm -rf "$tmp"' EXIT INT TERM
rm -rf "$tmp" && mkdir -p "$tmp"
src=$tmp/src
if [ -n "${BOCHS_SRC:-}" ]; then
	echo "bochs: copying $BOCHS_SRC"
	mkdir -p "$src" && (cd "$BOCHS_SRC" && tar --exclude=.git -cf - .) | tar -xf - -C "$src"
elif tb=$(vendor_tarball "$NAME" "${BOCHS_TARBALL:-}"); then
	echo "bochs: unpacking $tb"
	vendor_unpack "$tb" "$src"
elif [ -z "${BOCHS_TARBALL:-}" ] && echo "bochs: no $NAME.tar.xz; cloning $UPSTREAM at ${COMMIT%????????????????????????????????}" &&
	vendor_clone "$UPSTREAM" "$COMMIT" bochs "$src"; then
	:
else
	echo "bochs: skipped: no source; set BOCHS_SRC=DIR (a checkout of $UPSTREAM at $COMMIT, folder bochs/) or BOCHS_TARBALL=FILE ($NAME.tar.xz)"
	exit 0
fi
for p in $patches; do
	echo "bochs: applying $p"
	patch -d "$src" -p1 -s <"$p"
done
echo "bochs: building into $dir (a few minutes)"
# shellcheck disable=SC2086
(cd "$src" && ./configure $CONFIGURE >../configure.log 2>&1) ||
	{ tail -n 20 "$tmp/configure.log" >&2; echo "bochs: configure failed" >&2; exit 1; }
(cd "$src" && nice make -j2 >../make.log 2>&1) ||
	{ tail -n 30 "$tmp/make.log" >&2; echo "bochs: build failed" >&2; exit 1; }
mkdir -p "$tmp/bin"
cp "$src/bochs" "$tmp/bin/bochs"
# Only the binary is kept: the firmware comes from Debian (bochsbios, vgabios, ovmf).
rm -rf "$src"
echo "$ident" >"$tmp/SOURCE"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT INT TERM
echo "$bin"
