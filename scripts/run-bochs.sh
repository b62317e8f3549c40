#!/bin/sh
# Boot BOOTX64.EFI under Bochs + OVMF from a whole-disk FAT image.
#   run-bochs.sh [--cpu MODEL] [--cpus N] [--config FILE] [--timeout S]
#                [--log FILE] [--disk-image IMG] [--esp-file FILE]... BOOTX64.EFI
# mhv's console is mirrored to port 0xE9 (set debugcon = on in the config),
# which Bochs prints on stdout; that, not the COM1 file (which Bochs can
# truncate at exit), is the log to judge.  Paths in the bochsrc are
# relative: Bochs runs inside the work directory.  sound: driver=dummy,
# because Bochs' ALSA mixer thread aborts on machines without sound.
# reset_on_triple_fault=1: with 0 Bochs panics on a guest's triple fault.  Bochs' own status is 1 after
# mhv writes "Shutdown" to port 0x8900 (exit_action = qemu-exit does).
set -u
cpu=ryzen config="" timeout=300 log="" disk="" count=1 files=""
while [ $# -gt 1 ]; do
	case "$1" in
	--cpu) cpu=$2; shift 2 ;;
	--cpus) count=$2; shift 2 ;;
	--config) config=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--disk-image) disk=$2; shift 2 ;;
	--esp-file) files="$files $2"; shift 2 ;;	# also on the boot volume (a guest kernel)
	*) echo "run-bochs: unknown option $1" >&2; exit 2 ;;
	esac
done
efi=$1
case "$log" in ""|/*) ;; *) log=$PWD/$log ;; esac
[ -f "$efi" ] || { echo "run-bochs: $efi not found (run make first)" >&2; exit 2; }
ovmf=/usr/share/ovmf/OVMF.fd
[ -f "$ovmf" ] || { echo "run-bochs: $ovmf missing: apt-get install ovmf" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
img=$work/esp.img
cylinders=20
if [ -n "$disk" ]; then
	# a whole disk image (make usb): 16 heads x 63 sectors per track
	cp "$disk" "$img"
	cylinders=$(($(stat -c %s "$img") / (16 * 63 * 512)))
else
	dd if=/dev/zero of="$img" bs=512 count=$((20 * 16 * 63)) status=none
	mformat -i "$img" -h 16 -s 63 -t 20 ::
	mmd -i "$img" ::/EFI ::/EFI/BOOT
	mcopy -i "$img" "$efi" ::/EFI/BOOT/BOOTX64.EFI
	[ -n "$config" ] && mcopy -i "$img" "$config" ::/mhv.cfg
	for f in $files; do mcopy -i "$img" "$f" ::/; done
fi

cat >"$work/bochsrc" <<RC
megs: 256
romimage: file=$ovmf
vgaromimage: file=/usr/share/bochs/VGABIOS-lgpl-latest
cpu: model=$cpu, count=$count, ips=50000000, reset_on_triple_fault=1
pci: enabled=1, chipset=i440fx
boot: disk
ata0-master: type=disk, path=esp.img, mode=flat, cylinders=$cylinders, heads=16, spt=63
display_library: rfb, options="timeout=0"
port_e9_hack: enabled=1
magic_break: enabled=1
speaker: enabled=0
com1: enabled=1, mode=file, dev=com1.txt
log: bochs.log
panic: action=fatal
error: action=report
info: action=report
debug: action=ignore
clock: sync=none, time0=946684800
sound: driver=dummy
RC
printf 'c\nquit\n' >"$work/cont.rc"
if [ -n "$log" ]; then
	(cd "$work" && timeout "$timeout" bochs -q -unlock -f bochsrc -rc cont.rc </dev/null >"$log" 2>"$work/stderr.txt")
else
	(cd "$work" && timeout "$timeout" bochs -q -unlock -f bochsrc -rc cont.rc </dev/null 2>"$work/stderr.txt")
fi
st=$?
if [ "$st" = 124 ]; then
	echo "run-bochs: timed out after ${timeout}s; last lines of bochs.log:" >&2
	tail -n 5 "$work/bochs.log" >&2
fi
exit $st
