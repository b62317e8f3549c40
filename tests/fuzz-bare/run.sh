#!/bin/sh
# SPDX-License-Identifier: MIT
# The fuzz guest's differential oracle (docs/fuzz.md): the same seeded
# program bare (QEMU -kernel, as kvm-unit-tests' x86/run boots its tests)
# and as mhv's fuzz_diff VM, then tests/fuzz-bare/compare.py on the two
# logs.  run.sh [SEED [CPU]]; logs in build/test-logs/fuzz-diff-*.
set -u
seed=${1:-41} cpu=${2:-max}
logs=build/test-logs
flat=build/fuzz-bare/fuzz-bare.flat
efi=build/esp/EFI/BOOT/BOOTX64.EFI
for f in "$flat" "$efi"; do
	[ -f "$f" ] || { echo "fuzz-diff: $f not found (make all fuzz-bare)" >&2; exit 2; }
done
mkdir -p "$logs"
bare=$logs/fuzz-diff-$cpu-$seed.bare.log mhv=$logs/fuzz-diff-$cpu-$seed.mhv.log
cfg=$logs/fuzz-diff-$seed.cfg
timeout 120 qemu-system-x86_64 --no-reboot -nodefaults -display none -machine q35,accel=tcg \
	-cpu "$cpu" -m 128 -serial "file:$bare" -device isa-debug-exit,iobase=0xf4,iosize=0x4 -device pc-testdev \
	-kernel "$flat" -append "seed=$seed" </dev/null >"$bare.qemu.txt" 2>&1
st=$?
if [ "$st" != 1 ]; then
	echo "fuzz-diff: the bare run ended with status $st, not 1 (exit code 0); log $bare" >&2
	exit 1
fi
printf 'exit_action = qemu-exit\ndebugcon = on\nsuites = fuzz\ntests = fuzz_diff\nfuzz_seed = %s\npmu = off\n' \
	"$seed" >"$cfg"
sh scripts/run-qemu.sh --cpu "$cpu" --config "$cfg" --timeout 120 --serial-log "$mhv" "$efi" \
	>"$mhv.qemu.txt" 2>&1 </dev/null
st=$?
if [ "$st" != 33 ]; then
	echo "fuzz-diff: the run under mhv ended with status $st, not 33 (pass); log $mhv" >&2
	exit 1
fi
python3 tests/fuzz-bare/compare.py "$bare" "$mhv"
