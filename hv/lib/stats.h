/* SPDX-License-Identifier: MIT */
/* Benchmark statistics in integer arithmetic only (the hypervisor has no FPU state). */
#ifndef MHV_STATS_H
#define MHV_STATS_H

#include "types.h"

struct sample_stats {
	u64 count;
	u64 min;
	u64 max;
	u64 median; /* mean of the two middle values, rounded down, for even counts */
	u64 p99;    /* nearest-rank 99th percentile */
	u64 mean;   /* rounded to nearest, halves up */
	u64 stddev; /* population standard deviation, rounded to nearest */
};

/*
 * Sorts samples in place and fills out; count 0 yields all zeroes.  Exact for
 * at least 2^20 samples of values below 2^40.
 */
void stats_compute(u64 *samples, size_t count, struct sample_stats *out);

/* Nearest rank: the ceil(pct * count / 100)-th smallest; pct is clamped to 1..100. */
u64 stats_percentile(const u64 *sorted, size_t count, unsigned pct);

/* a * b / d without overflow in between, rounded down (saturates at 2^64 - 1). */
u64 stats_muldiv(u64 a, u64 b, u64 d);

#endif
