// SPDX-License-Identifier: MIT
/*
 * Guest port I/O.  Every port exits (the I/O permission map is all ones);
 * the emulated devices are a table of port ranges.  A port with no device
 * reads as all ones and ignores writes, as an empty ISA port does.  The
 * interrupt lines of QEMU's pc-testdev (what kvm-unit-tests drives the
 * I/O APIC with) act for the vCPU that wrote them.
 */
#include "exit_dispatch.h"
#include "vdev/fw_cfg.h"
#include "lib/guest_abi.h"
#include "vdev/guest_console.h"
#include "platform/tsc.h"
#include "vcpu.h"
#include "arch/uart.h"
#include "arch/x86.h"

struct port_device {
	u16 base, count;
	u32 (*in)(struct vm *vm, u16 offset, u8 size);
	void (*out)(struct vm *vm, u16 offset, u8 size, u32 val);
};

static u32 serial_in(struct vm *vm, u16 offset, u8 size)
{
	return offset == UART_LSR ? UART_LSR_IDLE : 0;
}

static void serial_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
	if (offset == UART_THR)
		guest_console_putc(vm, (char)val);
}

static u32 test_port_in(struct vm *vm, u16 offset, u8 size)
{
	return ~vm->test_port_value;
}

static void test_port_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
	vm->test_port_value = val;
}

/* 24-bit, 3.579545 MHz, read-only (ACPI 6.5 §4.8.3.3), derived from the TSC */
static u32 pm_timer_in(struct vm *vm, u16 offset, u8 size)
{
	return tsc_to_pm_timer(rdtsc());
}

static void ignore_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
}

static u32 write_only_in(struct vm *vm, u16 offset, u8 size)
{
	return ~0u;
}

static u32 fw_cfg_in(struct vm *vm, u16 offset, u8 size)
{
	return offset == 1 ? fw_cfg_read(&vm->fw_cfg) : ~0u;
}

static void fw_cfg_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
	if (offset == 0)
		fw_cfg_select(&vm->fw_cfg, (u16)val);
}

/* isa-debug-exit's port (QEMU, kvm-unit-tests): the value is the exit code. */
static void exit_port_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
	vm->exit_code = val;
	vm_stop(vm, VM_STOP_EXIT, "guest wrote %u to the exit port 0x%x", val, GUEST_EXIT_PORT);
}

/* Bochs' shutdown port: the string "Shutdown" written a byte at a time. */
static void shutdown_port_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
	static const char word[] = "Shutdown";

	vm->shutdown_match =
	    (char)val == word[vm->shutdown_match] ? vm->shutdown_match + 1 : (char)val == word[0];
	if (vm->shutdown_match == sizeof(word) - 1)
		vm_stop(vm, VM_STOP_EXIT, "guest wrote \"Shutdown\" to port 0x%x",
			GUEST_SHUTDOWN_PORT);
}

static const struct port_device port_devices[] = {
	{ GUEST_SERIAL_PORT, 8, serial_in, serial_out },
	{ GUEST_TEST_PORT, 4, test_port_in, test_port_out },
	{ GUEST_PM_TIMER_PORT, 4, pm_timer_in, ignore_out },
	{ GUEST_EXIT_PORT, 4, write_only_in, exit_port_out },
	{ FW_CFG_SELECTOR_PORT, 2, fw_cfg_in, fw_cfg_out },
	{ GUEST_SHUTDOWN_PORT, 1, write_only_in, shutdown_port_out },
};

void handle_io(struct vcpu *vcpu, const struct vm_exit *exit)
{
	u16 port = exit->io.port;
	u8 size = exit->io.size;
	u32 mask = size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
	u64 *rax = &vcpu->regs.gpr[GPR_RAX];
	const struct port_device *dev = NULL;
	u32 val = mask;
	unsigned i;

	if (exit->io.string) {
		vm_stop(vcpu->vm, VM_STOP_UNHANDLED,
			"string I/O (INS/OUTS) to port 0x%x is not emulated (rip 0x%llx)", port,
			vcpu->regs.rip);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(port_devices); i++) {
		if ((u16)(port - port_devices[i].base) < port_devices[i].count) {
			dev = &port_devices[i];
			break;
		}
	}
	if (exit->io.in) {
		if (dev)
			val = dev->in(vcpu->vm, port - dev->base, size) & mask;
		/* IN to EAX zero-extends; to AL/AX it merges (SDM Vol 3 §3.4.1.1) */
		*rax = size == 4 ? val : (*rax & ~(u64)mask) | val;
	} else if (dev) {
		dev->out(vcpu->vm, port - dev->base, size, (u32)*rax & mask);
	} else if ((u16)(port - GUEST_IRQ_LINE_PORT) < IOAPIC_PINS) {
		/* interrupt lines (write-only): the I/O APIC acts for this vCPU */
		ioapic_set_line(vcpu, port - GUEST_IRQ_LINE_PORT, *rax & 1);
	}
	vcpu_skip_insn(vcpu, exit);
}
