// SPDX-License-Identifier: MIT
/* PIT channel 2 and port 0x61 against the 82C54 data sheet, and the two
 * ways Linux calibrates the TSC with them (quick_pit_calibrate reads the
 * MSB counting down; pit_calibrate_tsc polls OUT2 in port 0x61). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vdev/pit.h"

static struct pit2 p;

static int setup(void **state)
{
	pit2_reset(&p);
	return 0;
}

static uint8_t port_b(uint64_t now)
{
	return pit2_read(&p, PIT_PORT_B, now);
}

/* Channel 2, LSB then MSB, mode 0, binary: Linux's 0xb0. */
static void mode0(uint16_t count, uint64_t now)
{
	pit2_write(&p, PIT_CONTROL_PORT, 0xb0, now);
	pit2_write(&p, PIT_CH2_PORT, (uint8_t)count, now);
	pit2_write(&p, PIT_CH2_PORT, (uint8_t)(count >> 8), now);
}

static void mode0_counts_down_and_raises_out(void **state)
{
	pit2_write(&p, PIT_PORT_B, 0x01, 100); /* gate high, speaker off */
	mode0(1000, 100);
	assert_int_equal(port_b(100) & 0x21, 0x01); /* OUT2 low, gate high */
	assert_int_equal(pit2_counter(&p, 400), 700);
	/* reads: LSB then MSB */
	assert_int_equal(pit2_read(&p, PIT_CH2_PORT, 400), 700 & 0xff);
	assert_int_equal(pit2_read(&p, PIT_CH2_PORT, 400), 700 >> 8);
	assert_false(pit2_out(&p, 1099));
	assert_int_equal(port_b(1100) & 0x20, 0x20); /* terminal count: OUT2 high */
	/* it wraps and goes on counting; OUT stays high */
	assert_int_equal(pit2_counter(&p, 1101), 0xffff);
	assert_true(pit2_out(&p, 5000));
}

static void latch_holds_until_read(void **state)
{
	pit2_write(&p, PIT_PORT_B, 0x01, 0);
	mode0(0xffff, 0);
	pit2_write(&p, PIT_CONTROL_PORT, 0x80, 0x1234); /* latch channel 2 */
	assert_int_equal(pit2_read(&p, PIT_CH2_PORT, 0x2000), (0xffff - 0x1234) & 0xff);
	assert_int_equal(pit2_read(&p, PIT_CH2_PORT, 0x3000), (0xffff - 0x1234) >> 8);
	/* after both bytes: live again */
	assert_int_equal(pit2_read(&p, PIT_CH2_PORT, 0x3000), (0xffff - 0x3000) & 0xff);
	assert_int_equal(pit2_read(&p, PIT_CH2_PORT, 0x3000), (0xffff - 0x3000) >> 8);
	/* read-back command: latch count of channel 2 */
	pit2_write(&p, PIT_CONTROL_PORT, 0xd8, 0x10);
	assert_int_equal(pit2_read(&p, PIT_CH2_PORT, 0x4000), (0xffff - 0x10) & 0xff);
}

static void gate_low_holds_mode0(void **state)
{
	mode0(100, 0); /* gate low: no counting */
	assert_int_equal(pit2_counter(&p, 50), 100);
	pit2_write(&p, PIT_PORT_B, 0x01, 50);
	assert_int_equal(pit2_counter(&p, 80), 70);
	pit2_write(&p, PIT_PORT_B, 0x00, 80);
	assert_int_equal(pit2_counter(&p, 500), 70);
	pit2_write(&p, PIT_PORT_B, 0x01, 500);
	assert_int_equal(pit2_counter(&p, 510), 60);
	assert_int_equal(port_b(510) & 0x01, 0x01);
}

static void periodic_modes(void **state)
{
	pit2_write(&p, PIT_PORT_B, 0x03, 0);
	pit2_write(&p, PIT_CONTROL_PORT, 0xb6, 0); /* mode 3, square wave */
	pit2_write(&p, PIT_CH2_PORT, 10, 0);
	pit2_write(&p, PIT_CH2_PORT, 0, 0);
	assert_true(pit2_out(&p, 2));
	assert_false(pit2_out(&p, 7));
	assert_int_equal(pit2_counter(&p, 13), 7);
	assert_int_equal(port_b(0) & 0x03, 0x03); /* speaker bit reads back */
	/* other channels' control words leave channel 2 alone */
	pit2_write(&p, PIT_CONTROL_PORT, 0x34, 0);
	assert_int_equal(pit2_counter(&p, 13), 7);
}

static void quick_pit_calibrate_sees_msb_fall(void **state)
{
	uint64_t t = 1000;
	unsigned i;

	pit2_write(&p, PIT_PORT_B, (port_b(t) & ~0x02) | 0x01, t);
	mode0(0xffff, t);
	/* Linux reads LSB then MSB and expects the MSB to be 0xff - i after
	 * about 256 * i ticks */
	for (i = 1; i < 20; i++) {
		t += 256;
		pit2_read(&p, PIT_CH2_PORT, t);
		assert_int_equal(pit2_read(&p, PIT_CH2_PORT, t), 0xff - i);
	}
}

static void refresh_bit_toggles(void **state)
{
	assert_int_not_equal(port_b(0) & 0x10, port_b(18) & 0x10);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
