// SPDX-License-Identifier: MIT
/* The 8254 (see pit.h), after the Intel 82C54 data sheet. */
#include "pit.h"
#include "lib/nospec.h"

/* Port 0x61 (PC/AT System Control Port B) */
#define PORT_B_GATE2 BIT(0)
#define PORT_B_WRITABLE 0x0f  /* gate, speaker data, parity and IOCHK enables */
#define PORT_B_REFRESH BIT(4) /* toggles every 15.085 us on a PC */
#define PORT_B_OUT2 BIT(5)
#define REFRESH_TICKS 18 /* PIT ticks in 15.085 us */

/* Control word (82C54 "Control Word Format") and read-back command */
#define CW_CHANNEL_SHIFT 6
#define CW_READ_BACK 3
#define CW_ACCESS_SHIFT 4
#define CW_MODE_SHIFT 1
#define CW_STATUS_BITS 0x3f /* what the status byte repeats of it */
#define RB_NO_COUNT BIT(5)  /* read-back: do not latch the count */
#define RB_NO_STATUS BIT(4) /* ... nor the status */
#define RB_CH0 BIT(1)	    /* channel n: BIT(1 + n) */
#define STATUS_OUT BIT(7)
#define STATUS_NULL_COUNT BIT(6)

/*
 * IRQ0 comes at most every 200 us (239 ticks at 1.193182 MHz) in the
 * periodic modes: a count of 1 would otherwise be an interrupt, and a host
 * timer exit, every 838 ns.  KVM limits its i8254 to the same
 * (arch/x86/kvm/i8254.c create_pit_timer, min_timer_period_us = 200).
 * The counter and OUT keep the count's rate.
 */
#define PIT_MIN_IRQ_PERIOD 239

void pit_reset(struct pit *p)
{
	unsigned i;

	__builtin_memset(p, 0, sizeof(*p));
	for (i = 0; i < PIT_CHANNELS; i++)
		p->ch[i].access = 3;
	/* a PC ties the gates of channels 0 and 1 high; channel 2's is port 0x61's */
	p->ch[0].gate = p->ch[1].gate = true;
}

static u64 period(const struct pit_counter *c)
{
	return c->count ? c->count : 0x10000;
}

/* Ticks counted since the count was loaded: none before, held while the
 * gate is low. */
static u64 elapsed(const struct pit_counter *c, u64 now)
{
	if (!c->loaded)
		return 0;
	if (!c->gate)
		return c->held;
	return now - c->start;
}

static bool periodic(const struct pit_counter *c)
{
	return (c->mode & 3) == 2 || (c->mode & 3) == 3;
}

/* Modes 4 and 5, the strobes: OUT low for the one tick at terminal count. */
static bool strobe(const struct pit_counter *c)
{
	return c->mode == 4 || c->mode == 5;
}

u16 pit_counter(const struct pit_counter *c, u64 now)
{
	u64 e = elapsed(c, now);

	if (!c->loaded)
		return c->count;
	if (periodic(c))
		return (u16)(period(c) - e % period(c));
	/* modes 0, 1, 4, 5: down from the count, wrapping past 0 */
	return (u16)(period(c) - e);
}

bool pit_out(const struct pit_counter *c, u64 now)
{
	u64 e = elapsed(c, now);

	if (!c->loaded)
		return c->mode != 0; /* mode 0: low from the control word on */
	if ((c->mode & 3) == 3)	     /* square wave: high for the first half */
		return e % period(c) < (period(c) + 1) / 2;
	if ((c->mode & 3) == 2) /* rate generator: low for the last tick */
		return e % period(c) != period(c) - 1;
	if (strobe(c))
		return e != period(c);
	return e >= period(c); /* modes 0 and 1: high from terminal count on */
}

static void latch_count(struct pit_counter *c, u64 now)
{
	if (!c->latched) { /* a second latch before the read is ignored */
		c->latch = pit_counter(c, now);
		c->latched = true;
	}
}

static void read_back(struct pit *p, u8 val, u64 now)
{
	unsigned i;

	for (i = 0; i < PIT_CHANNELS; i++) {
		struct pit_counter *c = &p->ch[i];

		if (!(val & (RB_CH0 << i)))
			continue;
		if (!(val & RB_NO_STATUS) && !c->status_latched) {
			c->status = (u8)(c->cw | (pit_out(c, now) ? STATUS_OUT : 0) |
					 (c->loaded ? 0 : STATUS_NULL_COUNT));
			c->status_latched = true;
		}
		if (!(val & RB_NO_COUNT))
			latch_count(c, now);
	}
}

static void control(struct pit *p, u8 val, u64 now)
{
	u8 access = (val >> CW_ACCESS_SHIFT) & 3, channel = val >> CW_CHANNEL_SHIFT;
	struct pit_counter *c;

	if (channel == CW_READ_BACK) {
		read_back(p, val, now);
		return;
	}
	c = &p->ch[array_index_nospec(channel, PIT_CHANNELS)];
	if (!access) { /* counter latch command */
		latch_count(c, now);
		return;
	}
	c->cw = val & CW_STATUS_BITS;
	c->access = access;
	c->mode = (val >> CW_MODE_SHIFT) & 7;
	c->loaded = false;
	c->latched = false;
	c->status_latched = false;
	c->write_msb = false;
	c->read_msb = false;
}

static void pit_counter_load(struct pit_counter *c, u16 count, u64 now)
{
	c->count = count;
	c->loaded = true;
	c->start = now;
	c->held = 0;
	c->edges = 0;
}

static void pit_data_write(struct pit_counter *c, u8 val, u64 now)
{
	if (c->access == 1) {
		pit_counter_load(c, val, now);
	} else if (c->access == 2) {
		pit_counter_load(c, (u16)(val << 8), now);
	} else if (!c->write_msb) {
		c->lsb = val;
		c->write_msb = true;
		c->loaded = c->mode == 0 ? false : c->loaded; /* mode 0 stops on the LSB */
	} else {
		c->write_msb = false;
		pit_counter_load(c, (u16)(c->lsb | val << 8), now);
	}
}

static u8 pit_data_read(struct pit_counter *c, u64 now)
{
	u16 v;
	bool msb;

	if (c->status_latched) { /* a latched status comes first */
		c->status_latched = false;
		return c->status;
	}
	v = c->latched ? c->latch : pit_counter(c, now);
	msb = c->access == 2 || (c->access == 3 && c->read_msb);
	if (c->access == 3)
		c->read_msb = !c->read_msb;
	/* the latch holds until read whole */
	if (c->latched && (c->access != 3 || !c->read_msb))
		c->latched = false;
	return msb ? (u8)(v >> 8) : (u8)v;
}

static void set_gate(struct pit_counter *c, bool gate, u64 now)
{
	if (gate == c->gate)
		return;
	if (!gate) {
		c->held = now - c->start;
	} else if (periodic(c) || c->mode == 1 || c->mode == 5) {
		/* a rising gate restarts a periodic count and triggers a one-shot */
		c->start = now;
		c->held = 0;
		c->edges = 0;
	} else {
		c->start = now - c->held; /* modes 0 and 4 go on where they stopped */
	}
	c->gate = gate;
}

u8 pit_read(struct pit *p, u16 port, u64 now)
{
	struct pit_counter *c2 = &p->ch[2];

	if (port >= PIT_CH0_PORT && port < PIT_CONTROL_PORT)
		return pit_data_read(&p->ch[array_index_nospec(port - PIT_CH0_PORT, PIT_CHANNELS)],
				     now);
	if (port == PIT_PORT_B)
		return (u8)((c2->gate ? PORT_B_GATE2 : 0) | (p->port_b & ~PORT_B_GATE2) |
			    ((now / REFRESH_TICKS) & 1 ? PORT_B_REFRESH : 0) |
			    (pit_out(c2, now) ? PORT_B_OUT2 : 0));
	return 0xff; /* the control port is write-only */
}

void pit_write(struct pit *p, u16 port, u8 val, u64 now)
{
	if (port >= PIT_CH0_PORT && port < PIT_CONTROL_PORT) {
		pit_data_write(&p->ch[array_index_nospec(port - PIT_CH0_PORT, PIT_CHANNELS)], val,
			       now);
	} else if (port == PIT_CONTROL_PORT) {
		control(p, val, now);
	} else if (port == PIT_PORT_B) {
		p->port_b = val & PORT_B_WRITABLE;
		set_gate(&p->ch[2], val & PORT_B_GATE2, now);
	}
}

/*
 * OUT rises at the end of each period in modes 2 and 3 (the reload), at
 * terminal count in mode 0 and one tick after it in mode 4: rising edge
 * number k comes at k * period (+1 for the strobe).  Channel 0's gate is
 * high, so modes 1 and 5 (gate-triggered) never start.
 */
bool pit_irq0(struct pit *p, u64 now, u64 *next)
{
	struct pit_counter *c = &p->ch[0];
	u64 per = period(c), e, k;
	bool fired;

	*next = 0;
	if (!c->loaded || !c->gate || c->mode == 1 || c->mode == 5)
		return false;
	e = elapsed(c, now);
	if (periodic(c)) {
		if (per < PIT_MIN_IRQ_PERIOD)
			per = PIT_MIN_IRQ_PERIOD;
		k = e / per;
		fired = k > c->edges;
		c->edges = k;
		*next = c->start + (k + 1) * per;
		return fired;
	}
	per += c->mode == 4;
	fired = e >= per && !c->edges;
	if (e >= per)
		c->edges = 1;
	else
		*next = c->start + per;
	return fired;
}
