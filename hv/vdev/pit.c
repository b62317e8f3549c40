// SPDX-License-Identifier: MIT
/* Channel 2 of the 8254 (see pit.h), after the Intel 82C54 data sheet. */
#include "pit.h"

/* Port 0x61 (PC/AT System Control Port B) */
#define PORT_B_GATE2 BIT(0)
#define PORT_B_WRITABLE 0x0f  /* gate, speaker data, parity and IOCHK enables */
#define PORT_B_REFRESH BIT(4) /* toggles every 15.085 us on a PC */
#define PORT_B_OUT2 BIT(5)
#define REFRESH_TICKS 18 /* PIT ticks in 15.085 us */

/* Control word (82C54 "Control Word Format") */
#define CW_CHANNEL_SHIFT 6
#define CW_READ_BACK 3
#define CW_ACCESS_SHIFT 4
#define CW_MODE_SHIFT 1
#define RB_NO_COUNT BIT(5) /* read-back: do not latch the count */
#define RB_CH2 BIT(3)

void pit2_reset(struct pit2 *p)
{
	__builtin_memset(p, 0, sizeof(*p));
	p->access = 3;
}

static u64 period(const struct pit2 *p)
{
	return p->count ? p->count : 0x10000;
}

/* Ticks counted since the count was loaded: none before, held while a
 * mode 0 gate is low. */
static u64 elapsed(const struct pit2 *p, u64 now)
{
	if (!p->loaded)
		return 0;
	if (!p->gate)
		return p->held;
	return now - p->start;
}

static bool periodic(const struct pit2 *p)
{
	return (p->mode & 3) == 2 || (p->mode & 3) == 3;
}

u16 pit2_counter(const struct pit2 *p, u64 now)
{
	u64 e = elapsed(p, now);

	if (!p->loaded)
		return p->count;
	if (periodic(p))
		return (u16)(period(p) - e % period(p));
	/* mode 0 and the one-shots: down from the count, wrapping past 0 */
	return (u16)(period(p) - e);
}

bool pit2_out(const struct pit2 *p, u64 now)
{
	u64 e = elapsed(p, now);

	if (!p->loaded)
		return p->mode != 0; /* mode 0: low from the control word on */
	if ((p->mode & 3) == 3)	     /* square wave: high for the first half */
		return e % period(p) < (period(p) + 1) / 2;
	if ((p->mode & 3) == 2) /* rate generator: low for the last tick */
		return e % period(p) != period(p) - 1;
	return e >= period(p);
}

static void control(struct pit2 *p, u8 val, u64 now)
{
	u8 access = (val >> CW_ACCESS_SHIFT) & 3;

	if ((val >> CW_CHANNEL_SHIFT) == CW_READ_BACK) {
		if ((val & RB_CH2) && !(val & RB_NO_COUNT) && !p->latched) {
			p->latch = pit2_counter(p, now);
			p->latched = true;
		}
		return;
	}
	if ((val >> CW_CHANNEL_SHIFT) != 2)
		return;
	if (!access) { /* counter latch command */
		if (!p->latched) {
			p->latch = pit2_counter(p, now);
			p->latched = true;
		}
		return;
	}
	p->access = access;
	p->mode = (val >> CW_MODE_SHIFT) & 7;
	p->loaded = false;
	p->latched = false;
	p->write_msb = false;
	p->read_msb = false;
}

static void load(struct pit2 *p, u16 count, u64 now)
{
	p->count = count;
	p->loaded = true;
	p->start = now;
	p->held = 0;
}

static void data_write(struct pit2 *p, u8 val, u64 now)
{
	if (p->access == 1) {
		load(p, val, now);
	} else if (p->access == 2) {
		load(p, (u16)(val << 8), now);
	} else if (!p->write_msb) {
		p->lsb = val;
		p->write_msb = true;
		p->loaded = p->mode == 0 ? false : p->loaded; /* mode 0 stops on the LSB */
	} else {
		p->write_msb = false;
		load(p, (u16)(p->lsb | val << 8), now);
	}
}

static u8 data_read(struct pit2 *p, u64 now)
{
	u16 v = p->latched ? p->latch : pit2_counter(p, now);
	bool msb = p->access == 2 || (p->access == 3 && p->read_msb);

	if (p->access == 3)
		p->read_msb = !p->read_msb;
	/* the latch holds until read whole */
	if (p->latched && (p->access != 3 || !p->read_msb))
		p->latched = false;
	return msb ? (u8)(v >> 8) : (u8)v;
}

static void set_gate(struct pit2 *p, bool gate, u64 now)
{
	if (gate == p->gate)
		return;
	if (!gate) {
		p->held = now - p->start;
	} else if (periodic(p)) {
		p->start = now; /* a rising gate restarts a periodic count */
		p->held = 0;
	} else if (p->mode == 1 || p->mode == 5) {
		p->start = now; /* and triggers a one-shot */
		p->held = 0;
	} else {
		p->start = now - p->held; /* mode 0 (and 4) go on where they stopped */
	}
	p->gate = gate;
}

u8 pit2_read(struct pit2 *p, u16 port, u64 now)
{
	if (port == PIT_CH2_PORT)
		return data_read(p, now);
	if (port == PIT_PORT_B)
		return (u8)((p->gate ? PORT_B_GATE2 : 0) | (p->port_b & ~PORT_B_GATE2) |
			    ((now / REFRESH_TICKS) & 1 ? PORT_B_REFRESH : 0) |
			    (pit2_out(p, now) ? PORT_B_OUT2 : 0));
	return 0xff; /* the control port is write-only */
}

void pit2_write(struct pit2 *p, u16 port, u8 val, u64 now)
{
	if (port == PIT_CH2_PORT) {
		data_write(p, val, now);
	} else if (port == PIT_CONTROL_PORT) {
		control(p, val, now);
	} else if (port == PIT_PORT_B) {
		p->port_b = val & PORT_B_WRITABLE;
		set_gate(p, val & PORT_B_GATE2, now);
	}
}
