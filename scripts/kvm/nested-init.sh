#!/bin/busybox sh
# /init of the nested initramfs (scripts/kvm/nested.py): Debian's KVM with
# nested virtualization is L0, QEMU -accel kvm boots OVMF and mhv (L1) by
# `make run ACCEL=kvm`'s own script, mhv runs its suites and a
# kvm-unit-tests binary as L2.  QEMU's serial port is this console, so
# mhv's lines reach make test's bochs-nested-* cases through Bochs' COM1.
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
echo "mhv-linux: run ${mhvrun:-?}"
echo "mhv-linux: init reached at $(cut -d' ' -f1 /proc/uptime) s"
. /bin/init-lib.sh
kvm_load
echo "mhv-linux: nested $(cat /sys/module/kvm_amd/parameters/nested \
	/sys/module/kvm_intel/parameters/nested 2>/dev/null)"
# every ESP file but the loader and its config: the L2 guests mhv.cfg names
files=""
for f in /mhv/*; do
	case "${f##*/}" in BOOTX64.EFI | mhv.cfg) ;; *) files="$files --esp-file $f" ;; esac
done
cd /tmp || exit 1
# QEMU's serial port into a file, copied to the console once QEMU ends:
# while KVM runs mhv, this console's tty takes a few KiB and then drains
# no further (-serial stdio: QEMU's UART stayed busy and mhv, polling its
# transmitter, gave up on the port after serial.c's DRAIN_POLLS; a tail -f
# of the file: the same stall, in tail)
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
