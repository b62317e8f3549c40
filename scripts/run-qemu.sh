#!/bin/sh
# Boot BOOTX64.EFI under QEMU + OVMF from a throw-away ESP directory.
#   run-qemu.sh [--accel tcg|kvm] [--cpu MODEL] [--config FILE] [--timeout S]
#               [--serial-log FILE] [--smp N] [--mem MIB] [--numa N] [--extra "QEMU ARGS"]
#               [--explain-status] [--usb-image IMG] [--esp-file FILE]... BOOTX64.EFI
# With --usb-image the machine boots that disk image as a USB stick
# (qemu-xhci + usb-storage) instead of a directory holding BOOTX64.EFI.
# Exits with QEMU's status: (code << 1) | 1 from mhv's qemu-exit action,
# 0 for a triple fault or reset, 124 on timeout.  With --explain-status it
# prints what the status means and exits 0 only for mhv's "pass".
# --numa N splits the memory (--mem, 256 MiB by default) and the CPUs evenly
# into N NUMA nodes (QEMU -numa, which gives the guest an ACPI SRAT).
set -u
accel=tcg cpu=max config="" timeout=180 log="" smp=1 extra="" translate=0 usb="" files="" mem=256 numa=1
while [ $# -gt 1 ]; do
	case "$1" in
	--accel) accel=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--config) config=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--serial-log) log=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--numa) numa=$2; shift 2 ;;
	--extra) extra=$2; shift 2 ;;
	--explain-status) translate=1; shift ;;
	--usb-image) usb=$2; shift 2 ;;
	--esp-file) files="$files $2"; shift 2 ;;	# also on the boot volume (a guest kernel)
	*) echo "run-qemu: unknown option $1" >&2; exit 2 ;;
	esac
done
efi=$1
[ -f "$efi" ] || { echo "run-qemu: $efi not found (run make first)" >&2; exit 2; }
ovmf_code=/usr/share/OVMF/OVMF_CODE_4M.fd
ovmf_vars=/usr/share/OVMF/OVMF_VARS_4M.fd
[ -f "$ovmf_code" ] || { echo "run-qemu: $ovmf_code missing: apt-get install ovmf" >&2; exit 2; }

if [ "$accel" = kvm ]; then
	if [ ! -w /dev/kvm ]; then
		echo "run-qemu: ACCEL=kvm needs a usable /dev/kvm (none here, or no permission)" >&2
		exit 2
	fi
	nested=$(cat /sys/module/kvm_amd/parameters/nested /sys/module/kvm_intel/parameters/nested 2>/dev/null | head -n 1)
	case "$nested" in
	1|Y|y) ;;
	*) echo "run-qemu: KVM does not offer nested virtualization here (kvm_amd/kvm_intel nested=${nested:-absent}); mhv needs SVM or VMX inside the VM" >&2
	   exit 2 ;;
	esac
	cpu=host
fi

numa_args=""
if [ "$numa" -gt 1 ]; then
	if [ $((smp % numa)) -ne 0 ] || [ $((mem % numa)) -ne 0 ]; then
		echo "run-qemu: --numa $numa needs the CPUs ($smp) and MiB ($mem) to divide evenly" >&2
		exit 2
	fi
	i=0
	while [ "$i" -lt "$numa" ]; do
		first=$((i * smp / numa)) last=$(((i + 1) * smp / numa - 1))
		numa_args="$numa_args -object memory-backend-ram,id=m$i,size=$((mem / numa))M"
		numa_args="$numa_args -numa node,nodeid=$i,cpus=$first-$last,memdev=m$i"
		i=$((i + 1))
	done
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/esp/EFI/BOOT"
cp "$efi" "$work/esp/EFI/BOOT/BOOTX64.EFI"
[ -n "$config" ] && cp "$config" "$work/esp/mhv.cfg"
for f in $files; do cp "$f" "$work/esp/"; done
cp "$ovmf_vars" "$work/vars.fd"
boot_disk="-drive format=raw,file=fat:rw:$work/esp"
if [ -n "$usb" ]; then
	cp "$usb" "$work/usb.img"
	boot_disk="-device qemu-xhci -drive if=none,id=stick,format=raw,file=$work/usb.img -device usb-storage,drive=stick"
fi
serial="-serial stdio"
[ -n "$log" ] && serial="-serial file:$log"

# shellcheck disable=SC2086
timeout "$timeout" qemu-system-x86_64 -machine q35 -accel "$accel" -cpu "$cpu" -m "${mem}M" \
	-smp "$smp" $numa_args \
	-drive if=pflash,format=raw,readonly=on,file="$ovmf_code" \
	-drive if=pflash,format=raw,file="$work/vars.fd" \
	$boot_disk \
	-nic none -display none $serial -no-reboot -monitor none \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 $extra </dev/null
st=$?
[ "$translate" = 1 ] || exit $st
case $st in
33) echo "run-qemu: mhv finished: pass (QEMU status 33)"; exit 0 ;;
35) echo "run-qemu: mhv finished: a test failed (QEMU status 35)" ;;
37) echo "run-qemu: mhv finished: config error (QEMU status 37)" ;;
39) echo "run-qemu: mhv finished: no hardware virtualization (QEMU status 39)" ;;
41) echo "run-qemu: mhv finished: fatal error (QEMU status 41)" ;;
124) echo "run-qemu: timed out after ${timeout}s" ;;
0) echo "run-qemu: the machine reset (a triple fault?) before mhv finished" ;;
*) echo "run-qemu: QEMU exited with status $st" ;;
esac
exit 1
