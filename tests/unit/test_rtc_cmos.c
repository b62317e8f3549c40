// SPDX-License-Identifier: MIT
/* The CMOS clock against the MC146818A data sheet, and the way Linux
 * reads it (mc146818_get_time: wait for UIP clear, read, check again). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vdev/rtc_cmos.h"

#define HZ 1000000 /* a microsecond clock */
/* 2026-12-02 05:14:59 UTC, a Wednesday */
#define T0 1796188499ll

static struct rtc_cmos r;

static int setup(void **state)
{
	rtc_reset(&r, HZ, T0, 5 * HZ);
	return 0;
}

static uint8_t reg(uint8_t i, uint64_t now)
{
	rtc_write(&r, RTC_INDEX_PORT, i, now);
	return rtc_read(&r, RTC_DATA_PORT, now);
}

static void set(uint8_t i, uint8_t v, uint64_t now)
{
	rtc_write(&r, RTC_INDEX_PORT, i, now);
	rtc_write(&r, RTC_DATA_PORT, v, now);
}

static void dates(void **state)
{
	struct rtc_time t;
	uint8_t wday;

	assert_int_equal(rtc_days_from_date(1970, 1, 1), 0);
	assert_int_equal(rtc_days_from_date(2000, 3, 1), 11017);
	assert_int_equal(rtc_days_from_date(2026, 12, 2) * 86400 + 5 * 3600 + 14 * 60 + 59, T0);
	rtc_date_from_seconds(T0, &t, &wday);
	assert_int_equal(t.year, 2026);
	assert_int_equal(t.month, 12);
	assert_int_equal(t.day, 2);
	assert_int_equal(t.hour, 5);
	assert_int_equal(t.second, 59);
	assert_int_equal(wday, 3);
	/* the leap day of a century year divisible by 400 */
	rtc_date_from_seconds(rtc_days_from_date(2000, 2, 29) * 86400, &t, &wday);
	assert_int_equal(t.month, 2);
	assert_int_equal(t.day, 29);
}

/* Power-on: 24-hour BCD, the time the reset gave, century in 0x32. */
static void reads_bcd_time(void **state)
{
	uint64_t now = 5 * HZ;

	assert_int_equal(reg(0, now), 0x59);
	assert_int_equal(reg(2, now), 0x14);
	assert_int_equal(reg(4, now), 0x05);
	assert_int_equal(reg(6, now), 4); /* Wednesday: Sunday is 1 */
	assert_int_equal(reg(7, now), 0x02);
	assert_int_equal(reg(8, now), 0x12);
	assert_int_equal(reg(9, now), 0x26);
	assert_int_equal(reg(RTC_CENTURY, now), 0x20);
	assert_int_equal(reg(RTC_REG_B, now), 0x02);
	assert_int_equal(reg(RTC_REG_D, now), 0x80); /* VRT */
	assert_int_equal(rtc_read(&r, RTC_INDEX_PORT, now), 0xff);
}

/* Once a second the update carries seconds into minutes, hours, days. */
static void updates_each_second(void **state)
{
	uint64_t now = 6 * HZ;

	assert_int_equal(reg(0, now), 0x00);
	assert_int_equal(reg(2, now), 0x15);
	/* a day later, one update for all the seconds in between */
	now += 86400ull * HZ;
	assert_int_equal(reg(7, now), 0x03);
	assert_int_equal(reg(6, now), 5);
	assert_int_equal(reg(0, now), 0x00);
}

/* UIP is set in the 244 us before the update, clear otherwise. */
static void uip_before_update(void **state)
{
	assert_int_equal(reg(RTC_REG_A, 5 * HZ) & 0x80, 0);
	assert_int_equal(reg(RTC_REG_A, 6 * HZ - 245) & 0x80, 0);
	assert_int_equal(reg(RTC_REG_A, 6 * HZ - 244), 0xa6);
	assert_int_equal(reg(RTC_REG_A, 6 * HZ) & 0x80, 0);
	/* UIP cannot be written; the rest of A can */
	set(RTC_REG_A, 0xa5, 6 * HZ);
	assert_int_equal(reg(RTC_REG_A, 6 * HZ), 0x25);
}

/* Binary mode and the 12-hour format with its PM bit. */
static void binary_and_12_hour(void **state)
{
	uint64_t now = 5 * HZ;

	set(RTC_REG_B, 0x80, now); /* SET: write the time in a new format */
	set(RTC_REG_B, 0x80 | 0x04, now);
	set(4, 0x80 | 1, now); /* 1 PM, binary */
	set(2, 30, now);
	set(0, 0, now);
	set(RTC_REG_B, 0x04, now); /* SET clear, binary, 12-hour */
	assert_int_equal(reg(4, now + HZ), 0x81);
	set(RTC_REG_B, 0x06, now + HZ); /* 24-hour now: 13 */
	set(RTC_REG_B, 0x86, now + HZ);
	set(4, 13, now + HZ);
	set(RTC_REG_B, 0x06, now + HZ);
	assert_int_equal(reg(4, now + 2 * HZ), 13);
	assert_int_equal(reg(0, now + 2 * HZ), 2);
}

/* SET holds the time while the OS writes it, and clears UIE. */
static void set_holds_updates(void **state)
{
	set(RTC_REG_B, 0x12, 5 * HZ); /* UIE */
	set(RTC_REG_B, 0x92, 5 * HZ);
	assert_int_equal(reg(RTC_REG_B, 5 * HZ), 0x82);
	set(0, 0x30, 5 * HZ);
	assert_int_equal(reg(0, 9 * HZ), 0x30);
	assert_int_equal(reg(RTC_REG_A, 10 * HZ - 1) & 0x80, 0); /* no update under way */
	set(RTC_REG_B, 0x02, 9 * HZ + 10);
	assert_int_equal(reg(0, 10 * HZ), 0x31);
}

/* Register C: UF, AF and PF latch whatever the enables, IRQF only for an
 * enabled one; reading clears it.  C and D take no writes. */
static void flags_latch_and_clear(void **state)
{
	assert_int_equal(reg(RTC_REG_C, 5 * HZ), 0);
	set(1, 0xc0, 5 * HZ); /* alarm: any second, */
	set(3, 0x15, 5 * HZ); /* at minute 15, */
	set(5, 0xff, 5 * HZ); /* any hour */
	assert_int_equal(reg(RTC_REG_C, 6 * HZ), 0x10 | 0x20 | 0x40);
	assert_int_equal(reg(RTC_REG_C, 6 * HZ), 0);
	set(RTC_REG_B, 0x02 | 0x10, 6 * HZ); /* UIE */
	assert_int_equal(reg(RTC_REG_C, 7 * HZ), 0x80 | 0x10 | 0x20 | 0x40);
	set(RTC_REG_A, 0x20, 7 * HZ); /* no periodic rate */
	set(RTC_REG_C, 0xff, 7 * HZ);
	set(RTC_REG_D, 0x00, 7 * HZ);
	assert_int_equal(reg(RTC_REG_C, 7 * HZ + 10), 0);
	assert_int_equal(reg(RTC_REG_D, 7 * HZ + 10), 0x80);
}

/* The divider chain in reset (DV = 11x) stops the clock. */
static void divider_reset_stops(void **state)
{
	set(RTC_REG_A, 0x70, 5 * HZ);
	assert_int_equal(reg(0, 20 * HZ), 0x59);
	set(RTC_REG_A, 0x26, 20 * HZ);
	assert_int_equal(reg(0, 21 * HZ), 0x00);
}

/* CMOS RAM and the NMI mask bit of the index port. */
static void ram_and_nmi_mask(void **state)
{
	rtc_write(&r, RTC_INDEX_PORT, 0x80 | 0x40, 0);
	assert_true(r.nmi_masked);
	rtc_write(&r, RTC_DATA_PORT, 0xa5, 0);
	assert_int_equal(reg(0x40, 0), 0xa5);
	assert_false(r.nmi_masked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dates),
		cmocka_unit_test_setup(reads_bcd_time, setup),
		cmocka_unit_test_setup(updates_each_second, setup),
		cmocka_unit_test_setup(uip_before_update, setup),
		cmocka_unit_test_setup(binary_and_12_hour, setup),
		cmocka_unit_test_setup(set_holds_updates, setup),
		cmocka_unit_test_setup(flags_latch_and_clear, setup),
		cmocka_unit_test_setup(divider_reset_stops, setup),
		cmocka_unit_test_setup(ram_and_nmi_mask, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
