#!/bin/sh
# Make sure the Debian packages mhv needs are installed.  As root, install
# what is missing; otherwise print the exact command and fail.
#   deps.sh [GROUP...]
# Without a group: what `make test` needs, building kvm-unit-tests (xz-utils)
# and the pinned Bochs (g++, patch) included.  Groups:
#   kut        building kvm-unit-tests (make kut)
#   bochs      building the pinned Bochs (make bochs)
#   kut-bochs  booting kvm-unit-tests on bare Bochs (make kut-test and
#              make kut-reference ENV=bochs-*): a GRUB rescue CD, made with
#              grub-mkrescue; not needed by make test
set -e
PKGS="clang lld nasm binutils gnu-efi make gcc libcmocka-dev qemu-system-x86 ovmf mtools \
bochs bochsbios vgabios python3 python3-matplotlib clang-format fdisk libclang-rt-14-dev git xz-utils g++ patch \
sbsigntool openssl linux-libc-dev universal-ctags"
for g in "$@"; do
	case "$g" in
	kut | bochs) ;; # in the default list: make test builds both
	kut-bochs) PKGS="$PKGS grub-pc-bin grub-common xorriso" ;;
	*) echo "deps: unknown group $g" >&2; exit 2 ;;
	esac
done
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
