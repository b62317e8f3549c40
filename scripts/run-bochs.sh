#!/bin/sh
# Boot BOOTX64.EFI under Bochs + OVMF from a whole-disk FAT image, or (with
# --cdrom) a legacy-BIOS CD image such as a GRUB rescue ISO.
#   run-bochs.sh [--bochs PATH] [--cpu MODEL] [--cpus N] [--megs N] [--config FILE]
#                [--timeout S] [--log FILE] [--com1 FILE] [--errors report|ignore]
#                [--exit-port] [--until ERE] [--disk-image IMG] [--esp-file FILE]... BOOTX64.EFI
#   run-bochs.sh [options] --cdrom ISO
# --bochs: another Bochs binary than Debian's (BOCHS=PATH does the same), e.g.
# the pinned build of scripts/build-bochs.sh; it uses Debian's firmware
# (ovmf, bochsbios, vgabios) all the same.  Its SVM code reports every I/O
# intercept at error level (../shared/vendor/README.md), so with another
# binary errors are not logged unless --errors report says so.
# --com1: keep the guest's COM1 output in FILE (a bare kernel's console).
# --until ERE: end Bochs once a line of the COM1 output matches ERE, status 0
# (the bare Linux guest: OVMF installs no ACPI tables under Bochs, so Linux
# cannot power the machine off and halts).
# --exit-port: Bochs has no isa-debug-exit device; its unmapped-port device
# logs the guest's write to port 0xF4 at debug level, and this script then
# prints it on stderr as "run-bochs: exit port 0xf4: 0xVALUE" (a bare
# kvm-unit-tests kernel writes its exit code there before "Shutdown").
# mhv's console is mirrored to port 0xE9 (set debugcon = on in the config),
# which Bochs prints on stdout; that, not the COM1 file (which Bochs can
# truncate at exit), is the log to judge.  Paths in the bochsrc are
# relative: Bochs runs inside the work directory.  sound: driver=dummy,
# because Bochs' ALSA mixer thread aborts on machines without sound.
# stdbuf -oL: Bochs' stdout is a file here; line buffering keeps mhv's console
# up to the moment Bochs dies, should it.
# reset_on_triple_fault=1: with 0 Bochs panics on a guest's triple fault.  Bochs' own status is 1 after
# mhv writes "Shutdown" to port 0x8900 (exit_action = qemu-exit does).
set -u
cpu=ryzen config="" timeout=300 log="" disk="" count=1 files="" megs=256 cdrom="" com1=""
bochs=${BOCHS:-bochs} errors="" exitport=0 until=""
while [ $# -gt 0 ]; do
	case "$1" in
	--bochs) bochs=$2; shift 2 ;;
	--megs) megs=$2; shift 2 ;;
	--cdrom) cdrom=$2; shift 2 ;;
	--com1) com1=$2; shift 2 ;;
	--errors) errors=$2; shift 2 ;;
	--exit-port) exitport=1; shift ;;
	--until) until=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--cpus) count=$2; shift 2 ;;
	--config) config=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--disk-image) disk=$2; shift 2 ;;
	--esp-file) files="$files $2"; shift 2 ;;	# also on the boot volume (a guest kernel)
	--*) echo "run-bochs: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
efi=${1:-}
case "$log" in ""|/*) ;; *) log=$PWD/$log ;; esac
case "$com1" in ""|/*) ;; *) com1=$PWD/$com1 ;; esac
case "$bochs" in /*) ;; */*) bochs=$PWD/$bochs ;; esac	# Bochs runs in the work directory
# Debian's Bochs has only the RFB display; a build of ours (scripts/build-bochs.sh)
# has nogui, which starts no server thread and binds no TCP port.
display='rfb, options="timeout=0"'
[ "$bochs" = bochs ] || [ "$bochs" = /usr/bin/bochs ] || display=nogui
if [ -z "$errors" ]; then
	errors=report
	[ "$bochs" = bochs ] || [ "$bochs" = /usr/bin/bochs ] || errors=ignore
fi
command -v "$bochs" >/dev/null || { echo "run-bochs: $bochs not found" >&2; exit 2; }
if [ -n "$cdrom" ]; then
	[ -f "$cdrom" ] || { echo "run-bochs: $cdrom not found" >&2; exit 2; }
	rom=/usr/share/bochs/BIOS-bochs-latest
	[ -f "$rom" ] || { echo "run-bochs: $rom missing: apt-get install bochsbios" >&2; exit 2; }
else
	[ -f "$efi" ] || { echo "run-bochs: $efi not found (run make first)" >&2; exit 2; }
	rom=/usr/share/ovmf/OVMF.fd
	[ -f "$rom" ] || { echo "run-bochs: $rom missing: apt-get install ovmf" >&2; exit 2; }
fi
vgarom=/usr/share/bochs/VGABIOS-lgpl-latest
[ -f "$vgarom" ] || { echo "run-bochs: $vgarom missing: apt-get install vgabios" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
img=$work/esp.img
cylinders=20
if [ -n "$cdrom" ]; then
	cp "$cdrom" "$work/cd.iso"
elif [ -n "$disk" ]; then
	# a whole disk image (make usb): 16 heads x 63 sectors per track
	cp "$disk" "$img"
	cylinders=$(($(stat -c %s "$img") / (16 * 63 * 512)))
else
	# 20 cylinders (10 MiB) fit mhv and a test kernel; the boot-volume files
	# (a Linux kernel and initramfs: ~50 MiB) get room of their own.
	bytes=0
	for f in $files; do bytes=$((bytes + $(stat -c %s "$f"))); done
	cylinders=$((20 + (bytes + 16 * 63 * 512 - 1) / (16 * 63 * 512) * 105 / 100))
	dd if=/dev/zero of="$img" bs=512 count=$((cylinders * 16 * 63)) status=none
	mformat -i "$img" -h 16 -s 63 -t $cylinders ::
	mmd -i "$img" ::/EFI ::/EFI/BOOT
	mcopy -i "$img" "$efi" ::/EFI/BOOT/BOOTX64.EFI
	[ -n "$config" ] && mcopy -i "$img" "$config" ::/mhv.cfg
	for f in $files; do mcopy -i "$img" "$f" ::/; done
fi

if [ -n "$cdrom" ]; then
	boot="boot: cdrom
ata0-master: type=cdrom, path=cd.iso, status=inserted"
else
	boot="boot: disk
ata0-master: type=disk, path=esp.img, mode=flat, cylinders=$cylinders, heads=16, spt=63"
fi
debug="debug: action=ignore"
[ "$exitport" = 1 ] && debug="$debug, unmapped=report"
cat >"$work/bochsrc" <<RC
megs: $megs
romimage: file=$rom
vgaromimage: file=$vgarom
cpu: model=$cpu, count=$count, ips=50000000, reset_on_triple_fault=1
pci: enabled=1, chipset=i440fx
$boot
display_library: $display
port_e9_hack: enabled=1
magic_break: enabled=1
speaker: enabled=0
com1: enabled=1, mode=file, dev=${com1:-com1.txt}
log: bochs.log
panic: action=fatal
error: action=$errors
info: action=report
$debug
clock: sync=none, time0=946684800
sound: driver=dummy
RC
printf 'c\nquit\n' >"$work/cont.rc"
com1file=${com1:-$work/com1.txt}
: >"$com1file"	# not an earlier run's
(cd "$work" && exec timeout "$timeout" stdbuf -oL "$bochs" -q -unlock -f bochsrc -rc cont.rc \
	</dev/null >"${log:-/dev/stdout}" 2>"$work/stderr.txt") &
pid=$!
if [ -n "$until" ]; then
	# the COM1 file is written (and flushed) byte by byte as the guest sends
	while kill -0 "$pid" 2>/dev/null; do
		if grep -aEq -- "$until" "$com1file" 2>/dev/null; then
			kill "$pid" 2>/dev/null
			wait "$pid"
			echo "run-bochs: COM1 matched '$until': Bochs ended" >&2
			exit 0
		fi
		sleep 1
	done
fi
wait "$pid"
st=$?
if [ "$st" = 124 ]; then
	echo "run-bochs: timed out after ${timeout}s; last lines of bochs.log:" >&2
	tail -n 5 "$work/bochs.log" >&2
elif [ "$st" -gt 128 ] && [ "$st" -lt 160 ]; then
	# Bochs itself died of a signal: its stdout buffer (mhv's console) is
	# lost, so say where the emulator was from its own log.
	echo "run-bochs: $bochs died of signal $((st - 128)); last lines of bochs.log and its stderr:" >&2
	tail -n 12 "$work/bochs.log" >&2
	tail -n 5 "$work/stderr.txt" >&2
fi
if [ "$exitport" = 1 ]; then
	grep -a -m 1 'write to 00f4 = ' "$work/bochs.log" | sed 's/.*= /run-bochs: exit port 0xf4: 0x/' >&2
fi
exit $st
