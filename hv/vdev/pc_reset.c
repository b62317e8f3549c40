// SPDX-License-Identifier: MIT
/*
 * A PC's reset sources reset the whole machine: here, the VM.  mhv has
 * no firmware to run again at the reset vector (a multiboot kernel is
 * loaded by mhv, not by its own BIOS), so the VM stops with "reset", as
 * QEMU does with -no-reboot, which kvm-unit-tests runs under.
 */
#include "board.h"
#include "board_devices.h"
#include "core/vm.h"
#include "arch/ports.h"

static void reset_vm(struct vm *vm, const char *how)
{
	vm_stop(vm, VM_STOP_RESET, "the guest reset its machine: %s", how);
}

/* The A20 gate is always open: mhv never wraps guest addresses at 1 MiB. */
u32 sysctl_a_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	const struct board *b = dev;

	return b->reset.sysctl_a | SYSCTL_A_A20;
}

void sysctl_a_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct pc_reset *r = &((struct board *)dev)->reset;
	bool rising = (val & ~r->sysctl_a) & SYSCTL_A_FAST_RESET;

	r->sysctl_a = (u8)val;
	if (rising)
		reset_vm(vcpu->vm, "port 0x92 bit 0 (fast reset)");
}

/* Reset Control Register (Intel PCH datasheets, "RST_CNT", I/O 0xCF9):
 * RST_CPU going 0 -> 1 resets, SYS_RST and FULL_RST say how hard.  It
 * reads back as written; RST_CPU is never seen set, since the reset
 * follows at once. */
u32 rst_cnt_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	const struct board *b = dev;

	return b->reset.rst_cnt;
}

void rst_cnt_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct pc_reset *r = &((struct board *)dev)->reset;

	r->rst_cnt = (u8)val & (RST_CNT_SYS_RST | RST_CNT_FULL_RST);
	if (val & RST_CNT_RST_CPU)
		reset_vm(vcpu->vm, val & RST_CNT_FULL_RST  ? "0xCF9 full reset"
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
u32 i8042_cmd_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	const struct board *b = dev;

	/* the status register */
	return I8042_STATUS_SYS | I8042_STATUS_UNLOCKED |
	       (b->reset.i8042_full ? I8042_STATUS_OBF : 0);
}

u32 i8042_data_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	struct pc_reset *r = &((struct board *)dev)->reset;

	r->i8042_full = false;
	return r->i8042_out;
}

void i8042_data_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct pc_reset *r = &((struct board *)dev)->reset;

	if (r->i8042_cmd == I8042_CMD_WRITE_OUTPORT && !(val & I8042_OUTPORT_RESET))
		reset_vm(vcpu->vm, "8042 output port bit 0 (CPU reset) low");
	r->i8042_cmd = 0;
}

void i8042_cmd_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct pc_reset *r = &((struct board *)dev)->reset;
	u8 cmd = (u8)val;

	r->i8042_cmd = cmd == I8042_CMD_WRITE_OUTPORT ? cmd : 0;
	if (cmd == I8042_CMD_READ_OUTPORT) {
		r->i8042_out = I8042_OUTPORT_RESET | I8042_OUTPORT_A20;
		r->i8042_full = true;
	} else if ((cmd & 0xf0) == 0xf0 && !(cmd & I8042_OUTPORT_RESET)) {
		reset_vm(vcpu->vm, "8042 command 0xFE (pulse reset)");
	}
}
