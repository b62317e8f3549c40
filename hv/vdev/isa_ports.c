// SPDX-License-Identifier: MIT
/*
 * The ISA devices' ports: COM1, the 8254 and port 0x61, the CMOS clock
 * and fw_cfg.  Each model is pure (vdev/uart16550.c, pit.c, rtc_cmos.c,
 * fw_cfg.c) and is called here under its lock with the time now.
 */
#include "board.h"
#include "board_devices.h"
#include "guest_console.h"
#include "pit_timer.h"
#include "core/vm.h"
#include "platform/tsc.h"
#include "arch/uart.h"
#include "arch/x86.h"

/* COM1: the 16550A, its IRQ line to the I/O APIC after every access.
 * mhv's own guests only write THR and poll LSR, which the UART serves. */
u32 com1_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	struct board *b = dev;
	u32 v;

	spin_lock(&b->com1_lock);
	v = uart_read(&b->com1, (u8)offset);
	spin_unlock(&b->com1_lock);
	ioapic_set_line(vcpu, UART_COM1_IRQ, uart_irq(&b->com1));
	return v;
}

void com1_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct board *b = dev;
	int tx;

	spin_lock(&b->com1_lock);
	tx = uart_write(&b->com1, (u8)offset, (u8)val);
	spin_unlock(&b->com1_lock);
	if (tx >= 0)
		guest_console_putc(vcpu->vm, (char)tx);
	ioapic_set_line(vcpu, UART_COM1_IRQ, uart_irq(&b->com1));
}

/* The 8254 and port 0x61 under the board's lock, at the PIT's time now. */
static u8 pit_in_at(struct board *b, u16 port)
{
	u8 v;

	spin_lock(&b->pit_lock);
	v = pit_read(&b->pit, port, tsc_to_pit_ticks(rdtsc()));
	spin_unlock(&b->pit_lock);
	return v;
}

static void pit_out_at(struct board *b, u16 port, u8 val)
{
	spin_lock(&b->pit_lock);
	pit_write(&b->pit, port, val, tsc_to_pit_ticks(rdtsc()));
	spin_unlock(&b->pit_lock);
}

/* The 8254: channel 0 the timer interrupt, channel 2 what Linux
 * calibrates the TSC against.  A write may change when IRQ0 comes. */
u32 pit_port_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	return pit_in_at(dev, PIT_CH0_PORT + offset);
}

void pit_port_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	pit_out_at(dev, PIT_CH0_PORT + offset, (u8)val);
	pit_timer_claim(vcpu);
}

u32 port_b_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	return pit_in_at(dev, PIT_PORT_B);
}

void port_b_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	pit_out_at(dev, PIT_PORT_B, (u8)val);
}

/* The CMOS clock and RAM at 0x70 (index) and 0x71 (data). */
u32 rtc_port_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	struct board *b = dev;
	u8 v;

	spin_lock(&b->rtc_lock);
	v = rtc_read(&b->rtc, RTC_INDEX_PORT + offset, tsc_to_pit_ticks(rdtsc()));
	spin_unlock(&b->rtc_lock);
	return v;
}

void rtc_port_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct board *b = dev;

	spin_lock(&b->rtc_lock);
	rtc_write(&b->rtc, RTC_INDEX_PORT + offset, (u8)val, tsc_to_pit_ticks(rdtsc()));
	spin_unlock(&b->rtc_lock);
}

/* fw_cfg's selector (a 16-bit write) and data port (bytes). */
u32 fw_cfg_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	struct board *b = dev;

	return offset == 1 ? fw_cfg_read(&b->fw_cfg) : ~0u;
}

void fw_cfg_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct board *b = dev;

	if (offset == 0)
		fw_cfg_select(&b->fw_cfg, (u16)val);
}
