// SPDX-License-Identifier: MIT
/* The perf_event fuzzer's host-side logic (tests/perf-fuzz): its command
 * line (SECONDS [SEED], bad input refused with the reason), the seeded
 * random source, the attributes it draws, its end-of-run counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../perf-fuzz/perf_fuzz.h"

static int parse(const char *secs, const char *seed, struct fuzz_args *a, char *err)
{
	char *argv[] = { "perf-fuzz", (char *)secs, (char *)seed, NULL };

	return fuzz_parse_args(seed ? 3 : 2, argv, a, err, 160);
}

static void args_good(void **state)
{
	struct fuzz_args a;
	char err[160];

	assert_int_equal(parse("15", "0x41", &a, err), 0);
	assert_int_equal(a.seconds, 15);
	assert_int_equal(a.seed, 0x41);
	assert_true(a.seed_given);
	assert_int_equal(parse("86400", "18446744073709551615", &a, err), 0);
	assert_int_equal(a.seed, UINT64_MAX);
	assert_int_equal(parse("3", NULL, &a, err), 0);
	assert_false(a.seed_given);
}

static void args_bad(void **state)
{
	static const char *const bad_secs[] = { "0", "-1", "abc", "15s", "", "86401" };
	struct fuzz_args a;
	char err[160];

	for (unsigned int i = 0; i < sizeof(bad_secs) / sizeof(bad_secs[0]); i++) {
		assert_int_equal(parse(bad_secs[i], NULL, &a, err), -1);
		assert_non_null(strstr(err, "seconds"));
	}
	assert_int_equal(parse("15", "0xzz", &a, err), -1);
	assert_non_null(strstr(err, "seed '0xzz'"));
	assert_int_equal(parse("15", "-5", &a, err), -1);
	char *none[] = { "perf-fuzz", NULL };
	assert_int_equal(fuzz_parse_args(1, none, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "usage"));
}

static void rng_replays(void **state)
{
	struct fuzz_rng a, b;

	rng_seed(&a, 0x41);
	rng_seed(&b, 0x41);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(rng_next(&a), rng_next(&b));
	rng_seed(&b, 0x42);
	assert_int_not_equal(rng_next(&a), rng_next(&b));
	for (int i = 0; i < 1000; i++)
		assert_true(rng_below(&a, 7) < 7);
	assert_int_equal(rng_below(&a, 0), 0);
	assert_true(rng_one_in(&a, 1));
}

static void attrs_replay_and_hold(void **state)
{
	struct fuzz_pmus pmus = { .n = 2, .type = { 4, 11 }, .amd = 1 };
	struct fuzz_rng a, b;
	unsigned int types[12] = { 0 };

	rng_seed(&a, 7);
	rng_seed(&b, 7);
	for (int i = 0; i < 4000; i++) {
		struct perf_event_attr x, y;

		pmus.amd = i & 1;
		attr_random(&a, &pmus, &x);
		attr_random(&b, &pmus, &y);
		assert_memory_equal(&x, &y, sizeof(x));
		assert_true(x.size >= PERF_ATTR_SIZE_VER0 && x.size <= sizeof(x));
		/* what the kernel demands of the fuzzer's own choices */
		assert_true(!x.sigtrap || x.remove_on_exec);
		assert_true(!x.inherit_thread || x.inherit);
		assert_true(x.sample_type < PERF_SAMPLE_MAX);
		assert_true(x.read_format < PERF_FORMAT_MAX);
		assert_true(x.precise_ip <= 3);
		types[x.type < 11 ? x.type : 11]++;
	}
	/* each of the four generic types and the other PMU drawn */
	assert_true(types[PERF_TYPE_HARDWARE] && types[PERF_TYPE_SOFTWARE] &&
		    types[PERF_TYPE_HW_CACHE] && types[PERF_TYPE_RAW] && types[11]);
}

static char printed[8][128];
static int nprinted;

static void collect(const char *s)
{
	if (nprinted < 8)
		snprintf(printed[nprinted], sizeof(printed[0]), "%s", s);
	nprinted++;
}

static void stats_lines(void **state)
{
	struct fuzz_stats s;

	memset(&s, 0, sizeof(s));
	stat_count(&s, K_OPEN, 1);
	stat_count(&s, K_OPEN, 0);
	stat_count(&s, K_IOC_REFRESH, 0);
	s.records = 5;
	nprinted = 0;
	stats_print(&s, collect);
	assert_int_equal(nprinted, 4);
	assert_string_equal(printed[0], "open tried 2 ok 1");
	assert_string_equal(printed[1], "ioctl-refresh tried 1 ok 0");
	assert_string_equal(printed[2], "total tried 3 ok 1");
	assert_string_equal(printed[3], "ring records 5 (lost 0, throttle 0)");
	for (int k = 0; k < K_COUNT; k++)
		assert_string_not_equal(fuzz_kind_name(k), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(args_good),   cmocka_unit_test(args_bad),
		cmocka_unit_test(rng_replays), cmocka_unit_test(attrs_replay_and_hold),
		cmocka_unit_test(stats_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
