// SPDX-License-Identifier: MIT
/*
 * Host tests for host_timer_ticks: the one-shot APIC count for a wait in
 * TSC ticks, at and past 2^32 APIC ticks (the count register's reach),
 * where the old 64-bit product wrapped and the timer fired early.  A
 * 128-bit product is the reference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "platform/host_timer.h"

#define RATE_ONE (1ull << 32) /* one APIC tick per TSC tick, 32.32 */
#define MAX_COUNT 0xffffffffu

static u32 ticks(u64 delta_tsc, u64 rate_q32)
{
	return host_timer_ticks(delta_tsc, rate_q32, host_timer_one_shot_reach(rate_q32));
}

/* What the count must be: the exact quotient, at least 1, at most 2^32-1. */
static u32 reference(u64 delta_tsc, u64 rate_q32)
{
	unsigned __int128 t = ((unsigned __int128)delta_tsc * rate_q32) >> 32;

	return t > MAX_COUNT ? MAX_COUNT : t ? (u32)t : 1;
}

static void test_exact_below_2e32(void **state)
{
	(void)state;
	assert_int_equal(ticks(1000, RATE_ONE), 1000);
	assert_int_equal(ticks(1000, RATE_ONE / 2), 500);
	assert_int_equal(ticks(3, RATE_ONE / 2), 1); /* rounded down */
	/* QEMU: a 1 GHz APIC timer, a 2.3 GHz TSC: 200 ms */
	assert_int_equal(ticks(460000000ull, RATE_ONE * 10 / 23), 199999999);
}

/* A count of 0 would stop the timer: a wait already over fires at once. */
static void test_never_zero(void **state)
{
	(void)state;
	assert_int_equal(ticks(0, RATE_ONE), 1);
	assert_int_equal(ticks(1, RATE_ONE / 4), 1);
	assert_int_equal(ticks(1000, 0), 1);
}

static void test_at_2e32(void **state)
{
	u64 rates[] = { RATE_ONE, RATE_ONE / 2, RATE_ONE / 20, RATE_ONE * 10 / 23, 3 * RATE_ONE };
	unsigned i;

	(void)state;
	assert_int_equal(ticks(MAX_COUNT, RATE_ONE), MAX_COUNT);
	assert_int_equal(ticks(1ull << 32, RATE_ONE), MAX_COUNT);
	assert_int_equal(ticks(2ull * MAX_COUNT, RATE_ONE / 2), MAX_COUNT);
	assert_int_equal(ticks(2ull * MAX_COUNT + 2, RATE_ONE / 2), MAX_COUNT);
	/* around the reach, each side of 2^32-1 ticks, as the 128-bit product says */
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		u64 reach = host_timer_one_shot_reach(rates[i]), d;

		for (d = reach - 3; d != reach + 4; d++)
			assert_int_equal(ticks(d, rates[i]), reference(d, rates[i]));
		assert_int_equal(ticks(reach + 1, rates[i]), MAX_COUNT);
	}
}

/*
 * Past 2^64 for the product: 2^32 TSC ticks at rate 1 is exactly 2^64,
 * which wrapped to a count of 0 (then 1: fired at once); 60 s at a 2 GHz
 * TSC with a 100 MHz APIC timer wrapped to 1.7e9 ticks: fired after 17 s.
 */
static void test_past_2e64_product(void **state)
{
	u64 sixty_s = 120000000000ull, rate_100mhz = RATE_ONE / 20;

	(void)state;
	assert_true((u64)((1ull << 32) * RATE_ONE) == 0); /* what 64 bits made of it */
	assert_int_equal(ticks(1ull << 32, RATE_ONE), MAX_COUNT);
	assert_true((sixty_s * rate_100mhz) >> 32 < MAX_COUNT);
	assert_int_equal(ticks(sixty_s, rate_100mhz), MAX_COUNT);
	/* an hour at 4 GHz, a rate near 2: no width is exceeded */
	assert_int_equal(ticks(14400000000000ull, 2 * RATE_ONE - 1), MAX_COUNT);
	assert_int_equal(ticks(~0ull, ~0ull), MAX_COUNT);
}

/* Any wait at any rate: the reference's count. */
static void test_matches_reference(void **state)
{
	unsigned i;

	(void)state;
	srand(19);
	for (i = 0; i < 100000; i++) {
		u64 d = ((u64)rand() << 33 ^ (u64)rand() << 11 ^ (u64)rand()) >> (rand() % 64);
		u64 r = ((u64)rand() << 31 ^ (u64)rand()) >> (rand() % 40);

		assert_int_equal(ticks(d, r), reference(d, r));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_below_2e32),  cmocka_unit_test(test_never_zero),
		cmocka_unit_test(test_at_2e32),		  cmocka_unit_test(test_past_2e64_product),
		cmocka_unit_test(test_matches_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
