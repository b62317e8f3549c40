#!/bin/busybox sh
# /init of the Linux guest's initramfs (scripts/linux-guest.py): what the
# guest sees, the perf_event fuzzer (mhvperffuzz=), a workload under perf
# stat, the kernel's complaints, power-off.  make test's Linux
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
# How the kernel found the TSC's rate (PIT, PM timer, tsc_early_khz):
# quiet keeps these info lines off the console, not out of the log.
dmesg | sed -n 's/^\[[ 0-9.]*\] \(tsc: .*\)/mhv-linux: dmesg \1/p'
echo "mhv-linux: clocksource" \
	"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "mhv-linux: $(perf --version 2>&1)"
echo "mhv-linux: pmu $(ls /sys/bus/event_source/devices | tr '\n' ' ')"
[ -e /sys/bus/event_source/devices/cpu/type ] ||
	echo "mhv-linux: no PMU (no /sys/bus/event_source/devices/cpu)"
# mhvperffuzz=SECONDS (tests/emu/linux-bochs-*.cfg): the perf_event fuzzer
# (tests/perf-fuzz, docs/linux-guest.md) for that long, seeded by
# mhvperffuzzseed= (else it draws a seed and prints it), before perf stat:
# the counts of the workload below must still agree with the bare run's.
# The kernel lowers perf_event_max_sample_rate when a PMI takes long
# (guest time, which under mhv includes the exits): put back after it.
if [ -n "${mhvperffuzz:-}" ] && [ -x /bin/perf-fuzz ]; then
	rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	echo "mhv-linux: perf-fuzz start at $(cut -d' ' -f1 /proc/uptime) s"
	{
		perf-fuzz "$mhvperffuzz" ${mhvperffuzzseed:+"$mhvperffuzzseed"} 2>&1
		echo "perf-fuzz: status $?"
	} | sed 's/^perf-fuzz: /mhv-linux: perf-fuzz /'
	echo "mhv-linux: perf-fuzz max sample rate $rate," \
		"after $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
	echo "$rate" >/proc/sys/kernel/perf_event_max_sample_rate
	echo "mhv-linux: perf-fuzz done at $(cut -d' ' -f1 /proc/uptime) s"
fi
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
# mhvperftest=1 on the command line (tests/emu/linux-bochs-*.cfg): Linux's
# own tests of the PMU, breakpoints, watchpoints, sampling and the TSC,
# judged against the bare run's verdicts (tests/linux-bare/perf_check.py,
# docs/linux-guest.md), and perf record with a fixed period on the
# workload above: its sample count against the bare run's.
if [ "${mhvperftest:-0}" = 1 ] && [ -e /sys/bus/event_source/devices/cpu/type ]; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	echo "mhv-linux: perf-test start at $(cut -d' ' -f1 /proc/uptime) s"
	# each verdict line "N: name : Ok" (or N.M: for a subtest) prefixed
	perf test 2 4 8 20 21 22 23 24 25 28 35 50 51 71 73 77 2>&1 |
		sed -n 's/^ *\([0-9][0-9.:]*\): \(.*\)$/mhv-linux: perf-test \1: \2/p'
	for ev in cycles:u instructions:u; do
		env -i PATH=/bin:/usr/bin perf record -c 100000 -e $ev -o /tmp/rec.data -- \
			sh -c 'i=0; while [ $i -lt 2000 ]; do i=$((i + 1)); done' 2>/tmp/rec.err
		echo "mhv-linux: perf-record $ev period 100000 samples" \
			"$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' /tmp/rec.err | head -n 1)"
	done
	# the kernel's complaints about PMU MSRs (printed below quiet's level)
	dmesg | grep 'unchecked MSR access error' | sed 's/^/mhv-linux: perf-test dmesg: /'
	echo "mhv-linux: perf-test done at $(cut -d' ' -f1 /proc/uptime) s"
fi
# the kernel's "unchecked MSR access error" lines (KERN_WARNING: not on a quiet
# console), for tests/linux-bare/msr_errors.py
dmesg | sed -n 's/.*unchecked MSR access error: \(.*\) at rIP.*/mhv-linux: msr-error \1/p'
echo "mhv-linux: msr-errors $(dmesg | grep -c 'unchecked MSR access error')"
# the kernel's complaints (WARNING, BUG, oops, unknown NMI, lockups, stalls,
# MSR errors), each distinct line once, for tests/linux-bare/kernel_log.py
# to compare with the bare run's; of the timing lines (a PMI handler that
# took long, in guest time) only their counts
dmesg | sed 's/^\[[ 0-9.]*\] //' >/tmp/dmesg
grep -E 'WARNING:|BUG:|Oops|general protection|unchecked MSR access|Uhhuh|Dazed and confused|soft lockup|hard LOCKUP|rcu.*(stall|self-detected)|Kernel panic|invalid opcode|double fault|unable to handle' \
	/tmp/dmesg >/tmp/klog.all
awk '!seen[$0]++' /tmp/klog.all | head -n 20 >/tmp/klog
sed 's/^/mhv-linux: klog /' /tmp/klog
echo "mhv-linux: klog-lines $(wc -l </tmp/klog) of $(wc -l </tmp/klog.all)"
echo "mhv-linux: klog-timing perf interrupt took too long" \
	"$(grep -c 'perf: interrupt took too long' /tmp/dmesg)," \
	"NMI handler took too long $(grep -c 'took too long to run' /tmp/dmesg)"
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
