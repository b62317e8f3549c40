// SPDX-License-Identifier: MIT
/*
 * Guest port I/O.  Every port exits (the I/O permission map is all ones);
 * the emulated devices are a table of port ranges.  A port with no device
 * reads as all ones and ignores writes, as an empty ISA port does.
 */
#include "exit_dispatch.h"
#include "vdev/fw_cfg.h"
#include "lib/guest_abi.h"
#include "vdev/guest_console.h"
#include "platform/tsc.h"
#include "vcpu.h"
#include "arch/uart.h"
#include "arch/x86.h"
#include "arch/ports.h"

struct port_device {
	u16 base, count;
	u32 (*in)(struct vm *vm, u16 offset, u8 size);
	void (*out)(struct vm *vm, u16 offset, u8 size, u32 val);
};

/* With LCR.DLAB set, offset 0 is the divisor latch, not the transmitter:
 * a guest setting its baud rate prints nothing (PC16550D data sheet,
 * Table II). */
static u32 serial_in(struct vm *vm, u16 offset, u8 size)
{
	if (offset == UART_LCR)
		return vm->serial_lcr;
	return offset == UART_LSR ? UART_LSR_IDLE : 0;
}

static void serial_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
	if (offset == UART_LCR)
		vm->serial_lcr = (u8)val;
	else if (offset == UART_THR && !(vm->serial_lcr & UART_LCR_DLAB))
		guest_console_putc(vm, (char)val);
}

/* An access at byte @offset sees the register from that byte up. */
static u32 test_port_in(struct vm *vm, u16 offset, u8 size)
{
	return vm->test_port_value >> (offset * 8);
}

static void test_port_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
	u32 mask = (size == 4 ? ~0u : (1u << (size * 8)) - 1) << (offset * 8);

	vm->test_port_value = (vm->test_port_value & ~mask) | ((val << (offset * 8)) & mask);
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

/*
 * A PC's reset sources reset the whole machine: here, the VM.  mhv has
 * no firmware to run again at the reset vector (a multiboot kernel is
 * loaded by mhv, not by its own BIOS), so the VM stops with "reset", as
 * QEMU does with -no-reboot, which kvm-unit-tests runs under.
 */
static void reset_vm(struct vm *vm, const char *how)
{
	vm_stop(vm, VM_STOP_RESET, "the guest reset its machine: %s", how);
}

/* The A20 gate is always open: mhv never wraps guest addresses at 1 MiB. */
static u32 sysctl_a_in(struct vm *vm, u16 offset, u8 size)
{
	return vm->sysctl_a | SYSCTL_A_A20;
}

static void sysctl_a_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
	bool rising = (val & ~vm->sysctl_a) & SYSCTL_A_FAST_RESET;

	vm->sysctl_a = (u8)val;
	if (rising)
		reset_vm(vm, "port 0x92 bit 0 (fast reset)");
}

/* Reset Control Register (Intel PCH datasheets, "RST_CNT", I/O 0xCF9):
 * RST_CPU going 0 -> 1 resets, SYS_RST and FULL_RST say how hard.  It
 * reads back as written; RST_CPU is never seen set, since the reset
 * follows at once. */
static u32 rst_cnt_in(struct vm *vm, u16 offset, u8 size)
{
	return vm->rst_cnt;
}

static void rst_cnt_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
	vm->rst_cnt = (u8)val & (RST_CNT_SYS_RST | RST_CNT_FULL_RST);
	if (val & RST_CNT_RST_CPU)
		reset_vm(vm, val & RST_CNT_FULL_RST  ? "0xCF9 full reset"
			     : val & RST_CNT_SYS_RST ? "0xCF9 hard reset"
						     : "0xCF9 soft reset");
}

/*
 * The 8042 as far as a reset goes: it takes every byte at once (IBF
 * clear, so polling guests go on), pulses the reset line on command 0xFE
 * (any 0xF0-0xFF command with bit 0 clear), and has an output port
 * (commands 0xD0/0xD1) whose bit 0 low holds the CPU in reset.  No
 * keyboard: other commands are taken and ignored.
 */
static u32 i8042_in(struct vm *vm, u16 offset, u8 size)
{
	if (offset == I8042_CMD_PORT - I8042_DATA_PORT)
		return I8042_STATUS_SYS | I8042_STATUS_UNLOCKED |
		       (vm->i8042_full ? I8042_STATUS_OBF : 0);
	if (offset)
		return ~0u;
	vm->i8042_full = false;
	return vm->i8042_out;
}

static void i8042_out(struct vm *vm, u16 offset, u8 size, u32 val)
{
	u8 b = (u8)val;

	if (offset == 0) {
		if (vm->i8042_cmd == I8042_CMD_WRITE_OUTPORT && !(b & I8042_OUTPORT_RESET))
			reset_vm(vm, "8042 output port bit 0 (CPU reset) low");
		vm->i8042_cmd = 0;
		return;
	}
	if (offset != I8042_CMD_PORT - I8042_DATA_PORT)
		return;
	vm->i8042_cmd = b == I8042_CMD_WRITE_OUTPORT ? b : 0;
	if (b == I8042_CMD_READ_OUTPORT) {
		vm->i8042_out = I8042_OUTPORT_RESET | I8042_OUTPORT_A20;
		vm->i8042_full = true;
	} else if ((b & 0xf0) == 0xf0 && !(b & I8042_OUTPORT_RESET)) {
		reset_vm(vm, "8042 command 0xFE (pulse reset)");
	}
}

static const struct port_device port_devices[] = {
	{ GUEST_SERIAL_PORT, 8, serial_in, serial_out },
	{ GUEST_TEST_PORT, 4, test_port_in, test_port_out },
	{ GUEST_PM_TIMER_PORT, 4, pm_timer_in, ignore_out },
	{ GUEST_EXIT_PORT, 4, write_only_in, exit_port_out },
	{ FW_CFG_SELECTOR_PORT, 2, fw_cfg_in, fw_cfg_out },
	{ GUEST_SHUTDOWN_PORT, 1, write_only_in, shutdown_port_out },
	{ SYSCTL_A_PORT, 1, sysctl_a_in, sysctl_a_out },
	{ RESET_CONTROL_PORT, 1, rst_cnt_in, rst_cnt_out },
	{ I8042_DATA_PORT, 5, i8042_in, i8042_out },
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
	}
	vcpu_skip_insn(vcpu, exit);
}
