#!/bin/sh
# SPDX-License-Identifier: MIT
# The fuzz suite's soak (docs/fuzz.md): many seeds, a bigger exit budget,
# one boot per seed, on one emulator and CPU model.
#   fuzz-soak.sh [--emu qemu|bochs|bochs-pmu] [--cpu MODEL] [--seeds N]
#                [--first SEED] [--seed-list FILE] [--exits N] [--out DIR]
# Seeds FIRST, FIRST+1, ... (FIRST defaults to one from the clock), or those
# of FILE (one a line, '#' comments: tests/emu/fuzz-seeds.txt, the seeds
# that found something, replayed first).  A seed passes when its boot ends
# with "summary: N passed, 0 failed" and mhv printed no fuzz ring (a failed
# fuzz VM or self-check); a failing seed's log stays in DIR.  Exit status:
# the number of failing seeds (at most 125).
set -u
emu=qemu cpu=max seeds=10 first="" list="" exits=20000 out=build/fuzz-soak
while [ $# -gt 0 ]; do
	case "$1" in
	--emu) emu=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--seeds) seeds=$2; shift 2 ;;
	--first) first=$2; shift 2 ;;
	--seed-list) list=$2; shift 2 ;;
	--exits) exits=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "fuzz-soak: unknown argument '$1'" >&2; exit 126 ;;
	esac
done
efi=build/esp/EFI/BOOT/BOOTX64.EFI
[ -f "$efi" ] || { echo "fuzz-soak: $efi not found (run make first)" >&2; exit 126; }
mkdir -p "$out"
[ -n "$first" ] || first=$(($(date +%s) % 1000000000 + 1))
if [ -n "$list" ]; then
	seed_list=$(sed 's/#.*//' "$list" | tr -s ' \t' '\n' | grep -E '^[0-9]+$')
else
	seed_list=$(seq "$first" $((first + seeds - 1)))
fi
bochs=""
if [ "$emu" = bochs-pmu ]; then
	bochs="--bochs $(sh scripts/build-bochs.sh --path)"
fi
failed=0 n=0
for seed in $seed_list; do
	n=$((n + 1))
	cfg=$out/fuzz-$seed.cfg log=$out/$emu-$cpu-$seed.log
	printf 'exit_action = qemu-exit\ndebugcon = on\nsuites = fuzz\nfuzz_seed = %s\nfuzz_exits = %s\n' \
		"$seed" "$exits" >"$cfg"
	start=$(date +%s)
	if [ "$emu" = qemu ]; then
		sh scripts/run-qemu.sh --cpu "$cpu" --config "$cfg" --timeout 600 \
			--serial-log "$log" "$efi" >"$log.emu.txt" 2>&1 </dev/null
	else
		# shellcheck disable=SC2086
		sh scripts/run-bochs.sh $bochs --cpu "$cpu" --cpus 1 --config "$cfg" \
			--timeout 1800 --log "$log" "$efi" >"$log.emu.txt" 2>&1 </dev/null
	fi
	st=$?
	secs=$(($(date +%s) - start))
	if grep -aq 'mhv: summary: [0-9]* passed, 0 failed' "$log" &&
		! grep -aqE '^mhv: fuzz: (vm|after)' "$log"; then
		echo "fuzz-soak: seed $seed pass (${secs}s, $(grep -ac 'fuzz: seed [0-9]*: ' "$log") VMs)"
		rm -f "$log" "$log.emu.txt" "$cfg"
	else
		failed=$((failed + 1))
		echo "fuzz-soak: seed $seed FAIL (emulator status $st, ${secs}s): log $log"
		grep -a 'mhv: FAIL\|mhv: fuzz: ' "$log" | head -n 20 | sed 's/^/    /'
	fi
done
echo "fuzz-soak: $emu $cpu: $n seeds of $exits exits, $failed failed"
[ "$failed" -gt 125 ] && failed=125
exit "$failed"
