/* SPDX-License-Identifier: MIT */
/*
 * The 8254 PIT after the Intel 82C54 data sheet: three counters of one
 * model (control word, counter latch, read-back with status, LSB/MSB
 * access, modes 0-5 in binary), wired as on a PC: channel 0's gate tied
 * high and its OUT the timer interrupt (IRQ0), channel 1 (once DRAM
 * refresh) with nothing on its OUT, channel 2's gate and OUT in port 0x61
 * (System Control Port B), what an OS calibrates the TSC against.  Its
 * clock is the caller's: PIT ticks (1.193182 MHz) now.  BCD counting is
 * not offered (the BCD bit reads back in the status, the count is binary).
 * Pure.
 */
#ifndef MHV_PIT_H
#define MHV_PIT_H

#include "lib/types.h"

#define PIT_CH0_PORT 0x40
#define PIT_CH2_PORT 0x42
#define PIT_CONTROL_PORT 0x43
#define PIT_PORT_B 0x61
#define PIT_HZ 1193182
#define PIT_CHANNELS 3

/* One counter: the same for every channel. */
struct pit_counter {
	u8 cw;		     /* control word bits 5:0 (access, mode, BCD): the status */
	u8 mode;	     /* 0..5 */
	u8 access;	     /* control word bits 5:4: 1 LSB, 2 MSB, 3 LSB then MSB */
	bool write_msb;	     /* the next data write is the MSB (access 3) */
	bool read_msb;	     /* the next data read is the MSB (access 3) */
	bool latched;	     /* a counter latch command holds @latch */
	bool status_latched; /* a read-back command holds @status */
	bool loaded;	     /* a count was written since the control word */
	bool gate;
	u16 count; /* the initial count, 0 meaning 65536 */
	u16 latch;
	u8 status;
	u8 lsb;	   /* the LSB written before the MSB */
	u64 start; /* tick counting started from (or resumed, less the ticks before) */
	u64 held;  /* ticks counted when the gate went low in mode 0 */
	u64 edges; /* rising edges of OUT reported by pit_irq0 since the load */
};

struct pit {
	struct pit_counter ch[PIT_CHANNELS];
	u8 port_b; /* port 0x61 bits 1-3 as written */
};

void pit_reset(struct pit *p);
/* Ports 0x40-0x43 (data of channels 0-2, control) and 0x61 (channel 2's
 * gate, speaker, refresh toggle, OUT2). */
u8 pit_read(struct pit *p, u16 port, u64 now);
void pit_write(struct pit *p, u16 port, u8 val, u64 now);
/* A counter's value and OUT now. */
u16 pit_counter(const struct pit_counter *c, u64 now);
bool pit_out(const struct pit_counter *c, u64 now);
/*
 * Channel 0's OUT as an edge-triggered IRQ0: true when OUT rose since the
 * last call (several periods missed count as one: no storm after a long
 * pause; in modes 2 and 3 at most one per 200 us, however small the
 * count); *next = the tick of its next rising edge, 0 when none comes
 * (mode 0 after its terminal count, no count loaded).
 */
bool pit_irq0(struct pit *p, u64 now, u64 *next);

#endif
