/* SPDX-License-Identifier: MIT */
#ifndef MHV_RUNNER_H
#define MHV_RUNNER_H

#include "config.h"
#include "guest_abi.h"
#include "stats.h"
#include "status.h"

#define MAX_BENCH_ROWS 64

struct bench_row {
	char suite[16];
	char name[HC_NAME_LEN];
	char column[16]; /* the VM configuration the row was measured in */
	u32 iterations, batches;
	struct sample_stats st;
	char skip_reason[HC_REASON_LEN];
};

struct run_results {
	const struct mhv_config *cfg;
	u32 passed, failed, skipped;
	u32 nr_bench;
	struct bench_row bench[MAX_BENCH_ROWS];
};

/* Run every suite the config selects; the status to finish with. */
enum mhv_status runner_run_plan(const struct mhv_config *cfg);
/* Record and print one test outcome ("mhv: PASS smoke/cpuid_signature"). */
void results_test(struct run_results *r, const char *suite, const char *name, enum test_status st,
		  const char *reason);
struct bench_row *results_bench_row(struct run_results *r);

#endif
