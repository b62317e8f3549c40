// SPDX-License-Identifier: MIT
/*
 * Nested page faults: guest-physical accesses outside guest RAM.  The
 * MMIO test device is emulated by decoding the faulting MOV from the
 * bytes at RIP (no decode assists needed); anything else stops the VM
 * with the address named.
 */
#include "exit_dispatch.h"
#include "guest_abi.h"
#include "vcpu.h"

static u64 mmio_dev_read(struct vm *vm, u64 offset)
{
	switch (offset) {
	case MMIO_REG_ID:
		return MMIO_DEVICE_ID;
	case MMIO_REG_SCRATCH:
		return vm->mmio_scratch;
	default:
		return 0;
	}
}

void handle_npf(struct vcpu *vcpu, const struct vm_exit *exit)
{
	u64 gpa = exit->npf.gpa, offset = gpa - GUEST_MMIO_BASE;
	struct vm *vm = vcpu->vm;
	struct mmio_insn insn;
	u8 bytes[15];
	size_t n;
	u64 *reg;

	if (offset >= GUEST_MMIO_SIZE || exit->npf.fetch) {
		vm_stop(vm, VM_STOP_BAD_ACCESS,
			"%s of guest-physical 0x%llx, outside RAM and devices (rip 0x%llx)",
			exit->npf.fetch	  ? "instruction fetch"
			: exit->npf.write ? "write"
					  : "read",
			gpa, vcpu->regs.rip);
		return;
	}
	n = vcpu_read_guest_virt(vcpu, vcpu->regs.rip, bytes, sizeof(bytes));
	if (insn_decode_mmio(bytes, n, &insn) < 0) {
		vm_stop(vm, VM_STOP_INSN_DECODE,
			"MMIO access to 0x%llx by an instruction mhv does not emulate "
			"(rip 0x%llx: %02x %02x %02x)",
			gpa, vcpu->regs.rip, n > 0 ? bytes[0] : 0, n > 1 ? bytes[1] : 0,
			n > 2 ? bytes[2] : 0);
		return;
	}
	reg = &vcpu->regs.gpr[insn.reg];
	if (insn.write) {
		u64 val = insn.has_imm ? insn.imm : mmio_write_value(&insn, *reg);

		/* Only the scratch register is writable; narrow writes merge
		 * into it, the ID register ignores writes. */
		if (offset >= MMIO_REG_SCRATCH && offset + insn.size <= MMIO_REG_SCRATCH + 8) {
			unsigned shift = (offset - MMIO_REG_SCRATCH) * 8;
			u64 field =
			    insn.size == 8 ? ~0ull : ((1ull << (insn.size * 8)) - 1) << shift;

			vm->mmio_scratch = (vm->mmio_scratch & ~field) | ((val << shift) & field);
		}
	} else {
		u64 aligned = offset & ~7ull, shift = (offset & 7) * 8;
		u64 val = mmio_dev_read(vm, aligned) >> shift;

		*reg = mmio_merge_read(&insn, *reg, val);
	}
	vcpu->regs.rip += insn.len;
}
