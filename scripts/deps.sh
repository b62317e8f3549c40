#!/bin/sh
# Make sure the Debian packages mhv needs are installed.  As root, install
# what is missing; otherwise print the exact command and fail.
set -e
PKGS="clang lld nasm binutils gnu-efi make gcc libcmocka-dev qemu-system-x86 ovmf mtools \
bochs bochsbios vgabios python3 clang-format fdisk libclang-rt-14-dev git"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q $missing
else
	echo "deps: missing packages:$missing"
	echo "deps: run: sudo apt-get update && sudo apt-get install -y$missing"
	exit 1
fi
