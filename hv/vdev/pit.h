/* SPDX-License-Identifier: MIT */
/*
 * The 8254 PIT's channel 2 and its gate in port 0x61 (System Control Port
 * B), what an OS calibrates the TSC against on a PC (Intel 82C54 data
 * sheet: control word, counter latch, read/write of LSB/MSB, mode 0
 * "interrupt on terminal count", modes 2 and 3 as periodic counts).  Its
 * clock is the caller's: PIT ticks (1.193182 MHz) now.  Channels 0 and 1
 * are not offered (no timer interrupt from the PIT: the guest has the
 * local APIC timer).  Pure.
 */
#ifndef MHV_PIT_H
#define MHV_PIT_H

#include "lib/types.h"

#define PIT_CH2_PORT 0x42
#define PIT_CONTROL_PORT 0x43
#define PIT_PORT_B 0x61
#define PIT_HZ 1193182

struct pit2 {
	u8 mode;	/* 0..5 */
	u8 access;	/* control word bits 5:4: 1 LSB, 2 MSB, 3 LSB then MSB */
	bool write_msb; /* the next data write is the MSB (access 3) */
	bool read_msb;	/* the next data read is the MSB (access 3) */
	bool latched;	/* a counter latch command holds @latch */
	bool loaded;	/* a count was written since the control word */
	bool gate;	/* port 0x61 bit 0 */
	u8 port_b;	/* port 0x61 bits 1-3 as written */
	u16 count;	/* the initial count, 0 meaning 65536 */
	u16 latch;
	u8 lsb;	   /* the LSB written before the MSB */
	u64 start; /* tick counting started from (or resumed, less the ticks before) */
	u64 held;  /* ticks counted when the gate went low in mode 0 */
};

void pit2_reset(struct pit2 *p);
/* Ports 0x42 (channel 2 data), 0x43 (control; other channels ignored) and
 * 0x61 (gate, speaker, refresh toggle, OUT2). */
u8 pit2_read(struct pit2 *p, u16 port, u64 now);
void pit2_write(struct pit2 *p, u16 port, u8 val, u64 now);
/* The counter's value and OUT now. */
u16 pit2_counter(const struct pit2 *p, u64 now);
bool pit2_out(const struct pit2 *p, u64 now);

#endif
