#!/bin/busybox sh
# /init of the Linux guest's initramfs (scripts/linux-guest.py): what the
# guest sees, a workload under perf stat, power-off.  make test's Linux
# cases read the "mhv-linux:" lines; tests/linux-bare/perf_check.py compares the
# "mhv-linux: perf" lines (perf stat -x, CSV) between PMU modes.
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
echo "mhv-linux: run ${mhvrun:-?}"
echo "mhv-linux: init reached at $(cut -d' ' -f1 /proc/uptime) s"
echo "mhv-linux: kernel $(uname -r)"
echo "mhv-linux: cpu $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)" \
	"x $(grep -c ^processor /proc/cpuinfo)"
echo "mhv-linux: flags $(sed -n 's/^flags[^:]*: //p' /proc/cpuinfo | head -1)"
echo "mhv-linux: clocksource" \
	"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "mhv-linux: $(perf --version 2>&1)"
echo "mhv-linux: pmu $(ls /sys/bus/event_source/devices | tr '\n' ' ')"
[ -e /sys/bus/event_source/devices/cpu/type ] ||
	echo "mhv-linux: no PMU (no /sys/bus/event_source/devices/cpu)"
# The workload: a fixed count of shell loop iterations in the static
# busybox, at fixed addresses (no ASLR), so its user-mode counts are the
# same wherever it runs; the unfiltered ones add the kernel's share, which
# depends on interrupts and exits.  Without a PMU perf prints
# "<not supported>" for each hardware event.
echo 0 >/proc/sys/kernel/randomize_va_space
# env -i: the workload's environment is the same in every run (the
# kernel passes unknown command-line words such as mhvrun= to init's).
env -i PATH=/bin:/usr/bin perf stat -x, -o /tmp/perf.csv \
	-e instructions:u,branches:u,instructions,cycles,branches -- \
	sh -c 'i=0; while [ $i -lt 2000 ]; do i=$((i + 1)); done'
echo "mhv-linux: perf stat status $?"
sed -n 's/^\([^#].*\)/mhv-linux: perf \1/p' /tmp/perf.csv
# Several CPUs: perf stat -a counts on each of them (-A: a line per CPU);
# perf starts and reads every CPU's counters through cross-CPU function
# calls, IPIs that must reach each vCPU.
if [ "$(grep -c ^processor /proc/cpuinfo)" -gt 1 ]; then
	perf stat -a -A -x, -o /tmp/perf-a.csv -e instructions,cycles -- \
		sh -c 'i=0; while [ $i -lt 500 ]; do i=$((i + 1)); done'
	echo "mhv-linux: perf-a status $?"
	sed -n 's/^\([^#].*\)/mhv-linux: perf-a \1/p' /tmp/perf-a.csv
fi
# the kernel's "unchecked MSR access error" lines (KERN_WARNING: not on a quiet
# console), for tests/linux-bare/msr_errors.py
dmesg | sed -n 's/.*unchecked MSR access error: \(.*\) at rIP.*/mhv-linux: msr-error \1/p'
echo "mhv-linux: msr-errors $(dmesg | grep -c 'unchecked MSR access error')"
echo "mhv-linux: done at $(cut -d' ' -f1 /proc/uptime) s"
if [ -d /sys/firmware/acpi/tables ]; then
	echo "mhv-linux: powering off"
	poweroff -f
fi
# No ACPI (OVMF on Bochs finds no tables to install): Linux can only halt,
# and the harness ends the emulator on this line (run-bochs.sh --until).
# The UART sends from the tty buffer by interrupt: let it drain before the
# halt stops the CPU (Bochs' 16550 keeps the baud rate's pace).
echo "mhv-linux: no ACPI: halting"
sleep 1
poweroff -f
