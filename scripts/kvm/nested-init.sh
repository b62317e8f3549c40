#!/bin/busybox sh
# /init of the nested initramfs (scripts/kvm/nested.py): Debian's KVM with
# nested virtualization is L0, QEMU -accel kvm boots OVMF and mhv (L1) by
# `make run ACCEL=kvm`'s own script, mhv runs its suites and a
# kvm-unit-tests binary as L2.  QEMU's serial port goes to a file printed
# on this console at the end, so mhv's lines reach make test's
# bochs-nested-* cases through Bochs' COM1.
export PATH=/bin:/usr/bin
. /bin/init-lib.sh
init_start
kvm_load
echo "mhv-linux: nested $(cat /sys/module/kvm_amd/parameters/nested \
	/sys/module/kvm_intel/parameters/nested 2>/dev/null)"
# every ESP file but the loader and its config: the L2 guests mhv.cfg names
files=""
for f in /mhv/*; do
	case "${f##*/}" in BOOTX64.EFI | mhv.cfg) ;; *) files="$files --esp-file $f" ;; esac
done
cd /tmp || exit 1
# QEMU's serial port into a file, printed once QEMU ends: the console's
# pace (a 115200-baud UART, interrupt-driven) never holds back QEMU's UART,
# which mhv polls through an exit to user space per poll
# a heartbeat through printk, which polls the UART: how far mhv got
(while sleep 20; do
	echo "<3>mhv-nested: $(wc -c </tmp/serial.log 2>/dev/null) bytes: $(tail -n 1 /tmp/serial.log 2>/dev/null | cut -c 1-100)" >/dev/kmsg
done) &
beat=$!
# shellcheck disable=SC2086
sh /bin/run-qemu.sh --accel kvm --config /mhv/mhv.cfg $files --serial-log /tmp/serial.log \
	--timeout "${mhvnestedtimeout:-1500}" /mhv/BOOTX64.EFI
status=$?
kill "$beat"
cat /tmp/serial.log
echo
echo "mhv-linux: qemu status $status at $(cut -d' ' -f1 /proc/uptime) s"
init_end
