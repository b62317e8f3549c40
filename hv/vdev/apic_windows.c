// SPDX-License-Identifier: MIT
/*
 * The APICs' MMIO windows on the bus: the decoded MOV becomes register
 * reads and writes of the xAPIC page (of the vCPU that accesses it) and
 * of the I/O APIC.
 */
#include "board.h"
#include "board_devices.h"
#include "vapic.h"
#include "core/vm.h"

/*
 * The xAPIC registers are 32 bits wide at 16-byte strides (SDM Vol 3
 * §11.4.1); narrower reads see part of one, other writes are dropped.
 * With the page not decoded (APIC disabled or in x2APIC mode) the bus
 * answers: all ones, writes lost.
 */
void xapic_access(void *dev, struct vcpu *vcpu, u64 offset, const struct mmio_insn *insn, u64 *reg)
{
	u32 val = ~0u;

	if (insn->write) {
		u64 v = insn->has_imm ? insn->imm : mmio_write_value(insn, *reg);

		if (insn->size == 4 && !(offset & 0xf))
			apic_mmio_write(vcpu, (u32)offset, (u32)v);
		return;
	}
	if (!apic_mmio_read(vcpu, (u32)offset & ~3u, &val))
		val = ~0u;
	*reg = mmio_merge_read(insn, *reg, (u64)val >> ((offset & 3) * 8));
}

/* The I/O APIC's window: 32-bit registers (82093AA §3.1); a narrower
 * read sees part of one, a narrower write reaches only IOREGSEL. */
void ioapic_access(void *dev, struct vcpu *vcpu, u64 offset, const struct mmio_insn *insn, u64 *reg)
{
	if (insn->write) {
		u64 v = insn->has_imm ? insn->imm : mmio_write_value(insn, *reg);

		if (!(offset & 3) && (insn->size == 4 || offset == IOAPIC_IOREGSEL))
			ioapic_mmio_write(vcpu, (u32)offset, (u32)v);
		return;
	}
	*reg = mmio_merge_read(
	    insn, *reg, (u64)ioapic_mmio_read(vcpu, (u32)offset & ~3u) >> ((offset & 3) * 8));
}
