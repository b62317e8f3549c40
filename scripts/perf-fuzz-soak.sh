#!/bin/sh
# The perf_event fuzzer's soak (make perf-fuzz-soak; docs/linux-guest.md):
# longer runs of tests/perf-fuzz in the Linux guest on the pinned Bochs,
# each model bare first (the reference) and then under mhv with one guest
# per PMU mode, all with the same seed; the mhv runs' kernel complaints
# must be the bare run's (tests/linux-bare/kernel_log.py) and their perf
# stat counts after the fuzz must agree with it (perf_check.py).
#   perf-fuzz-soak.sh SECONDS SEED MODELS OUT
# SECONDS of guest time per run; SEED a number, or "random" (drawn here
# and printed); MODELS e.g. "zen5 skylake_pmu"; OUT a folder for the
# configs and logs.  Runs one Bochs at a time, niced.  Status 1 when a
# check fails, 2 on bad arguments.
set -u
secs=${1:-}
seed=${2:-}
models=${3:-}
out=${4:-}
if [ -z "$out" ] || [ -z "$models" ]; then
	echo "usage: perf-fuzz-soak.sh SECONDS SEED|random MODELS OUT" >&2
	exit 2
fi
case "$secs" in '' | *[!0-9]*)
	echo "perf-fuzz-soak: seconds '$secs': want a whole number" >&2
	exit 2
esac
[ "$seed" != random ] || seed=0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
case "$seed" in '' | 0x | 0x*[!0-9a-fA-F]* | [!0]*[!0-9]*)
	echo "perf-fuzz-soak: seed '$seed': want a number (decimal or 0x hex) or random" >&2
	exit 2
esac
pb=$(sh scripts/build-bochs.sh --path)
for f in "$pb" build/esp/EFI/BOOT/BOOTX64.EFI build/linux-bare/linuxload.efi \
	build/linux-guest/vmlinuz build/linux-guest/initrd.cpio; do
	[ -e "$f" ] || { echo "perf-fuzz-soak: $f missing (make all linuxload bochs linux-guest)" >&2; exit 2; }
done
mkdir -p "$out"
# each guest's time: its boot (about a minute of guest time on Bochs),
# the fuzz, perf stat; mhv's limit in host seconds, Bochs' for all of it
limit=$((secs * 3 + 300))
[ "$limit" -le 3600 ] || limit=3600
words="console=ttyS0 nokaslr tsc_early_khz=49999 panic=-1 quiet nmi_watchdog=0"
fuzz="mhvperffuzz=$secs mhvperffuzzseed=$seed"
echo "perf-fuzz-soak: seed $seed, $secs s per run, models $models"
fail=0
for model in $models; do
	case "$model" in
	zen5) modes="sw sw-lazy hw" ;;
	*) modes="sw sw-lazy" ;;
	esac
	printf 'cmdline = "%s mhvrun=bare %s"\n' "$words" "$fuzz" >"$out/bare.cfg"
	{
		printf 'exit_action = qemu-exit\ndebugcon = on\nsuites = none\ntime_limit = %d\n' "$limit"
		for m in $modes; do
			printf 'guest = \\vmlinuz\ninitrd = \\initrd.cpio\nmem = 256\npmu = %s\n' "$m"
			printf 'cmdline = "%s mhvrun=%s %s"\n' "$words" "$m" "$fuzz"
		done
	} >"$out/$model.cfg"
	n=$(echo $modes | wc -w)
	echo "perf-fuzz-soak: $model bare"
	nice -n 10 sh scripts/run-bochs.sh --bochs "$pb" --cpu "$model" --megs 1024 \
		--config "$out/bare.cfg" --timeout "$limit" --com1 "$out/$model-bare.log" \
		--until 'mhv-linux: no ACPI' --log "$out/$model-bare.e9" \
		--esp-file build/linux-guest/vmlinuz --esp-file build/linux-guest/initrd.cpio \
		build/linux-bare/linuxload.efi >"$out/$model-bare.bochs.txt" 2>&1 </dev/null
	grep -a 'mhv-linux: klog ' "$out/$model-bare.log" >"$out/$model-bare.klog"
	echo "perf-fuzz-soak: $model under mhv ($modes)"
	nice -n 10 sh scripts/run-bochs.sh --bochs "$pb" --cpu "$model" --megs 1024 \
		--config "$out/$model.cfg" --timeout $((limit * n + 300)) --log "$out/$model.log" \
		--esp-file build/linux-guest/vmlinuz --esp-file build/linux-guest/initrd.cpio \
		build/esp/EFI/BOOT/BOOTX64.EFI >"$out/$model.bochs.txt" 2>&1 </dev/null
	for log in "$out/$model-bare.log" "$out/$model.log"; do
		grep -a 'mhv-linux: perf-fuzz \(seed\|total\|done\|status\)' "$log" | tr -d '\r'
	done
	python3 tests/linux-bare/kernel_log.py --reference "$out/$model-bare.klog" \
		"$out/$model-bare.log" || fail=1
	python3 tests/linux-bare/kernel_log.py --reference "$out/$model-bare.klog" \
		"$out/$model.log" || fail=1
	python3 tests/linux-bare/perf_check.py --reference "$out/$model-bare.log" \
		"$out/$model.log" || fail=1
	if grep -aq 'mhv: FAIL\|fatal' "$out/$model.log"; then
		grep -a 'mhv: FAIL\|fatal' "$out/$model.log" | head -n 3
		fail=1
	fi
	grep -aq "summary: $n passed, 0 failed" "$out/$model.log" ||
		{ echo "perf-fuzz-soak: $model: no \"summary: $n passed, 0 failed\" (log $out/$model.log)"; fail=1; }
done
[ $fail = 0 ] && echo "perf-fuzz-soak: PASS (seed $seed)" ||
	echo "perf-fuzz-soak: FAIL (seed $seed; make perf-fuzz-soak SEED=$seed replays it)"
exit $fail
