// SPDX-License-Identifier: MIT
/*
 * Nested page faults: guest-physical accesses outside guest RAM.  The
 * MMIO test device, the xAPIC page and the I/O APIC are emulated by
 * decoding the faulting MOV from the bytes at CS:RIP, in the guest's code
 * size (no decode assists needed); anything else stops the VM with the
 * address named.
 */
#include "exit_dispatch.h"
#include "lib/guest_abi.h"
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

/*
 * The xAPIC registers are 32 bits wide at 16-byte strides (SDM Vol 3
 * §11.4.1); narrower reads see part of one, other writes are dropped.
 * With the page not decoded (APIC disabled or in x2APIC mode) the bus
 * answers: all ones, writes lost.
 */
static void xapic_access(struct vcpu *vcpu, u32 offset, const struct mmio_insn *insn, u64 *reg)
{
	u32 val = ~0u;

	if (insn->write) {
		u64 v = insn->has_imm ? insn->imm : mmio_write_value(insn, *reg);

		if (insn->size == 4 && !(offset & 0xf))
			apic_mmio_write(vcpu, offset, (u32)v);
		return;
	}
	if (!apic_mmio_read(vcpu, offset & ~3u, &val))
		val = ~0u;
	*reg = mmio_merge_read(insn, *reg, (u64)val >> ((offset & 3) * 8));
}

/* The I/O APIC's window: 32-bit registers (82093AA §3.1); a narrower
 * read sees part of one, a narrower write reaches only IOREGSEL. */
static void ioapic_access(struct vcpu *vcpu, u32 offset, const struct mmio_insn *insn, u64 *reg)
{
	if (insn->write) {
		u64 v = insn->has_imm ? insn->imm : mmio_write_value(insn, *reg);

		if (!(offset & 3) && (insn->size == 4 || offset == IOAPIC_IOREGSEL))
			ioapic_mmio_write(vcpu, offset, (u32)v);
		return;
	}
	*reg = mmio_merge_read(insn, *reg,
			       (u64)ioapic_mmio_read(vcpu, offset & ~3u) >> ((offset & 3) * 8));
}

/* The test device's registers: only the scratch register is writable;
 * narrow writes merge into it, the ID register ignores writes. */
static inline __attribute__((always_inline)) void
test_device_access(struct vm *vm, u64 offset, const struct mmio_insn *insn, u64 *reg)
{
	if (insn->write) {
		u64 val = insn->has_imm ? insn->imm : mmio_write_value(insn, *reg);

		if (offset >= MMIO_REG_SCRATCH && offset + insn->size <= MMIO_REG_SCRATCH + 8) {
			unsigned shift = (offset - MMIO_REG_SCRATCH) * 8;
			u64 field =
			    insn->size == 8 ? ~0ull : ((1ull << (insn->size * 8)) - 1) << shift;

			vm->mmio_scratch = (vm->mmio_scratch & ~field) | ((val << shift) & field);
		}
	} else {
		u64 aligned = offset & ~7ull, shift = (offset & 7) * 8;

		*reg = mmio_merge_read(insn, *reg, mmio_dev_read(vm, aligned) >> shift);
	}
}

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
 * xAPIC page, the I/O APIC, code in any mode (external guests), and accesses to
 * nothing, which stop the VM.
 */
static __attribute__((noinline)) void npf_slow(struct vcpu *vcpu, const struct vm_exit *exit)
{
	u64 gpa = exit->npf.gpa, offset = gpa - GUEST_MMIO_BASE;
	bool device = offset < GUEST_MMIO_SIZE;
	bool xapic = gpa - APIC_DEFAULT_BASE < APIC_MMIO_SIZE;
	bool ioapic = gpa - IOAPIC_DEFAULT_BASE < IOAPIC_MMIO_SIZE;
	struct mmio_insn insn;
	unsigned code_bits;
	u8 bytes[15];
	size_t n;
	u64 *reg;

	if ((!device && !xapic && !ioapic) || exit->npf.fetch) {
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
	reg = &vcpu->regs.gpr[insn.reg];
	if (xapic)
		xapic_access(vcpu, (u32)(gpa - APIC_DEFAULT_BASE), &insn, reg);
	else if (ioapic)
		ioapic_access(vcpu, (u32)(gpa - IOAPIC_DEFAULT_BASE), &insn, reg);
	else
		test_device_access(vcpu->vm, offset, &insn, reg);
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
	test_device_access(vcpu->vm, offset, &insn, &vcpu->regs.gpr[insn.reg]);
	vcpu->regs.rip += insn.len;
	vcpu_insn_completed(vcpu);
}
