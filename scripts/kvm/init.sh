#!/bin/busybox sh
# /init of the KVM side's initramfs (scripts/kvm/initramfs.py): Debian's
# KVM modules loaded into Debian's kernel, then mhv's vmexit suite under
# that KVM (mhv-kvm), its MHV-JSON lines on the console for make test's
# bochs-kvm-* cases (tests/emu/cases.txt).  No ACPI under Bochs' OVMF:
# the last line ends the emulator (run-bochs.sh --until).
export PATH=/bin
. /bin/init-lib.sh
init_start
kvm_load
# the gate's parameters (tests/emu/bochs.cfg): the same counts as mhv's rows
/bin/mhv-kvm --guests /guest --env "${mhvkvmenv:-bochs}" --iterations 200 --batches 10 \
	--warmup 100 --timeout 300
echo "mhv-linux: mhv-kvm status $?"
init_end
