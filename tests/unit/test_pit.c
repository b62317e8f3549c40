// SPDX-License-Identifier: MIT
/* The 8254 and port 0x61 against the 82C54 data sheet: channel 2 and the
 * two ways Linux calibrates the TSC with it (quick_pit_calibrate reads the
 * MSB counting down; pit_calibrate_tsc polls OUT2 in port 0x61), channel
 * 0's OUT as IRQ0 in the modes Linux's i8253 clockevent uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vdev/pit.h"

static struct pit p;

static int setup(void **state)
{
	pit_reset(&p);
	return 0;
}

static uint8_t port_b(uint64_t now)
{
	return pit_read(&p, PIT_PORT_B, now);
}

/* Channel 2, LSB then MSB, mode 0, binary: Linux's 0xb0. */
static void mode0(uint16_t count, uint64_t now)
{
	pit_write(&p, PIT_CONTROL_PORT, 0xb0, now);
	pit_write(&p, PIT_CH2_PORT, (uint8_t)count, now);
	pit_write(&p, PIT_CH2_PORT, (uint8_t)(count >> 8), now);
}

static void mode0_counts_down_and_raises_out(void **state)
{
	pit_write(&p, PIT_PORT_B, 0x01, 100); /* gate high, speaker off */
	mode0(1000, 100);
	assert_int_equal(port_b(100) & 0x21, 0x01); /* OUT2 low, gate high */
	assert_int_equal(pit_counter(&p.ch[2], 400), 700);
	/* reads: LSB then MSB */
	assert_int_equal(pit_read(&p, PIT_CH2_PORT, 400), 700 & 0xff);
	assert_int_equal(pit_read(&p, PIT_CH2_PORT, 400), 700 >> 8);
	assert_false(pit_out(&p.ch[2], 1099));
	assert_int_equal(port_b(1100) & 0x20, 0x20); /* terminal count: OUT2 high */
	/* it wraps and goes on counting; OUT stays high */
	assert_int_equal(pit_counter(&p.ch[2], 1101), 0xffff);
	assert_true(pit_out(&p.ch[2], 5000));
}

static void latch_holds_until_read(void **state)
{
	pit_write(&p, PIT_PORT_B, 0x01, 0);
	mode0(0xffff, 0);
	pit_write(&p, PIT_CONTROL_PORT, 0x80, 0x1234); /* latch channel 2 */
	assert_int_equal(pit_read(&p, PIT_CH2_PORT, 0x2000), (0xffff - 0x1234) & 0xff);
	assert_int_equal(pit_read(&p, PIT_CH2_PORT, 0x3000), (0xffff - 0x1234) >> 8);
	/* after both bytes: live again */
	assert_int_equal(pit_read(&p, PIT_CH2_PORT, 0x3000), (0xffff - 0x3000) & 0xff);
	assert_int_equal(pit_read(&p, PIT_CH2_PORT, 0x3000), (0xffff - 0x3000) >> 8);
	/* read-back command: latch count of channel 2 */
	pit_write(&p, PIT_CONTROL_PORT, 0xd8, 0x10);
	assert_int_equal(pit_read(&p, PIT_CH2_PORT, 0x4000), (0xffff - 0x10) & 0xff);
}

static void gate_low_holds_mode0(void **state)
{
	mode0(100, 0); /* gate low: no counting */
	assert_int_equal(pit_counter(&p.ch[2], 50), 100);
	pit_write(&p, PIT_PORT_B, 0x01, 50);
	assert_int_equal(pit_counter(&p.ch[2], 80), 70);
	pit_write(&p, PIT_PORT_B, 0x00, 80);
	assert_int_equal(pit_counter(&p.ch[2], 500), 70);
	pit_write(&p, PIT_PORT_B, 0x01, 500);
	assert_int_equal(pit_counter(&p.ch[2], 510), 60);
	assert_int_equal(port_b(510) & 0x01, 0x01);
}

static void periodic_modes(void **state)
{
	pit_write(&p, PIT_PORT_B, 0x03, 0);
	pit_write(&p, PIT_CONTROL_PORT, 0xb6, 0); /* mode 3, square wave */
	pit_write(&p, PIT_CH2_PORT, 10, 0);
	pit_write(&p, PIT_CH2_PORT, 0, 0);
	assert_true(pit_out(&p.ch[2], 2));
	assert_false(pit_out(&p.ch[2], 7));
	assert_int_equal(pit_counter(&p.ch[2], 13), 7);
	assert_int_equal(port_b(0) & 0x03, 0x03); /* speaker bit reads back */
	/* other channels' control words leave channel 2 alone */
	pit_write(&p, PIT_CONTROL_PORT, 0x34, 0);
	assert_int_equal(pit_counter(&p.ch[2], 13), 7);
}

static void quick_pit_calibrate_sees_msb_fall(void **state)
{
	uint64_t t = 1000;
	unsigned i;

	pit_write(&p, PIT_PORT_B, (port_b(t) & ~0x02) | 0x01, t);
	mode0(0xffff, t);
	/* Linux reads LSB then MSB and expects the MSB to be 0xff - i after
	 * about 256 * i ticks */
	for (i = 1; i < 20; i++) {
		t += 256;
		pit_read(&p, PIT_CH2_PORT, t);
		assert_int_equal(pit_read(&p, PIT_CH2_PORT, t), 0xff - i);
	}
}

static void refresh_bit_toggles(void **state)
{
	assert_int_not_equal(port_b(0) & 0x10, port_b(18) & 0x10);
}

/* Channel 0: control word (channel 0, LSB then MSB, @mode, binary), count. */
static void ch0(uint8_t mode, uint16_t count, uint64_t now)
{
	pit_write(&p, PIT_CONTROL_PORT, (uint8_t)(0x30 | mode << 1), now);
	pit_write(&p, PIT_CH0_PORT, (uint8_t)count, now);
	pit_write(&p, PIT_CH0_PORT, (uint8_t)(count >> 8), now);
}

/* Linux's periodic tick: mode 2 at LATCH = 1193182 / HZ (250). */
static void ch0_rate_generator_ticks(void **state)
{
	u64 next;

	assert_false(pit_irq0(&p, 0, &next)); /* nothing loaded: no edge, quiet */
	assert_int_equal(next, 0);
	ch0(2, 4773, 1000);
	assert_false(pit_irq0(&p, 1000, &next));
	assert_int_equal(next, 1000 + 4773);
	assert_false(pit_irq0(&p, 1000 + 4772, &next));
	assert_false(pit_out(&p.ch[0], 1000 + 4772)); /* low for the last tick */
	assert_int_equal(pit_counter(&p.ch[0], 1000 + 4772), 1);
	assert_true(pit_irq0(&p, 1000 + 4773, &next));
	assert_true(pit_out(&p.ch[0], 1000 + 4773)); /* the reload: OUT rises */
	assert_int_equal(pit_counter(&p.ch[0], 1000 + 4773), 4773);
	assert_int_equal(next, 1000 + 2 * 4773);
	assert_false(pit_irq0(&p, 1000 + 4800, &next)); /* one edge, one interrupt */
	/* ten periods missed (the host did not run the guest): one interrupt */
	assert_true(pit_irq0(&p, 1000 + 12 * 4773 + 5, &next));
	assert_int_equal(next, 1000 + 13 * 4773);
	assert_false(pit_irq0(&p, 1000 + 12 * 4773 + 6, &next));
	/* the live count reads through port 0x40, LSB then MSB */
	assert_int_equal(pit_read(&p, PIT_CH0_PORT, 1000 + 10), (4773 - 10) & 0xff);
	assert_int_equal(pit_read(&p, PIT_CH0_PORT, 1000 + 10), (4773 - 10) >> 8);
}

static void ch0_square_wave_edges(void **state)
{
	u64 next;

	ch0(3, 1000, 0);
	assert_true(pit_out(&p.ch[0], 499));
	assert_false(pit_out(&p.ch[0], 500));
	assert_false(pit_irq0(&p, 999, &next));
	assert_int_equal(next, 1000);
	assert_true(pit_irq0(&p, 1000, &next));
	assert_int_equal(next, 2000);
}

/*
 * A periodic count of 1 (838 ns) or 2 would be an exit storm: IRQ0 comes
 * at most every 200 us (239 ticks), as KVM's i8254 limits it; the counter
 * and OUT still run at the count's rate.
 */
static void ch0_tiny_period_limited(void **state)
{
	u64 next, t;
	unsigned irqs = 0;

	ch0(2, 1, 0); /* 0 is 65536: the smallest count is 1 */
	assert_false(pit_irq0(&p, 0, &next));
	assert_int_equal(next, 239);
	for (t = 1; t <= 239 * 10; t++)
		irqs += pit_irq0(&p, t, &next);
	assert_int_equal(irqs, 10);
	assert_int_equal(next, 239 * 11);
	ch0(3, 2, 5000);
	assert_false(pit_irq0(&p, 5000, &next));
	assert_int_equal(next, 5000 + 239);
	assert_true(pit_out(&p.ch[0], 5000));
	assert_false(pit_out(&p.ch[0], 5001));
	/* a period just over the minimum is kept as it is */
	ch0(2, 240, 10000);
	assert_false(pit_irq0(&p, 10000, &next));
	assert_int_equal(next, 10000 + 240);
}

/* Mode 0 fires once at terminal count; then OUT stays high and the host
 * timer goes quiet.  Linux's shutdown (control word 0x30, count 0) gives
 * one more edge 65536 ticks later, as on a PC. */
static void ch0_mode0_one_shot_then_quiet(void **state)
{
	u64 next;

	ch0(0, 100, 0);
	assert_false(pit_out(&p.ch[0], 99));
	assert_false(pit_irq0(&p, 99, &next));
	assert_int_equal(next, 100);
	assert_true(pit_irq0(&p, 150, &next));
	assert_int_equal(next, 0);
	assert_false(pit_irq0(&p, 100000, &next));
	assert_int_equal(next, 0);
	/* the control word alone: OUT low, no count, nothing to come */
	pit_write(&p, PIT_CONTROL_PORT, 0x30, 200000);
	assert_false(pit_out(&p.ch[0], 200000));
	assert_false(pit_irq0(&p, 300000, &next));
	assert_int_equal(next, 0);
	pit_write(&p, PIT_CH0_PORT, 0, 300000);
	pit_write(&p, PIT_CH0_PORT, 0, 300000);
	assert_false(pit_irq0(&p, 300001, &next));
	assert_int_equal(next, 300000 + 0x10000);
	assert_true(pit_irq0(&p, 300000 + 0x10000, &next));
	assert_int_equal(next, 0);
}

/* Mode 0 stops counting when the LSB of a new count is written (82C54). */
static void ch0_mode0_lsb_stops_count(void **state)
{
	u64 next;

	ch0(0, 100, 0);
	pit_write(&p, PIT_CH0_PORT, 50, 10);
	assert_false(pit_irq0(&p, 500, &next));
	assert_int_equal(next, 0);
	pit_write(&p, PIT_CH0_PORT, 0, 600);
	assert_false(pit_irq0(&p, 600, &next));
	assert_int_equal(next, 650);
}

/* Mode 4: OUT low for one tick at terminal count, the edge one tick on. */
static void ch0_software_strobe(void **state)
{
	u64 next;

	ch0(4, 10, 0);
	assert_true(pit_out(&p.ch[0], 9));
	assert_false(pit_out(&p.ch[0], 10));
	assert_true(pit_out(&p.ch[0], 11));
	assert_false(pit_irq0(&p, 10, &next));
	assert_int_equal(next, 11);
	assert_true(pit_irq0(&p, 11, &next));
	assert_int_equal(next, 0);
}

/* Read-back (82C54 "Read-Back Command"): status then count, per channel. */
static void read_back_status(void **state)
{
	pit_write(&p, PIT_CONTROL_PORT, 0x34, 0); /* channel 0, mode 2 */
	pit_write(&p, PIT_CONTROL_PORT, 0xe2, 0); /* status of channel 0 */
	/* OUT high (mode 2 before a count), null count, access 3, mode 2 */
	assert_int_equal(pit_read(&p, PIT_CH0_PORT, 0), 0x80 | 0x40 | 0x34);
	pit_write(&p, PIT_CH0_PORT, 0x10, 5);
	pit_write(&p, PIT_CH0_PORT, 0x00, 5);
	pit_write(&p, PIT_CONTROL_PORT, 0xc2, 8); /* status and count of channel 0 */
	assert_int_equal(pit_read(&p, PIT_CH0_PORT, 20), 0x80 | 0x34);
	assert_int_equal(pit_read(&p, PIT_CH0_PORT, 20), 0x10 - 3);
	assert_int_equal(pit_read(&p, PIT_CH0_PORT, 20), 0);
	/* channel 2's counter is untouched by channel 0's commands */
	assert_false(p.ch[2].loaded);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(mode0_counts_down_and_raises_out, setup),
		cmocka_unit_test_setup(latch_holds_until_read, setup),
		cmocka_unit_test_setup(gate_low_holds_mode0, setup),
		cmocka_unit_test_setup(periodic_modes, setup),
		cmocka_unit_test_setup(quick_pit_calibrate_sees_msb_fall, setup),
		cmocka_unit_test_setup(refresh_bit_toggles, setup),
		cmocka_unit_test_setup(ch0_rate_generator_ticks, setup),
		cmocka_unit_test_setup(ch0_square_wave_edges, setup),
		cmocka_unit_test_setup(ch0_tiny_period_limited, setup),
		cmocka_unit_test_setup(ch0_mode0_one_shot_then_quiet, setup),
		cmocka_unit_test_setup(ch0_mode0_lsb_stops_count, setup),
		cmocka_unit_test_setup(ch0_software_strobe, setup),
		cmocka_unit_test_setup(read_back_status, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
