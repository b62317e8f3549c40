#!/bin/sh
# make test: host unit tests, then emulator boots of the real BOOTX64.EFI,
# then the exit-path instruction budget.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
EFI=build/esp/EFI/BOOT/BOOTX64.EFI
LOGS=build/test-logs
mkdir -p "$LOGS"
passed=0 failed=0
failures=""

ok() { passed=$((passed + 1)); echo "  PASS  $1"; }
bad() { failed=$((failed + 1)); failures="$failures
  $1: $2"; echo "  FAIL  $1: $2"; }

echo "== style =="
if command -v clang-format >/dev/null 2>&1; then
	if out=$(clang-format --dry-run --Werror $(git ls-files '*.c' '*.h' 2>/dev/null) 2>&1); then
		ok "style/clang-format"
	else
		bad "style/clang-format" "$(printf '%s\n' "$out" | grep -m 2 'error:' | tr '\n' ' ')(run: make format)"
	fi
fi
if out=$(sh scripts/check-defines.sh 2>&1); then
	ok "style/one-definition"
else
	printf '%s\n' "$out" | sed 's/^/        /'
	bad "style/one-definition" "$(printf '%s\n' "$out" | wc -l | tr -d ' ') names defined in more than one file under hv/, first: $(printf '%s\n' "$out" | head -n 1) (x86 facts belong in hv/arch/)"
fi
# a function name is defined in one file under hv/, a header's guard is its own
if ! out=$(python3 -m unittest discover -s tests/names 2>&1); then
	bad "style/names" "tests/names: $(printf '%s\n' "$out" | tail -n 1)"
elif out=$(python3 scripts/check-names.py 2>&1); then
	ok "style/names"
else
	printf '%s\n' "$out" | sed 's/^/        /'
	bad "style/names" "$(printf '%s\n' "$out" | wc -l | tr -d ' ') findings, first: $(printf '%s\n' "$out" | head -n 1)"
fi
# every guest-indexed array's access goes through array_index_nospec (Spectre v1)
if ! out=$(python3 -m unittest discover -s tests/nospec 2>&1); then
	bad "style/nospec" "tests/nospec: $(printf '%s\n' "$out" | tail -n 1)"
elif out=$(python3 scripts/check-nospec.py 2>&1); then
	ok "style/nospec"
else
	printf '%s\n' "$out" | sed 's/^/        /'
	bad "style/nospec" "$(printf '%s\n' "$out" | tail -n 1): first $(printf '%s\n' "$out" | head -n 1)"
fi
# dependencies point down (docs/architecture.md): the checker's own tests, then hv/ and boot/
if ! out=$(python3 -m unittest discover -s tests/layers 2>&1); then
	printf '%s\n' "$out" >"$LOGS/layers.txt"
	bad "style/layers" "tests/layers: $(printf '%s\n' "$out" | tail -n 1); log $LOGS/layers.txt"
elif out=$(python3 scripts/check-layers.py 2>&1); then
	printf '%s\n' "$out" >"$LOGS/layers.txt"
	ok "style/layers"
	printf '%s\n' "$out" | sed -n "s|^info: folders|        folders|p"
else
	printf '%s\n' "$out" >"$LOGS/layers.txt"
	bad "style/layers" "$(printf '%s\n' "$out" | grep -v '^info:' | head -n 3 | tr '\n' ' ')(all: $LOGS/layers.txt)"
fi

# the tables in docs/ generated from their sources (make docs-tables):
# docs/kvm-unit-tests.md's from tests/kut/expect.txt
if out=$(python3 tests/kut/expect.py table --check 2>&1); then
	ok "style/docs-tables"
else
	bad "style/docs-tables" "$out"
fi
# every docs/ page linked from the README, every link to a page there whole
if out=$(python3 scripts/check-docs.py 2>&1); then
	ok "style/docs-links"
else
	printf '%s\n' "$out" | sed 's/^/        /'
	bad "style/docs-links" "$(printf '%s\n' "$out" | wc -l | tr -d ' ') broken, first: $(printf '%s\n' "$out" | head -n 1)"
fi
# every backticked path or name in the README and docs/ that claims something
# of this tree exists in it (rules: scripts/check-doc-names.py's header)
if ! out=$(python3 -m unittest discover -s tests/docs 2>&1); then
	bad "style/docs-names" "tests/docs: $(printf '%s\n' "$out" | tail -n 1)"
elif out=$(python3 scripts/check-doc-names.py 2>&1); then
	ok "style/docs-names"
else
	printf '%s\n' "$out" | sed 's/^/        /'
	bad "style/docs-names" "$(printf '%s\n' "$out" | wc -l | tr -d ' ') names the tree does not have, first: $(printf '%s\n' "$out" | head -n 1)"
fi

echo "== host unit tests (cmocka, ASan + UBSan) =="
for t in build/unit/test_*; do
	[ -x "$t" ] || continue
	name=unit/${t##*/test_}
	if out=$("$t" 2>&1); then
		n=$(printf '%s\n' "$out" | sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
		ok "$name (${n:-?} cases)"
	else
		printf '%s\n' "$out" >"$LOGS/${t##*/}.log"
		bad "$name" "$(printf '%s\n' "$out" | grep -E 'FAILED|ERROR|runtime error' | head -n 3 | tr '\n' ' ')"
	fi
done

echo "== the KVM side's error paths (scripts/kvm/mhv-kvm, no KVM needed) =="
# each a single clear line and its status: 77 (kvm-unit-tests' skip) without
# /dev/kvm, 2 for an image that is not an mhv guest and for bad usage
kvm_side_case() { # name, want status, want line (ERE), args...
	name=$1 want=$2 line=$3
	shift 3
	out=$(timeout 20 build/kvm/mhv-kvm "$@" 2>&1)
	st=$?
	if [ "$st" = "$want" ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		printf '%s\n' "$out" | grep -Eq -- "$line"; then
		ok "kvm-side/$name"
	else
		bad "kvm-side/$name" "status $st (want $want): $(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"
	fi
}
if [ -x build/kvm/mhv-kvm ]; then
	kvm_side_case no-dev 77 '^mhv-kvm: vmexit: skipped: no /nonexistent/kvm: KVM is not loaded' \
		--dev /nonexistent/kvm
	printf 'not a guest' >"$LOGS/vmexit.bin"
	kvm_side_case bad-image 2 "^mhv-kvm: $LOGS/vmexit.bin is not an mhv guest image" \
		--guests "$LOGS"
	kvm_side_case bad-option 2 "^mhv-kvm: --batches wants a number from 1 to 4096, not '0'" \
		--batches 0
else
	bad "kvm-side" "no build/kvm/mhv-kvm (make kvm-side)"
fi

echo "== serial-log report tool, kvm-unit-tests harness, exit gate, Linux perf checker (python unittest) =="
if out=$(python3 -m unittest discover -s tests/report 2>&1); then
	ok "report/unittest ($(printf '%s\n' "$out" | sed -n 's/^Ran \([0-9]*\) tests.*/\1/p') cases)"
else
	printf '%s\n' "$out" >"$LOGS/report-unittest.log"
	bad "report/unittest" "$(printf '%s\n' "$out" | tail -n 1); log $LOGS/report-unittest.log"
fi

if out=$(python3 -m unittest discover -s tests/kut 2>&1); then
	ok "kut/unittest ($(printf '%s\n' "$out" | sed -n 's/^Ran \([0-9]*\) tests.*/\1/p') cases)"
else
	printf '%s\n' "$out" >"$LOGS/kut-unittest.log"
	bad "kut/unittest" "$(printf '%s\n' "$out" | tail -n 1); log $LOGS/kut-unittest.log"
fi

if out=$(python3 -m unittest discover -s tests/gate 2>&1); then
	ok "gate/unittest ($(printf '%s\n' "$out" | sed -n 's/^Ran \([0-9]*\) tests.*/\1/p') cases)"
else
	printf '%s\n' "$out" >"$LOGS/gate-unittest.log"
	bad "gate/unittest" "$(printf '%s\n' "$out" | tail -n 1); log $LOGS/gate-unittest.log"
fi

if out=$(python3 -m unittest discover -s tests/linux-bare 2>&1); then
	ok "linux-bare/unittest ($(printf '%s\n' "$out" | sed -n 's/^Ran \([0-9]*\) tests.*/\1/p') cases)"
else
	printf '%s\n' "$out" >"$LOGS/linux-bare-unittest.log"
	bad "linux-bare/unittest" "$(printf '%s\n' "$out" | tail -n 1); log $LOGS/linux-bare-unittest.log"
fi

echo "== fuzzing (libFuzzer + ASan/UBSan, ${FUZZ_SECONDS_TEST:=5} s per harness; make fuzz runs longer) =="
sh tests/fuzz/run.sh "$FUZZ_SECONDS_TEST" config acpi insn hypercall multiboot srat >"$LOGS/fuzz.txt" 2>&1
while read -r verdict rest; do
	case "$verdict" in
	PASS) ok "${rest%%:*} (${rest#*: })" ;;
	FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
	esac
done <"$LOGS/fuzz.txt"

echo "== emulator boots =="
LINUX_FILES="--esp-file build/linux-guest/vmlinuz --esp-file build/linux-guest/initrd.cpio"
KVM_FILES="--esp-file build/linux-guest/vmlinuz --esp-file build/kvm-guest/initrd.cpio"
NESTED_FILES="--esp-file build/linux-guest/vmlinuz --esp-file build/kvm-nested/initrd.cpio"
MB_FILES="--esp-file build/multiboot/mbtest.elf --esp-file build/multiboot/mbtest-big.elf
	--esp-file build/multiboot/truncated.elf --esp-file tests/multiboot/module.txt"
# tests/emu/cases.txt as one line per case: name|emulator|cpu|cpus|config|
# status|options|patterns, the patterns separated by US (0x1f).
# CASES=ERE (e.g. CASES='qemu-multiboot|bochs-.*') boots only the matching cases
US=$(printf '\037')
if python3 tests/emu/read-cases.py tests/emu/cases.txt >"$LOGS/cases.all" 2>"$LOGS/cases.err"; then
	grep -E "^(${CASES:-.*})[|]" "$LOGS/cases.all" >"$LOGS/cases"
else
	bad "emu/cases.txt" "$(head -n 1 "$LOGS/cases.err")"
	tail -n +2 "$LOGS/cases.err" | sed 's/^/        /'
	: >"$LOGS/cases"
fi
# the pinned, patched Bochs (make bochs) of the bochs-pmu cases and the bare PMU test
PMU_BOCHS=$(sh scripts/build-bochs.sh --path)
# One case: its verdict as one line "PASS|text", "FAIL|name|why" or
# "SKIP|text" (| is US) on stdout, for replay() to count and print.
result() {
	printf '%s%s%s%s%s\n' "$1" "$US" "$2" "$US" "$(printf '%s' "${3:-}" | tr '\n' ' ')"
}
# A failed boot's last lines, in the output itself: CI keeps only what the
# run printed, not build/test-logs
log_tail() {
	[ -f "$1" ] || return 0
	result INFO "last lines of $1:"
	tail -n "${2:-12}" "$1" | tr -d '\r' | cut -c 1-160 | while IFS= read -r line; do
		result INFO "| $line"
	done
}
# A Linux case's guest log checked by tests/linux-bare/SCRIPT.py, against
# the bare run's tests/emu/linux-bare-MODEL.EXT on the pinned Bochs (QEMU
# has no bare run: none allowed); its output in $LOGS/NAME.EXT.txt.  On a
# failure: the FAIL verdict, status 1.
linux_log_check() { # script, ext, name, emu, cpu, log
	llc_ref=""
	[ "$4" != bochs-pmu ] || llc_ref="--reference tests/emu/linux-bare-$5.$2"
	# shellcheck disable=SC2086
	llc_out=$(python3 "tests/linux-bare/$1.py" $llc_ref "$6" 2>&1)
	llc_st=$?
	printf '%s\n' "$llc_out" >"$LOGS/$3.$2.txt"
	[ $llc_st != 0 ] || return 0
	result FAIL "$3" "$(printf '%s\n' "$llc_out" | grep -m 1 FAIL); log $LOGS/$3.$2.txt"
	return 1
}
replay() {
	while IFS=$US read -r verdict what why; do
		case "$verdict" in
		PASS) ok "$what" ;;
		FAIL) bad "$what" "$why" ;;
		SKIP) echo "  SKIP  $what" ;;
		INFO) echo "        $what" ;;
		esac
	done <"$1"
}
run_case() {
	name=$1 emu=$2 cpu=$3 cpus=$4 cfg=$5 want=$6 options=$7 patterns=$8
	log=$LOGS/$name.log
	start=$(date +%s)
	rm -f "$LOGS/$name.perf.txt" "$LOGS/$name.msr.txt" "$LOGS/$name.klog.txt"
	if [ "$emu" = qemu ]; then
		# options nmi mce mce-logged fb mb linux gpu2: an NMI or a machine
		# check from the monitor once a suite runs; a corrected machine
		# check logged at power-on; a screendump of the framebuffer
		# console when the run is done; the multiboot test kernels on the
		# boot volume; the Debian Linux guest of make linux-guest (a skip
		# without it), in a machine with room for its 512 MiB; a second
		# display device; many: a machine with many CPUs (1 GiB for their
		# firmware and mhv's per-CPU data, 300 s); smm: Debian's OVMF with SMM
		# (variables in SMM, Secure Boot available, no keys enrolled)
		# snakeoil signed refused: Debian's Secure Boot OVMF with its
		# snakeoil keys enrolled (SMM); the image signed with that key
		# (scripts/sign-efi.sh, as make usb signs); the firmware must
		# refuse the image: QEMU is ended once OVMF has tried every boot
		# option, and any line of mhv's fails the case.  numa: two NUMA
		# nodes (run-qemu.sh --numa 2), the CPUs and memory split evenly;
		# com2: the log is COM2's output, COM1 unconnected; spcr: an
		# ACPI SPCR (revision 3) naming COM2 and its 1.8432 MHz clock
		# (tests/emu/spcr.py); noserial: the log is what mhv sent to
		# port 0xE9 and the serial port must have received no line of
		# mhv's; nohpet: a q35 without an HPET (-machine hpet=off), as
		# many servers' firmware leaves it
		mon="" monwait='mhv: suite vmexit' moncmd=nmi fb="" files="" extra="" timeout=120
		firmware=plain efi=$EFI refused="" numa=1 com=1 e9=""
		for opt in $options; do
			case "$opt" in
			nmi) mon="$LOGS/$name.mon" ;;
			# an uncorrected error (VAL UC EN MISCV ADDRV) in bank 1
			# of CPU 1, MCG_STATUS RIPV|MCIP, MCi_ADDR, MCi_MISC
			mce) mon="$LOGS/$name.mon" moncmd="mce 1 1 0xbc00000000000134 0x5 0x1234000 0x86" ;;
			# a corrected error (VAL EN MISCV ADDRV) logged in bank 2 of
			# CPU 0 at power-on, for mhv to find at boot
			mce-logged) mon="$LOGS/$name.mon" monwait=''
				moncmd="mce 0 2 0x9c0000000000010a 0 0xabc000 0x8c" ;;
			fb) mon="$LOGS/$name.mon" fb="$LOGS/$name.e9" ;;
			nohpet) extra="$extra -machine hpet=off" ;;
			mb) files=$MB_FILES ;;
			linux) files=$LINUX_FILES extra="-m 1G" timeout=400 ;;
			gpu2) extra="-device secondary-vga $extra" ;;
			smm) firmware=secboot ;;
			snakeoil) firmware=snakeoil ;;
			signed) efi=$LOGS/$name.efi ;;
			refused) mon="$LOGS/$name.mon" refused=1 ;;
			numa) numa=2 ;;
			many) extra="-m 1G" timeout=300 ;;
			com2) com=2 ;;
			spcr)
				python3 tests/emu/spcr.py "$LOGS/$name.spcr" 0x2f8 1843200
				extra="-acpitable sig=SPCR,rev=3,data=$LOGS/$name.spcr $extra" ;;
			noserial) e9="$LOGS/$name.e9" extra="-debugcon file:$e9 $extra" ;;
			esac
		done
		if [ "$efi" != "$EFI" ]; then
			# the test key's passphrase (snakeoil) off, in build/ only
			if ! out=$(openssl rsa -passin pass:snakeoil -in /usr/share/ovmf/PkKek-1-snakeoil.key \
				-out "$LOGS/$name.key" 2>&1) ||
				! out=$(sh scripts/sign-efi.sh "$LOGS/$name.key" \
					/usr/share/ovmf/PkKek-1-snakeoil.pem "$EFI" "$efi" 2>&1); then
				result FAIL "$name" "signing with the snakeoil key failed: $out"
				return
			fi
		fi
		case " $options " in *" linux "*)
			if [ ! -f build/linux-guest/vmlinuz ] || [ ! -f build/linux-guest/initrd.cpio ]; then
				result SKIP "$name: no Linux guest (make linux-guest: apt-get download failed or not run)"
				return
			fi
		esac
		[ -n "$mon" ] && extra="-monitor unix:$mon,server,nowait${fb:+ -debugcon file:$fb} $extra"
		rm -f "$log" "$LOGS/$name.mon" "$LOGS/$name.e9" "$LOGS/$name.ppm"
		# shellcheck disable=SC2086
		sh scripts/run-qemu.sh --cpu "$cpu" --config "tests/emu/$cfg" --timeout "$timeout" \
			--smp "$cpus" --numa "$numa" --firmware "$firmware" --serial-com "$com" $files \
			${extra:+--extra "$extra"} \
			--serial-log "$log" "$efi" >"$LOGS/$name.qemu.txt" 2>&1 </dev/null &
		qpid=$!
		if [ -n "$refused" ]; then
			# OVMF's boot manager (BdsDxe) logs each option it tries on
			# the serial port and ends with this line
			python3 tests/emu/qemu-monitor.py "$mon" "$log" \
				'BdsDxe: No bootable option|mhv: ' quit >"$LOGS/$name.monitor.txt" 2>&1
		elif [ -n "$fb" ]; then
			python3 tests/emu/qemu-monitor.py "$mon" "$fb" 'mhv: summary' \
				"screendump $LOGS/$name.ppm" quit >"$LOGS/$name.monitor.txt" 2>&1
		elif [ -n "$mon" ]; then
			python3 tests/emu/qemu-monitor.py "$mon" "$log" "$monwait" "$moncmd" \
				>"$LOGS/$name.monitor.txt" 2>&1
		fi
		wait $qpid
		st=$?
		if [ -n "$refused" ] && grep -aq 'mhv: ' "$log"; then
			result FAIL "$name" "the firmware started mhv: $(grep -a -m 1 'mhv: ' "$log"); log $log"
			return
		fi
		if [ -n "$fb" ]; then
			# the text the screen must show came through port 0xE9
			if ! out=$(python3 tests/emu/fb-check.py "$LOGS/$name.ppm" "$fb" "$log" \
				hv/platform/fbcon_font.c 2>&1); then
				result FAIL "$name" "$out"
				return
			fi
			log=$fb
		fi
		if [ -n "$e9" ]; then
			# (before it the firmware's console has printed its own
			# lines and the loader's, boot/efi_main.c)
			if grep -a 'mhv: ' "$log" | grep -aqv '^mhv: UEFI loader'; then
				result FAIL "$name" "mhv wrote to the serial port: $log"
				return
			fi
			log=$e9
		fi
	elif [ "$emu" = qemu-usb ] || [ "$emu" = bochs-disk ] || [ "$emu" = bochs-pmu-disk ]; then
		# the stick image make usb writes, with the shipped mhv.cfg plus
		# overrides; bochs-pmu-disk: on the pinned Bochs
		cat scripts/usb.cfg "tests/emu/$cfg" >"$LOGS/$name.cfg"
		bochs=""
		if [ "$emu" = bochs-pmu-disk ]; then
			if [ ! -x "$PMU_BOCHS" ]; then
				result SKIP "$name: no pinned Bochs (make bochs)"
				return
			fi
			bochs="--bochs $PMU_BOCHS"
		fi
		if ! sh scripts/mkusb.sh "$LOGS/$name.img" "$EFI" "$LOGS/$name.cfg" >/dev/null; then
			result FAIL "$name" "scripts/mkusb.sh failed"
			return
		fi
		if [ "$emu" = qemu-usb ]; then
			sh scripts/run-qemu.sh --cpu "$cpu" --usb-image "$LOGS/$name.img" \
				--timeout 120 --serial-log "$log" "$EFI" \
				>"$LOGS/$name.qemu.txt" 2>&1 </dev/null
			st=$?
		else
			# shellcheck disable=SC2086
			sh scripts/run-bochs.sh $bochs --cpu "$cpu" --cpus "$cpus" \
				--disk-image "$LOGS/$name.img" --timeout 600 --log "$log" "$EFI" \
				>"$LOGS/$name.bochs.txt" 2>&1 </dev/null
			st=$?
		fi
	else
		# options mb linux bare: the multiboot test kernels on the boot
		# volume; the Debian Linux guest (a skip without make linux-guest)
		# in a machine with room for its 512 MiB; bare: no mhv, the Linux
		# guest's chain loader (tests/linux-bare) boots it, its COM1 output
		# is the log, and Bochs ends on init's last line (no ACPI tables);
		# perftest: its guests run Linux's perf test too (mhvperftest=1,
		# a minute of guest time each): 1200 s
		files="" bochs="" megs="" efi=$EFI timeout=300 bare=""
		for opt in $options; do
			case "$opt" in
			mb) files=$MB_FILES ;;
			linux) files=$LINUX_FILES megs="--megs 1024" timeout=600 ;;
			bare) efi=build/linux-bare/linuxload.efi bare=1 ;;
			esac
		done
		# kvm: the KVM side's initramfs (make kvm-guest) for the kernel
		case " $options " in *" kvm "*)
			files=$KVM_FILES
			if [ ! -f build/kvm-guest/initrd.cpio ]; then
				result SKIP "$name: no KVM side initramfs (make kvm-guest)"
				return
			fi
		esac
		# nested: mhv under the KVM of that kernel (make kvm-nested), in
		# a machine with room for QEMU and its guest as well
		case " $options " in *" nested "*)
			files=$NESTED_FILES megs="--megs 1536" timeout=1500
			if [ ! -f build/kvm-nested/initrd.cpio ]; then
				result SKIP "$name: no nested initramfs (make kvm-nested)"
				return
			fi
		esac
		case " $options " in *" perftest "*) timeout=1200 ;; esac
		case " $options " in *" linux "*)
			if [ ! -f build/linux-guest/vmlinuz ] || [ ! -f build/linux-guest/initrd.cpio ]; then
				result SKIP "$name: no Linux guest (make linux-guest: apt-get download failed or not run)"
				return
			fi
		esac
		if [ "$emu" = bochs-pmu ]; then
			if [ ! -x "$PMU_BOCHS" ]; then
				result SKIP "$name: no pinned Bochs (make bochs)"
				return
			fi
			bochs="--bochs $PMU_BOCHS"
		fi
		rm -f "$log" "$LOGS/$name.e9"
		if [ -n "$bare" ]; then
			# shellcheck disable=SC2086
			sh scripts/run-bochs.sh $bochs --cpu "$cpu" --cpus "$cpus" $files $megs \
				--config "tests/emu/$cfg" --timeout "$timeout" --com1 "$log" \
				--until 'mhv-linux: no ACPI' --log "$LOGS/$name.e9" "$efi" \
				>"$LOGS/$name.bochs.txt" 2>&1 </dev/null
		else
			# shellcheck disable=SC2086
			sh scripts/run-bochs.sh $bochs --cpu "$cpu" --cpus "$cpus" $files $megs \
				--config "tests/emu/$cfg" --timeout "$timeout" --log "$log" "$efi" \
				>"$LOGS/$name.bochs.txt" 2>&1 </dev/null
		fi
		st=$?
	fi
	secs=$(($(date +%s) - start))
	if [ "$st" != "$want" ]; then
		result FAIL "$name" "exit status $st, want $want (0: triple fault/reset, 124: timeout); log $log"
		log_tail "$log"
		return
	fi
	# mhv's own lines: a guest's lines start "[vm] " (after a "[cpuN] " tag
	# when CPUs print at once), so guest text can neither fail a case nor
	# stand in for an expected line of mhv's
	hostlog=$LOGS/$name.host
	awk '{ l = $0; sub(/^\[cpu[0-9]+\] /, "", l); if (substr(l, 1, 1) != "[") print }' \
		"$log" >"$hostlog"
	# status 35 cases expect failures (refused guests): their patterns judge them
	if [ "$want" != 35 ] && grep -aq 'mhv: FAIL' "$hostlog"; then
		result FAIL "$name" "$(grep -a 'mhv: FAIL' "$hostlog" | head -n 1)"
		log_tail "$log"
		return
	fi
	missing=""
	IFS=$US
	set -f # patterns are not file name globs
	for p in $patterns; do
		# reject (a "!" first): no line of mhv's may match it
		case "$p" in '!'*)
			! grep -aEq -- "${p#!}" "$hostlog" ||
				missing="$missing [not: $(grep -aE -m 1 -- "${p#!}" "$hostlog" | cut -c 1-120)]"
			continue
		esac
		# a pattern that starts with a guest's tag is about the guest's lines
		case "$p" in
		'\[cpu'*) in=$hostlog ;;
		'\['*) in=$log ;;
		*) in=$hostlog ;;
		esac
		grep -aEq -- "$p" "$in" || missing="$missing [$p]"
	done
	set +f
	unset IFS
	if [ -n "$missing" ]; then
		result FAIL "$name" "log lacks:$missing; log $log"
		log_tail "$log"
		return
	fi
	# option perf: the Linux guest's perf stat counts agree between its runs
	# and with the bare emulator's kept in tests/emu/linux-bare-MODEL.ref
	# (the bare case checks its own against them: the cases of one model
	# may run at once, in two lanes)
	case " $options " in *" perf "*)
		ref=tests/emu/linux-bare-$cpu.ref
		if ! out=$(python3 tests/linux-bare/perf_check.py --reference "$ref" "$log" 2>&1); then
			printf '%s\n' "$out" >"$LOGS/$name.perf.txt"
			result FAIL "$name" "$(printf '%s\n' "$out" | grep -m 1 FAIL); log $LOGS/$name.perf.txt"
			return
		fi
		printf '%s\n' "$out" >"$LOGS/$name.perf.txt"
	esac
	# option linux: no unchecked MSR access error in the guest's kernel log
	# that the bare run of the model has not (tests/emu/linux-bare-MODEL.msr;
	# QEMU has no bare run: none)
	case " $options " in *" linux "*)
		linux_log_check msr_errors msr "$name" "$emu" "$cpu" "$log" || return 0
	esac
	# option linux (not kvm or nested: their init is the KVM side's): no kernel
	# complaint (WARNING, oops, unknown NMI...) that the bare run of the
	# model has not (tests/emu/linux-bare-MODEL.klog; QEMU: none)
	case " $options " in *" kvm "* | *" nested "*) ;; *" linux "*)
		linux_log_check kernel_log klog "$name" "$emu" "$cpu" "$log" || return 0
	esac
	result PASS "$name (${secs}s)"
	# the Linux guest: its boot time to /init (guest uptime) per run
	case " $options " in *" linux "*)
		inits=$(sed -n 's/.*mhv-linux: init reached at \([0-9.]*\) s.*/\1 s/p' "$log" | tr '\n' ' ')
		result INFO "boot to /init (guest uptime, per run): ${inits}in ${secs} s wall"
		if [ -f "$LOGS/$name.perf.txt" ]; then
			while IFS= read -r line; do
				result INFO "$line"
			done <"$LOGS/$name.perf.txt"
		fi
		while IFS= read -r line; do
			result INFO "$line"
		done <"$LOGS/$name.msr.txt"
		if [ -f "$LOGS/$name.klog.txt" ]; then
			while IFS= read -r line; do
				result INFO "$line"
			done <"$LOGS/$name.klog.txt"
		fi
		# the perf_event fuzzer: its syscalls per run (mhvperffuzz=)
		tr -d '\r' <"$log" | sed -n 's/.*mhv-linux: \(run [^ ]*\)$/perf-fuzz: \1/p; s/.*mhv-linux: perf-fuzz \(total tried .*\|done: .*\|seed .*\)/perf-fuzz: \1/p' |
			awk '/^perf-fuzz: run / { run = $3; next } { sub(/^perf-fuzz: /, ""); print "perf-fuzz: run " run ": " $0 }' |
			while IFS= read -r line; do
				result INFO "$line"
			done
	esac
}
# Two lanes, one per core.  Lane 0 runs QEMU's cases one at a time (TCG
# runs on the host's clock, so two of them would stretch each other's
# guest time), then takes Bochs cases; lane 1 takes Bochs cases from the
# start.  Bochs' time is its instruction count, so a busy machine changes
# none of its results.  The lanes take Bochs cases from one queue, the
# Linux guests (the longest) first; every verdict is replayed in file order.
grep -v "^[^|]*|bochs" "$LOGS/cases" >"$LOGS/cases.qemu"
grep "^[^|]*|bochs" "$LOGS/cases" >"$LOGS/cases.bochs"
{
	grep "^[^|]*|[^|]*|[^|]*|[^|]*|[^|]*|[^|]*|[^|]*linux" "$LOGS/cases.bochs"
	grep -v "^[^|]*|[^|]*|[^|]*|[^|]*|[^|]*|[^|]*|[^|]*linux" "$LOGS/cases.bochs"
} >"$LOGS/queue"
echo 1 >"$LOGS/queue.next"
rm -rf "$LOGS/queue.lock"
# The queue's next case (nothing when it is empty); mkdir is the lock.
take_case() {
	while ! mkdir "$LOGS/queue.lock" 2>/dev/null; do
		sleep 0.2
	done
	n=$(cat "$LOGS/queue.next")
	echo $((n + 1)) >"$LOGS/queue.next"
	rmdir "$LOGS/queue.lock"
	sed -n "${n}p" "$LOGS/queue"
}
run_lines() {
	while IFS='|' read -r c_name c_emu c_cpu c_cpus c_cfg c_want c_options c_patterns; do
		run_case "$c_name" "$c_emu" "$c_cpu" "$c_cpus" "$c_cfg" "$c_want" "$c_options" \
			"$c_patterns" >"$LOGS/$c_name.result"
	done
}
run_queue() {
	while line=$(take_case) && [ -n "$line" ]; do
		printf '%s\n' "$line" | run_lines
	done
}
{ run_lines <"$LOGS/cases.qemu"; run_queue; } &
run_queue &
wait
while IFS='|' read -r c_name rest; do
	replay "$LOGS/$c_name.result"
done <"$LOGS/cases"

echo "== the log kept across a reboot: two QEMU boots of one stick and variable store =="
# tests/emu/keep-log.sh: plain OVMF (variables in flash) and the SMM build
# (variables in SMM); chosen by CASES like the boots above
for fw in plain secboot; do
	name=keep-log-$fw
	printf '%s\n' "$name" | grep -Eq "^(${CASES:-.*})\$" || continue
	start=$(date +%s)
	out=$(sh tests/emu/keep-log.sh "$fw" "$LOGS/$name" "$EFI" 2>&1 | tail -n 1)
	secs=$(($(date +%s) - start))
	case "$out" in
	"PASS "*) ok "${out#PASS } (${secs}s)" ;;
	*) bad "$name" "${out#FAIL $name: }" ;;
	esac
done

# tests/emu/keep-log-small.sh: OVMF's store filled to just above mhv's
# reserve, four boots (three with the stick read-only), the store's free
# space checked after each store
name=keep-log-small
if printf '%s\n' "$name" | grep -Eq "^(${CASES:-.*})\$"; then
	start=$(date +%s)
	out=$(sh tests/emu/keep-log-small.sh "$LOGS/$name" "$EFI" 2>&1 | tail -n 1)
	secs=$(($(date +%s) - start))
	case "$out" in
	"PASS "*) ok "${out#PASS } (${secs}s)" ;;
	*) bad "$name" "${out#FAIL $name: }" ;;
	esac
fi

echo "== the pinned Bochs' PMU model, bare: tests/pmu-bare, no mhv =="
# bochs-pmu-bare: the patched Bochs (tests/emu/bochs/*.patch) on its zen5
# model must pass every check of the bare program; bochs-pmu-bare-ryzen: the
# same program on ryzen, whose PMU counts nothing, must fail them, which shows
# the checks can fail.  bochs-pmu-bare-intel and bochs-pmu-bare-skylake-x are
# the same pair for the Intel model, skylake_pmu, and corei7_skylake_x.
# Chosen by CASES like the boots above; a missing pinned Bochs (make bochs: no
# source) is a skip.
for pc in bochs-pmu-bare:zen5:PASS bochs-pmu-bare-ryzen:ryzen:FAIL \
	bochs-pmu-bare-intel:skylake_pmu:PASS bochs-pmu-bare-skylake-x:corei7_skylake_x:FAIL; do
	name=${pc%%:*} cpu=${pc#*:} want=${pc##*:}
	cpu=${cpu%%:*}
	printf '%s\n' "$name" | grep -Eq "^(${CASES:-.*})\$" || continue
	if [ ! -x "$PMU_BOCHS" ]; then
		echo "  SKIP  $name: no pinned Bochs (make bochs)"
		continue
	fi
	log=$LOGS/$name.log
	start=$(date +%s)
	sh scripts/run-bochs.sh --bochs "$PMU_BOCHS" --cpu "$cpu" --timeout 300 --log "$log" \
		build/pmu-bare/pmutest.efi >"$LOGS/$name.bochs.txt" 2>&1 </dev/null
	secs=$(($(date +%s) - start))
	summary=$(sed -n 's/^pmutest: \([0-9]* checks, [0-9]* failed\)$/\1/p' "$log" | head -n 1)
	if [ -z "$summary" ]; then
		bad "$name" "no summary line; log $log"
	elif ! grep -aq "^pmutest: $want\$" "$log"; then
		grep -a '^pmutest: FAIL ' "$log" | head -n 5 | sed 's/^/        /'
		bad "$name" "$summary, want $want; log $log"
	else
		ok "$name ($summary, $want as wanted; ${secs}s)"
	fi
done

echo "== the fuzz guest bare and under mhv: tests/fuzz-bare, the differential oracle =="
# fuzz-diff-qemu: the fuzz guest's differential program (seed 41 and the
# seeds of tests/emu/fuzz-seeds.txt) on bare QEMU -cpu max and as mhv's
# fuzz_diff VM; every difference of their outcomes must be one
# tests/fuzz-bare/known.txt lists (docs/fuzz.md).  Chosen by CASES.
name=fuzz-diff-qemu
if printf '%s\n' "$name" | grep -Eq "^(${CASES:-.*})\$"; then
	start=$(date +%s) bad_seeds=""
	for seed in $(sed 's/#.*//' tests/emu/fuzz-seeds.txt | grep -Eo '[0-9]+'); do
		sh tests/fuzz-bare/run.sh "$seed" max >"$LOGS/$name-$seed.txt" 2>&1 ||
			bad_seeds="$bad_seeds $seed"
	done
	secs=$(($(date +%s) - start))
	if [ -n "$bad_seeds" ]; then
		bad "$name" "seeds$bad_seeds: $(grep -hm 1 'compare:\|fuzz-diff:' "$LOGS/$name-${bad_seeds##* }.txt"); log $LOGS/$name-${bad_seeds##* }.txt"
	else
		ok "$name ($(grep -h 'compare:' "$LOGS/$name"-*.txt | head -n 1 | sed 's/^compare: //'); ${secs}s)"
	fi
fi

echo "== kvm-unit-tests under mhv, judged by tests/kut/expect.txt =="
# One case per environment, kut-qemu, kut-bochs-vmx, kut-bochs-svm and
# kut-bochs-zen5 and kut-bochs-skylake-pmu (pmu.flat once per mhv PMU mode on
# the counting AMD and Intel PMUs), chosen
# by CASES like the boots above: the mhv side of each test the file lists
# there, two boots at a time (tests/kut/run.py --check); an unexpected result
# fails the case with the test's failing lines.  A missing KUT build or
# pinned Bochs (make kut, make bochs: no source) is a skip, said as such.
KUT_OBJ=${KUT_OBJ:-build/kut/obj}
for env in qemu bochs-vmx bochs-svm bochs-zen5 bochs-skylake-pmu; do
	name=kut-$env
	printf '%s\n' "$name" | grep -Eq "^(${CASES:-.*})\$" || continue
	out=$LOGS/$name.txt
	start=$(date +%s)
	python3 tests/kut/run.py --env "$env" --kut "$KUT_OBJ" --check tests/kut/expect.txt \
		--jobs "${KUT_JOBS:-2}" --out build/kut-check >"$out" 2>&1 </dev/null
	st=$?
	secs=$(($(date +%s) - start))
	summary=$(sed -n "s/^kut-check: $env: \([0-9]* tests, [0-9]* as expected.*\)/\1/p" "$out" | head -n 1)
	if grep -q '^kut-check: skipped:' "$out"; then
		echo "  SKIP  $name: $(sed -n 's/^kut-check: skipped: //p' "$out")"
	elif [ "$st" = 0 ] && [ -n "$summary" ]; then
		ok "$name ($summary; ${secs}s)"
		sed -n "s/^kut-check: $env: \(open: .*\)/        \1/p" "$out" | cut -c1-200
		grep -A 20 "^kut-check: $env: known gaps" "$out" | grep '^    ' | sed 's/^/    /'
	else
		# the unexpected tests, each with its failing lines
		sed -n '/^$/,$p' "$out" | grep -v '^kut-check: .*: \(open\|wall\)' | sed 's/^/        /'
		bad "$name" "${summary:-$(tail -n 1 "$out")}; log $out"
	fi
	# vmexit.flat's numbers beside mhv's vmexit suite on the same emulator
	if [ "$env" = qemu ] && [ -f "$LOGS/qemu-max.log" ] &&
		ls build/kut-check/qemu/vmexit_*.mhv.log >/dev/null 2>&1; then
		smp2=""
		[ -f "$LOGS/qemu-smp2.log" ] && smp2="--mhv $LOGS/qemu-smp2.log"
		# shellcheck disable=SC2086
		if python3 tests/kut/vmexit-table.py --mhv "$LOGS/qemu-max.log" $smp2 \
			build/kut-check/qemu/vmexit_*.mhv.log >"$LOGS/kut-vmexit-qemu.md" 2>&1; then
			echo "        vmexit.flat beside mhv's vmexit suite: $LOGS/kut-vmexit-qemu.md"
		fi
	fi
done

if [ -n "${CASES:-}" ]; then
	echo
	echo "(CASES set: report and exit-path gate not run)"
	[ "$failed" -gt 0 ] && printf 'failures:%s\n\n' "$failures"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi

echo "== report tool on a real log =="
if python3 scripts/mhv-report csv "$LOGS/qemu-max.log" >"$LOGS/qemu-max.csv" 2>"$LOGS/report-real.err" &&
	grep -q '^.*,vmexit,cpuid,default,qemu-tcg,svm,tsc,' "$LOGS/qemu-max.csv"; then
	ok "report/qemu-max.csv ($(($(wc -l <"$LOGS/qemu-max.csv") - 1)) rows)"
else
	bad "report/qemu-max.csv" "$(cat "$LOGS/report-real.err")"
fi

echo "== mhv beside KVM: mhv-report kvm on the Bochs logs of both (docs/kvm.md) =="
# the user's flow end to end: mhv's log and the KVM side's into the table
for pair in bochs-zen5-pmu:bochs-kvm-zen5 bochs-skylake-pmu:bochs-kvm-skylake_pmu; do
	m=${pair%%:*} k=${pair#*:}
	[ -f "$LOGS/$k.log" ] && grep -q "^$k|" "$LOGS/cases" || continue
	if python3 scripts/mhv-report kvm "$LOGS/$m.log" "$LOGS/$k.log" >"$LOGS/$k.md" \
		2>"$LOGS/$k.report.err" && grep -Eq '^\| cpuid \| [0-9]+ .*\| [0-9.]+x \|$' "$LOGS/$k.md"; then
		ok "report/kvm/$k ($(grep -c '^| ' "$LOGS/$k.md") table rows: $LOGS/$k.md)"
	else
		bad "report/kvm/$k" "$(cat "$LOGS/$k.report.err") (no cpuid ratio in $LOGS/$k.md)"
	fi
done

echo "== exit-path gate (Bochs: RDTSC = retired instructions; 2% over baseline fails) =="
# bochs-zen5-pmu's and bochs-skylake-pmu's PMU columns where the pinned Bochs
# ran them (a skip above otherwise)
pmu_logs=""
for c in bochs-zen5-pmu bochs-skylake-pmu; do
	if [ -x "$PMU_BOCHS" ] && grep -q "^$c|" "$LOGS/cases"; then
		pmu_logs="$pmu_logs $c=$LOGS/$c.log"
	fi
done
# KVM's rows (the bochs-kvm-* cases; a skip above without make kvm-guest)
for c in bochs-kvm-zen5 bochs-kvm-skylake_pmu; do
	if [ -x "$PMU_BOCHS" ] && grep -q "^$c|" "$LOGS/cases" && [ -f "$LOGS/$c.log" ]; then
		pmu_logs="$pmu_logs $c=$LOGS/$c.log"
	fi
done
# shellcheck disable=SC2086
sh scripts/bench-gate.sh check tests/emu/bench-baseline.txt \
	bochs-ryzen="$LOGS/bochs-ryzen.log" bochs-skylake-x="$LOGS/bochs-skylake-x.log" $pmu_logs \
	>"$LOGS/gate.txt"
while read -r verdict rest; do
	if [ "$verdict" = PASS ]; then
		passed=$((passed + 1))
	else
		bad "${rest%%:*}" "${rest#*: }"
	fi
done <"$LOGS/gate.txt"
echo "  PASS  $(grep -c '^PASS' "$LOGS/gate.txt") gate entries within 2% of the baseline" \
	"(KVM's: within $(sed -n 's/^KVM_TOLERANCE=.*:-\([0-9]*\)}/\1/p' scripts/bench-gate.sh)%)"

echo
[ "$failed" -gt 0 ] && printf 'failures:%s\n\n' "$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
