#!/bin/sh
# The run's log kept across a reboot (docs/hardware.md),
# end to end under QEMU: one stick image and one variable store for two
# boots.  Boot 1 stores its log in UEFI variables; boot 2's loader writes
# them to \mhv-results\ on the stick; the file, read back with mtools, must
# be boot 1's serial log (mhv's part of it, to its "finished" line), and
# scripts/mhv-report must read it as it reads a serial log.
#   keep-log.sh FIRMWARE OUTDIR BOOTX64.EFI     FIRMWARE: run-qemu.sh --firmware
# Prints "PASS ..." or "FAIL ...: why" on its last line; exit status 0 or 1.
set -u
firmware=$1 out=$2 efi=$3
cd "$(dirname "$0")/../.."
rm -rf "$out" && mkdir -p "$out"
fail() { printf '%s\n' "FAIL keep-log-$firmware: $*"; exit 1; }

sh scripts/mkusb.sh "$out/stick.img" "$efi" tests/emu/keep-log.cfg >/dev/null || fail "mkusb.sh"
for run in 1 2; do
	sh scripts/run-qemu.sh --firmware "$firmware" --vars "$out/vars.fd" \
		--disk-image "$out/stick.img" --timeout 150 --serial-log "$out/boot$run.log" \
		"$efi" >"$out/boot$run.qemu.txt" 2>&1 </dev/null
	st=$?
	[ "$st" = 33 ] || fail "boot $run ended with QEMU status $st, not 33 (log $out/boot$run.log)"
done
kept=$(sed -n 's/.*mhv: log: \([0-9]*\) bytes kept in [0-9]* UEFI variable.*/\1/p' "$out/boot1.log")
[ -n "$kept" ] || fail "boot 1 did not say it kept its log ($out/boot1.log)"
name=$(sed -n 's/.*^*mhv: previous run.s log ([0-9]* bytes.*written to .mhv-results.\([0-9-]*\.log\) on the boot volume.*/\1/p' \
	"$out/boot2.log" | head -n 1)
[ -n "$name" ] || fail "boot 2 did not write the kept log to \\mhv-results\\ ($out/boot2.log)"
mcopy -n -i "$out/stick.img@@1M" "::/mhv-results/$name" "$out/kept.log" ||
	fail "mtools cannot read \\mhv-results\\$name back from the stick"
python3 - "$out/kept.log" "$out/boot1.log" "$kept" <<'PY' || exit 1
import sys
kept, serial, n = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read(), int(sys.argv[3])
why = None
if len(kept) != n:
    why = f"the file has {len(kept)} bytes, boot 1 said it kept {n}"
elif serial.find(kept) < 0:
    why = "the file is not a part of boot 1's serial log"
elif not kept.rstrip().splitlines()[-1].startswith(b"mhv: finished: status pass"):
    why = "the file does not end with boot 1's 'mhv: finished:' line"
if why:
    print(f"FAIL keep-log: {why}")
    sys.exit(1)
PY
python3 scripts/mhv-report "$out/kept.log" >"$out/report.md" 2>&1 ||
	fail "mhv-report cannot read the kept file: $(head -n 1 "$out/report.md")"
grep -q 'null' "$out/report.md" || fail "mhv-report's table of the kept file has no null row"
printf '%s\n' "PASS keep-log-$firmware: boot 1 kept $kept bytes, boot 2 wrote /mhv-results/$name, equal to boot 1's serial log; mhv-report reads it"
