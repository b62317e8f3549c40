#!/bin/busybox sh
# /init of the Linux guest's initramfs (scripts/linux-guest.py): what the
# guest sees, a workload under perf stat where there is a PMU, power-off.
# make test's qemu-linux case reads the "mhv-linux:" lines.
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
echo "mhv-linux: init reached at $(cut -d' ' -f1 /proc/uptime) s"
echo "mhv-linux: kernel $(uname -r)"
echo "mhv-linux: cpu $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)" \
	"x $(grep -c ^processor /proc/cpuinfo)"
echo "mhv-linux: flags $(sed -n 's/^flags[^:]*: //p' /proc/cpuinfo | head -1)"
echo "mhv-linux: clocksource" \
	"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "mhv-linux: $(perf --version 2>&1)"
echo "mhv-linux: pmu $(ls /sys/bus/event_source/devices | tr '\n' ' ')"
# the workload: a fixed count of shell loop iterations, nothing else
if [ -e /sys/bus/event_source/devices/cpu/type ]; then
	perf stat -e instructions,cycles,branches -- \
		sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done' 2>&1
	echo "mhv-linux: perf stat status $?"
else
	echo "mhv-linux: no PMU (no /sys/bus/event_source/devices/cpu): perf stat not run"
fi
echo "mhv-linux: powering off"
poweroff -f
