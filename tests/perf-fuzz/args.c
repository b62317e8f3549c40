// SPDX-License-Identifier: MIT
/*
 * The fuzzer's command line: perf-fuzz SECONDS [SEED].  /init passes the
 * kernel command line's mhvperffuzz= and mhvperffuzzseed= words
 * (scripts/linux-guest-init.sh); without a seed the fuzzer draws one from
 * the clock and prints it, so that any run can be replayed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "perf_fuzz.h"

/* at most a day: a longer number is a typo, not a soak */
#define FUZZ_MAX_SECONDS 86400u

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

int fuzz_parse_args(int argc, char **argv, struct fuzz_args *a, char *err, unsigned int errlen)
{
	uint64_t v;

	if (argc < 2 || argc > 3) {
		snprintf(err, errlen, "usage: perf-fuzz SECONDS [SEED]");
		return -1;
	}
	if (parse_u64(argv[1], &v) || v == 0 || v > FUZZ_MAX_SECONDS) {
		snprintf(err, errlen, "perf-fuzz: seconds '%s': want a whole number from 1 to %u",
			 argv[1], FUZZ_MAX_SECONDS);
		return -1;
	}
	a->seconds = (unsigned int)v;
	a->seed_given = argc == 3;
	if (a->seed_given) {
		if (parse_u64(argv[2], &a->seed)) {
			snprintf(err, errlen,
				 "perf-fuzz: seed '%s': want a 64-bit number (decimal or 0x hex)",
				 argv[2]);
			return -1;
		}
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		a->seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec;
	}
	return 0;
}
