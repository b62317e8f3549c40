# SPDX-License-Identifier: MIT
# Sourced by the /init of both KVM initramfs (scripts/kvm/init.sh: the KVM
# side; nested-init.sh: mhv nested under KVM).

# busybox's applets, the kernel's file systems, and the run's first lines
init_start() {
	/bin/busybox --install -s /bin
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev 2>/dev/null
	echo "mhv-linux: run ${mhvrun:-?}"
	echo "mhv-linux: init reached at $(cut -d' ' -f1 /proc/uptime) s"
}

# Debian's KVM modules loaded into Debian's kernel, for this CPU's vendor.
kvm_load() {
	# insmod in dependency order; kvm_amd wants ccp first where the kernel
	# built it with SEV (Debian's generic flavour; its cloud flavour has none)
	for m in irqbypass kvm ccp; do
		[ -f /lib/modules/$m.ko ] && insmod /lib/modules/$m.ko
	done
	# module parameters from the command line (mhvkvmamd=, mhvkvmintel=: the
	# kernel hands unknown words to init's environment; busybox's insmod does
	# not read /proc/cmdline as modprobe would)
	case "$(sed -n 's/^vendor_id[^:]*: //p' /proc/cpuinfo | head -n 1)" in
	# shellcheck disable=SC2086
	AuthenticAMD) insmod /lib/modules/kvm-amd.ko ${mhvkvmamd:-} ;;
	# shellcheck disable=SC2086
	*) insmod /lib/modules/kvm-intel.ko ${mhvkvmintel:-} ;;
	esac
	echo "mhv-linux: kvm modules: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
	dmesg | sed -n 's/^\[[ 0-9.]*\] \(kvm.*\)/mhv-linux: dmesg \1/p'
}

# What the kernel complained of, then the end of the run: no ACPI under
# Bochs' OVMF, so the last line ends the emulator (run-bochs.sh --until).
init_end() {
	# the kernel's "unchecked MSR access error" lines, for
	# tests/linux-bare/msr_errors.py (as scripts/linux-guest-init.sh)
	dmesg | sed -n 's/.*unchecked MSR access error: \(.*\) at rIP.*/mhv-linux: msr-error \1/p'
	echo "mhv-linux: msr-errors $(dmesg | grep -c 'unchecked MSR access error')"
	echo "mhv-linux: done at $(cut -d' ' -f1 /proc/uptime) s"
	# The UART sends from the tty buffer by interrupt, at the baud rate's pace
	# in Bochs' real time, while Bochs runs the guest's clock faster; poweroff
	# drops what is still buffered (the last rows were lost with 2 s here)
	sleep 8
	echo "mhv-linux: no ACPI: halting"
	sleep 2
	poweroff -f
}
