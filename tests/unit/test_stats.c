// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/stats.h"

static void check(u64 *v, size_t n, u64 min, u64 max, u64 median, u64 p99, u64 mean, u64 sd)
{
	struct sample_stats st;

	stats_compute(v, n, &st);
	assert_int_equal(st.count, n);
	assert_int_equal(st.min, min);
	assert_int_equal(st.max, max);
	assert_int_equal(st.median, median);
	assert_int_equal(st.p99, p99);
	assert_int_equal(st.mean, mean);
	assert_int_equal(st.stddev, sd);
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1] <= v[i]);
}

#define CHECK(vals, ...) check(vals, sizeof(vals) / sizeof(u64), __VA_ARGS__)

static void test_empty(void **state)
{
	struct sample_stats st;

	(void)state;
	memset(&st, 0xaa, sizeof(st));
	stats_compute(NULL, 0, &st);
	assert_int_equal(st.count, 0);
	assert_int_equal(st.min, 0);
	assert_int_equal(st.max, 0);
	assert_int_equal(st.median, 0);
	assert_int_equal(st.p99, 0);
	assert_int_equal(st.mean, 0);
	assert_int_equal(st.stddev, 0);
	assert_int_equal(stats_percentile(NULL, 0, 50), 0);
}

static void test_small(void **state)
{
	u64 one[] = { 7 };
	/* Mean 6.5 rounds up; stddev is exactly 3.5 and rounds up too. */
	u64 two[] = { 10, 3 };
	/* Variance 2, stddev 1.414. */
	u64 odd[] = { 5, 1, 4, 2, 3 };
	/* Median 2.5 rounds down, mean 2.5 rounds up, stddev 1.118. */
	u64 even[] = { 4, 1, 3, 2 };

	(void)state;
	CHECK(one, 7, 7, 7, 7, 7, 0);
	CHECK(two, 3, 10, 6, 10, 7, 4);
	CHECK(odd, 1, 5, 3, 5, 3, 1);
	CHECK(even, 1, 4, 2, 4, 3, 1);
}

static void test_duplicates(void **state)
{
	u64 same[] = { 5, 5, 5, 5 };
	/* Mean 3, variance (4 + 4 + 4 + 36) / 4 = 12, stddev 3.46. */
	u64 skew[] = { 1, 9, 1, 1 };
	/* Variance 2/9 * 4 = 0.889, stddev 0.943 rounds up to 1. */
	u64 mix[] = { 2, 4, 2, 2, 4, 2, 2, 2, 4 };

	(void)state;
	CHECK(same, 5, 5, 5, 5, 5, 0);
	CHECK(skew, 1, 9, 1, 9, 3, 3);
	CHECK(mix, 2, 4, 2, 4, 3, 1);
}

static void test_orders(void **state)
{
	/* 1..10: median 5.5 -> 5, mean 5.5 -> 6, variance 99 / 12 = 8.25, stddev 2.87. */
	u64 sorted[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	u64 reverse[] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	u64 organ[] = { 1, 3, 5, 7, 9, 10, 8, 6, 4, 2 };

	(void)state;
	CHECK(sorted, 1, 10, 5, 10, 6, 3);
	CHECK(reverse, 1, 10, 5, 10, 6, 3);
	CHECK(organ, 1, 10, 5, 10, 6, 3);
}

static void test_hundred(void **state)
{
	u64 v[100];

	(void)state;
	/* A permutation of 1..100 (37 is coprime to 100). */
	for (int i = 0; i < 100; i++)
		v[i] = (u64)(i * 37 % 100) + 1;
	/* Variance (100^2 - 1) / 12 = 833.25, stddev 28.87. */
	check(v, 100, 1, 100, 50, 99, 51, 29);

	assert_int_equal(stats_percentile(v, 100, 50), 50);
	assert_int_equal(stats_percentile(v, 100, 1), 1);
	assert_int_equal(stats_percentile(v, 100, 0), 1);
	assert_int_equal(stats_percentile(v, 100, 100), 100);
	assert_int_equal(stats_percentile(v, 100, 1000), 100);
	/* Ranks round up: ceil(0.99 * 10) = 10, ceil(0.5 * 9) = 5. */
	assert_int_equal(stats_percentile(v, 10, 99), 10);
	assert_int_equal(stats_percentile(v, 9, 50), 5);
	assert_int_equal(stats_percentile(v, 1, 99), 1);
	/* ceil(0.99 * 99) = ceil(98.01) = 99. */
	assert_int_equal(stats_percentile(v, 99, 99), 99);
}

static void test_large_values(void **state)
{
	u64 top[] = { UINT64_MAX, UINT64_MAX - 2 };
	u64 wide[] = { 0, UINT64_MAX };
	u64 offset[] = { (1ull << 63) + 10, (1ull << 63) + 12, (1ull << 63) + 14 };
	struct sample_stats st;

	(void)state;
	CHECK(top, UINT64_MAX - 2, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX, UINT64_MAX - 1, 1);
	/* Variance 8 / 3, stddev 1.63. */
	CHECK(offset, (1ull << 63) + 10, (1ull << 63) + 14, (1ull << 63) + 12, (1ull << 63) + 14,
	      (1ull << 63) + 12, 2);

	/* Beyond the exact range the stddev may be off by one, but nothing overflows. */
	stats_compute(wide, 2, &st);
	assert_int_equal(st.median, (1ull << 63) - 1);
	assert_int_equal(st.mean, 1ull << 63);
	assert_true(st.stddev >= (1ull << 63) - 1 && st.stddev <= 1ull << 63);
}

/* The documented exact range: 2^20 samples just below 2^40. */
static void test_big_count(void **state)
{
	const size_t n = 1u << 20;
	const u64 base = 1ull << 39, d = (1ull << 38) - 1;
	u64 *v = malloc(n * sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (i & 1) ? base + 2 * d : base;
	check(v, n, base, base + 2 * d, base + d, base + 2 * d, base + d, d);

	free(v);
}

/* Cross-check against long double on a pseudo-random mix in the exact range. */
static void test_random(void **state)
{
	const size_t n = 1u << 20;
	u64 *v = malloc(n * sizeof(*v));
	long double sum = 0, sq = 0, mean, var, lo, hi;
	struct sample_stats st;

	(void)state;
	assert_non_null(v);
	srand(1);
	for (size_t i = 0; i < n; i++)
		v[i] = (((u64)rand() << 31) ^ (u64)rand()) & ((1ull << 40) - 1);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	mean = sum / n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	var = sq / n;

	stats_compute(v, n, &st);
	assert_true(llabs((long long)st.mean - (long long)(mean + 0.5L)) <= 1);
	/* The unit tests link without libm, so bracket the root instead of sqrtl(). */
	lo = st.stddev - 1.0L;
	hi = st.stddev + 1.0L;
	assert_true(lo * lo <= var && var <= hi * hi);
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1] <= v[i]);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),	   cmocka_unit_test(test_small),
		cmocka_unit_test(test_duplicates), cmocka_unit_test(test_orders),
		cmocka_unit_test(test_hundred),	   cmocka_unit_test(test_large_values),
		cmocka_unit_test(test_big_count),  cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
