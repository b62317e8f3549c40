#!/bin/sh
# The log kept across reboots in a small variable store (docs/hardware.md,
# issue 37), under QEMU: OVMF's store filled (tests/emu/fill-vars.py) to a
# few KiB above what mhv leaves to the firmware, and four boots of one
# stick and store: three with the stick read-only, so that the first run's
# log waits in the variables and the next runs must store nothing, then
# one writable, whose loader writes the log to the stick and deletes it.
# A run that stores says how much of the store it left free: never below
# the reserve its header names; runs 2 and 3 must store nothing; run 4
# stores, or says the store is down to the reserve (OVMF's own writes at
# each boot take a few KiB that it reclaims only when the store is full).
#   keep-log-small.sh OUTDIR BOOTX64.EFI
# Prints "PASS ..." or "FAIL ...: why" on its last line; exit status 0 or 1.
set -u
out=$1 efi=$2
cd "$(dirname "$0")/../.."
rm -rf "$out" && mkdir -p "$out"
fail() { printf '%s\n' "FAIL keep-log-small: $*"; exit 1; }

sh scripts/mkusb.sh "$out/stick.img" "$efi" tests/emu/keep-log-small.cfg >/dev/null || fail "mkusb.sh"
python3 tests/emu/fill-vars.py /usr/share/OVMF/OVMF_VARS_4M.fd "$out/vars.fd" 86000 >/dev/null ||
	fail "fill-vars.py"
# the free bytes after each store, from its "kept" line
frees=""
for run in 1 2 3 4; do
	ro=--disk-ro
	[ "$run" = 4 ] && ro=--disk-virtio
	# shellcheck disable=SC2086
	sh scripts/run-qemu.sh --vars "$out/vars.fd" --disk-image "$out/stick.img" --disk-virtio $ro \
		--timeout 100 --serial-log "$out/boot$run.log" "$efi" >"$out/boot$run.qemu.txt" 2>&1 </dev/null
	st=$?
	[ "$st" = 33 ] || fail "boot $run ended with QEMU status $st, not 33 (log $out/boot$run.log)"
	reserve=$(sed -n 's/^mhv: log: variable store .* leaves \([0-9]*\) free.*/\1/p' "$out/boot$run.log")
	[ -n "$reserve" ] || fail "boot $run: no 'mhv: log: variable store' line ($out/boot$run.log)"
	free=$(sed -n 's/^mhv: log: [0-9]* bytes kept in .* the store \([0-9]*\) of [0-9]* bytes free after them.*/\1/p' \
		"$out/boot$run.log")
	case $run in
	1) [ -n "$free" ] || fail "run 1 did not keep its log ($out/boot1.log)" ;;
	2|3) [ -z "$free" ] || fail "run $run stored a log with one waiting" ;;
	4)  # OVMF's own writes at each boot take a few KiB: the reserve may be reached
	    [ -n "$free" ] || grep -aq "log: not kept across the reboot: the variable store has [0-9]* of [0-9]* bytes free, and mhv leaves $reserve of them" \
		"$out/boot4.log" || fail "run 4 neither kept its log nor said the store was at its reserve" ;;
	esac
	[ -z "$free" ] || [ "$free" -ge "$reserve" ] ||
		fail "run $run left $free bytes free, below the reserve $reserve"
	frees="$frees ${free:--}"
done
grep -aq '^mhv: log: [0-9]* bytes kept in .*cut to fit' "$out/boot1.log" ||
	fail "run 1 did not keep its log cut to its share ($out/boot1.log)"
for run in 2 3; do
	grep -aq 'cannot be written to .mhv-results.*waits in UEFI variables' "$out/boot$run.log" ||
		fail "boot $run: the loader did not keep the log for a writable stick"
	grep -aq "log: not kept across the reboot: the previous run's log still waits" \
		"$out/boot$run.log" || fail "run $run stored a log with one waiting"
done
name=$(sed -n 's/.*previous run.s log ([0-9]* bytes.*written to .mhv-results.\([0-9-]*\.log\) on the boot volume.*/\1/p' \
	"$out/boot4.log" | head -n 1)
[ -n "$name" ] || fail "boot 4 did not write the kept log to \\mhv-results\\ ($out/boot4.log)"
mcopy -n -i "$out/stick.img@@1M" "::/mhv-results/$name" "$out/kept.log" ||
	fail "mtools cannot read \\mhv-results\\$name back from the stick"
python3 - "$out/kept.log" "$out/boot1.log" <<'PY' || exit 1
import sys
kept, serial = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
mark = kept.find(b"\r\n[mhv: ")
end = kept.find(b"]\r\n", mark) + 3
if mark < 0 or end < 3:
    print("FAIL keep-log-small: the file has no marker line for the part left out")
elif serial.find(kept[:mark]) < 0 or serial.find(kept[end:]) < serial.find(kept[:mark]) + mark:
    print("FAIL keep-log-small: the file's head and end are not boot 1's serial log")
else:
    sys.exit(0)
sys.exit(1)
PY
printf '%s\n' "PASS keep-log-small: bytes free after runs 1-4' stores:$frees (reserve $reserve); run 1's log waited through two read-only boots, boot 4 wrote /mhv-results/$name"
