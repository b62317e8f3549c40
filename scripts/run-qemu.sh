#!/bin/sh
# Boot BOOTX64.EFI under QEMU + OVMF from a throw-away ESP directory.
#   run-qemu.sh [--accel tcg|kvm] [--cpu MODEL] [--config FILE] [--timeout S]
#               [--serial-log FILE] [--serial-com N] [--smp N] [--mem MIB] [--numa N]
#               [--extra "QEMU ARGS"]
#               [--explain-status] [--usb-image IMG] [--esp-file FILE]...
#               [--firmware plain|secboot|ms|snakeoil] [--vars FILE]
#               [--disk-image IMG [--disk-virtio] [--disk-ro]] BOOTX64.EFI
# --firmware picks Debian's OVMF build and its variable store (a writable
# copy): plain (default) OVMF_CODE_4M.fd + OVMF_VARS_4M.fd, no SMM;
# secboot: OVMF_CODE_4M.secboot.fd (SMM, variable services in SMM) with
# empty OVMF_VARS_4M.fd (Secure Boot off); ms: the same code with
# OVMF_VARS_4M.ms.fd (Microsoft keys, Secure Boot on); snakeoil: the same
# code with OVMF_VARS_4M.snakeoil.fd (Secure Boot on, the test key
# /usr/share/ovmf/PkKek-1-snakeoil.pem enrolled).  The three SMM builds get
# -machine q35,smm=on and the pflash "secure" property.
# --vars FILE: the variable store is FILE, created from the firmware's
# template when missing and kept after the run (the log mhv keeps across a
# reboot lives there).  --disk-image IMG boots IMG (a whole-disk image,
# e.g. make usb's) as a SATA disk and writes to it in place; with
# --disk-virtio as a virtio disk, and with --disk-ro as a read-only one
# (a write-protected stick: OVMF's file system refuses writes).
# --serial-com N (1 to 4, default 1): the serial log is COM N's output;
# the COM ports before it exist unconnected (-serial null).
# With --usb-image the machine boots that disk image as a USB stick
# (qemu-xhci + usb-storage) instead of a directory holding BOOTX64.EFI.
# Exits with QEMU's status: (code << 1) | 1 from mhv's qemu-exit action,
# 0 for a triple fault or reset, 124 on timeout.  With --explain-status it
# prints what the status means and exits 0 only for mhv's "pass".
# --numa N splits the memory (--mem, 256 MiB by default) and the CPUs evenly
# into N NUMA nodes (QEMU -numa, which gives the guest an ACPI SRAT).
set -u
accel=tcg cpu=max config="" timeout=180 log="" com=1 smp=1 extra="" translate=0 usb="" files="" firmware=plain
vars="" disk="" disk_virtio="" mem=256 numa=1
while [ $# -gt 1 ]; do
	case "$1" in
	--accel) accel=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--config) config=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--serial-log) log=$2; shift 2 ;;
	--serial-com) com=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--numa) numa=$2; shift 2 ;;
	--extra) extra=$2; shift 2 ;;
	--explain-status) translate=1; shift ;;
	--usb-image) usb=$2; shift 2 ;;
	--esp-file) files="$files $2"; shift 2 ;;	# also on the boot volume (a guest kernel)
	--vars) vars=$2; shift 2 ;;		# this variable store, kept across runs
	--disk-image) disk=$2; shift 2 ;;	# boot this disk image, written in place
	--disk-virtio) disk_virtio=${disk_virtio:-on}; shift ;;	# ... as a virtio disk
	--disk-ro) disk_virtio=ro; shift ;;	# ... read-only
	--firmware) firmware=$2; shift 2 ;;
	*) echo "run-qemu: unknown option $1" >&2; exit 2 ;;
	esac
done
efi=$1
[ -f "$efi" ] || { echo "run-qemu: $efi not found (run make first)" >&2; exit 2; }
ovmf=/usr/share/OVMF
machine=q35 secure=""
case "$firmware" in
plain) ovmf_code=$ovmf/OVMF_CODE_4M.fd ovmf_vars=$ovmf/OVMF_VARS_4M.fd ;;
secboot) ovmf_code=$ovmf/OVMF_CODE_4M.secboot.fd ovmf_vars=$ovmf/OVMF_VARS_4M.fd ;;
ms) ovmf_code=$ovmf/OVMF_CODE_4M.ms.fd ovmf_vars=$ovmf/OVMF_VARS_4M.ms.fd ;;
snakeoil) ovmf_code=$ovmf/OVMF_CODE_4M.snakeoil.fd ovmf_vars=$ovmf/OVMF_VARS_4M.snakeoil.fd ;;
*) echo "run-qemu: --firmware $firmware: expected plain, secboot, ms or snakeoil" >&2; exit 2 ;;
esac
if [ "$firmware" != plain ]; then
	# The SMM builds need SMM and a flash that only SMM may write
	# (OVMF README, "SMM support").
	machine=q35,smm=on
	secure="-global driver=cfi.pflash01,property=secure,value=on"
fi
for f in "$ovmf_code" "$ovmf_vars"; do
	[ -f "$f" ] || { echo "run-qemu: $f missing: apt-get install ovmf" >&2; exit 2; }
done

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
if [ -n "$vars" ]; then
	[ -f "$vars" ] || cp "$ovmf_vars" "$vars"
else
	vars=$work/vars.fd
	cp "$ovmf_vars" "$vars"
fi
boot_disk="-drive format=raw,file=fat:rw:$work/esp"
if [ -n "$usb" ]; then
	cp "$usb" "$work/usb.img"
	boot_disk="-device qemu-xhci -drive if=none,id=stick,format=raw,file=$work/usb.img -device usb-storage,drive=stick"
fi
[ -n "$disk" ] && boot_disk="-drive format=raw,file=$disk"
if [ -n "$disk" ] && [ -n "$disk_virtio" ]; then
	readonly=""
	[ "$disk_virtio" = ro ] && readonly=",readonly=on"
	boot_disk="-drive if=none,id=vd,format=raw$readonly,file=$disk -device virtio-blk-pci,drive=vd"
fi
case "$com" in
1|2|3|4) ;;
*) echo "run-qemu: --serial-com $com: expected 1 to 4" >&2; exit 2 ;;
esac
serial="-serial stdio"
[ -n "$log" ] && serial="-serial file:$log"
# each -serial is the next COM port
while [ "$com" -gt 1 ]; do serial="-serial null $serial" com=$((com - 1)); done

# shellcheck disable=SC2086
timeout "$timeout" qemu-system-x86_64 -machine "$machine" -accel "$accel" -cpu "$cpu" -m "${mem}M" \
	-smp "$smp" $secure $numa_args \
	-drive if=pflash,format=raw,readonly=on,file="$ovmf_code" \
	-drive if=pflash,format=raw,file="$vars" \
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
