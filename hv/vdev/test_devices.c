// SPDX-License-Identifier: MIT
/*
 * The devices guests use to talk to their harness, on the bus: the
 * exit benchmarks' port and MMIO window (whose registers live in struct
 * vm, where the fast exit paths read them inline), the exit ports of
 * QEMU and Bochs, and pc-testdev's interrupt lines.
 */
#include "board.h"
#include "board_devices.h"
#include "shutdown_port.h"
#include "core/test_mmio.h"
#include "core/vm.h"
#include "lib/guest_abi.h"

/* An access at byte @offset sees the register from that byte up. */
u32 test_port_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	const struct vm *vm = dev;

	return vm->test_port_value >> (offset * 8);
}

void test_port_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct vm *vm = dev;
	u32 mask;

	/* the whole register, as the exit benchmark writes it */
	if (likely(size == 4 && !offset)) {
		vm->test_port_value = val;
		return;
	}
	mask = (size == 4 ? ~0u : (1u << (size * 8)) - 1) << (offset * 8);
	vm->test_port_value = (vm->test_port_value & ~mask) | ((val << (offset * 8)) & mask);
}

/* The write-only ports read as an empty ISA port does. */
static u32 write_only_in(void)
{
	return ~0u;
}

/* isa-debug-exit's port (QEMU, kvm-unit-tests): the value is the exit code. */
u32 exit_port_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	return write_only_in();
}

void exit_port_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	vm_stop_exit(dev, val, "guest wrote %u to the exit port 0x%x", val, GUEST_EXIT_PORT);
}

/*
 * Bochs' shutdown port: the string "Shutdown" written a byte at a time.
 * Each vCPU matches its own bytes (its CPU alone writes its count: no
 * lock, and two vCPUs' writes never make one word).
 */
u32 shutdown_port_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	return write_only_in();
}

void shutdown_port_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	vcpu->shutdown_match = shutdown_port_match(vcpu->shutdown_match, (u8)val);
	if (vcpu->shutdown_match == SHUTDOWN_PORT_WORD_LEN)
		vm_stop(dev, VM_STOP_EXIT, "guest wrote \"Shutdown\" to port 0x%x",
			GUEST_SHUTDOWN_PORT);
}

/* pc-testdev's lines: bit 0 of a write sets pin (port - base) of the
 * I/O APIC, for the vCPU that wrote it. */
u32 irq_lines_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	return write_only_in();
}

void irq_lines_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	ioapic_set_line(vcpu, offset, val & 1);
}

void test_mmio_access(void *dev, struct vcpu *vcpu, u64 offset, const struct mmio_insn *insn,
		      u64 *reg)
{
	test_mmio_reg_access(dev, offset, insn, reg);
}
