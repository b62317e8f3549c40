// SPDX-License-Identifier: MIT
/*
 * Nested page faults: guest-physical accesses outside guest RAM.  The
 * windows registered on the VM's bus (core/bus.h: the MMIO test device,
 * the xAPIC page, the I/O APIC) are emulated by decoding the faulting
 * MOV from the bytes at CS:RIP, in the guest's code size (no decode
 * assists needed); anything else stops the VM with the address named.
 */
#include "exit_dispatch.h"
#include "lib/guest_abi.h"
#include "test_mmio.h"
#include "vcpu.h"

static __attribute__((noinline, cold)) void stop_undecodable(struct vcpu *vcpu, u64 gpa,
							     const u8 *bytes, size_t n)
{
	vm_stop(vcpu->vm, VM_STOP_INSN_DECODE,
		"MMIO access to 0x%llx by an instruction mhv does not emulate "
		"(rip 0x%llx: %02x %02x %02x)",
		gpa, vcpu->regs.rip, n > 0 ? bytes[0] : 0, n > 1 ? bytes[1] : 0,
		n > 2 ? bytes[2] : 0);
}

/*
 * Everything but mhv's own 64-bit guests touching the test device: the
 * bus's other windows, code in any mode (external guests), and accesses
 * to nothing, which stop the VM.
 */
static __attribute__((noinline)) void npf_slow(struct vcpu *vcpu, const struct vm_exit *exit)
{
	u64 gpa = exit->npf.gpa;
	const struct bus_mmio *window = bus_find_mmio(&vcpu->vm->bus, gpa);
	struct mmio_insn insn;
	unsigned code_bits;
	u8 bytes[15];
	size_t n;

	if (!window || exit->npf.fetch) {
		vm_stop(vcpu->vm, VM_STOP_BAD_ACCESS,
			"%s of guest-physical 0x%llx, outside RAM and devices (rip 0x%llx)",
			exit->npf.fetch	  ? "instruction fetch"
			: exit->npf.write ? "write"
					  : "read",
			gpa, vcpu->regs.rip);
		return;
	}
	n = vcpu_fetch_insn(vcpu, bytes, sizeof(bytes), &code_bits);
	if (insn_decode_mmio_mode(bytes, n, code_bits, &insn) < 0) {
		stop_undecodable(vcpu, gpa, bytes, n);
		return;
	}
	window->access(window->dev, vcpu, gpa - window->base, &insn, &vcpu->regs.gpr[insn.reg]);
	vcpu->regs.rip += insn.len;
	if (code_bits != 64)
		vcpu->regs.rip &= code_bits == 16 ? 0xffff : 0xffffffffull;
	vcpu_insn_completed(vcpu);
}

/* The test device from mhv's own guests: the MMIO benchmarks' path. */
void handle_npf(struct vcpu *vcpu, const struct vm_exit *exit)
{
	u64 gpa = exit->npf.gpa, offset = gpa - GUEST_MMIO_BASE;
	struct mmio_insn insn;
	u8 bytes[15];
	size_t n;

	if (unlikely(offset >= GUEST_MMIO_SIZE || exit->npf.fetch || vcpu->boot32)) {
		npf_slow(vcpu, exit);
		return;
	}
	n = vcpu_read_guest_virt(vcpu, vcpu->regs.rip, bytes, sizeof(bytes));
	if (insn_decode_mmio(bytes, n, &insn) < 0) {
		stop_undecodable(vcpu, gpa, bytes, n);
		return;
	}
	test_mmio_reg_access(vcpu->vm, offset, &insn, &vcpu->regs.gpr[insn.reg]);
	vcpu->regs.rip += insn.len;
	vcpu_insn_completed(vcpu);
}
