/* SPDX-License-Identifier: MIT */
#ifndef MHV_RESULTS_H
#define MHV_RESULTS_H

/*
 * The results of a run (or of one CPU's part of it): each test's outcome
 * said and counted, the benchmark rows, and the matrix columns the host
 * refused.  report.c prints them as tables.
 */
#include "config.h"
#include "suites.h"
#include "lib/guest_abi.h"
#include "lib/stats.h"
#include "platform/insn_class.h"

/* APERF and MPERF over a benchmark (platform/aperf.h), 0 and 0 when
 * unknown; the SMIs that arrived meanwhile, where the CPU counts them; the
 * costly instructions per iteration, where an emulator counts them
 * (platform/insn_class.h). */
struct bench_clock {
	u64 d_aperf, d_mperf;
	u64 smis;
	bool smis_known;
	struct insn_class_rate classes;
};

struct bench_row {
	char suite[16];
	char name[HC_NAME_LEN];
	char column[24]; /* the VM configuration the row was measured in */
	char cpu_tag[8]; /* "@cpuN" when the run measures several CPUs, else "" */
	u32 iterations, batches;
	struct sample_stats st;
	struct bench_clock clock;
	char skip_reason[HC_REASON_LEN];
};

/* A matrix column this host could not run, and why. */
struct refused_column {
	const char *column, *why;
};

struct run_results {
	const struct mhv_config *cfg;
	char cpu_tag[8]; /* copied into each bench row */
	/* the vCPUs of one VM report from their CPUs at once, and the CPU
	 * that waits for a lost one reports for it while it may still run */
	volatile bool lock;
	u32 passed, failed, skipped;
	/* room for what the plan reports at most (runner_plan_bench_rows) */
	u32 nr_bench, max_bench;
	struct bench_row *bench;
	/* each column of the matrix at most once */
	u32 nr_refused;
	struct refused_column refused[NR_VM_CONFIGS];
};

/* Room in @r for @rows benchmark rows, on NUMA node @node first; false
 * when there is no memory for them. */
bool results_alloc(struct run_results *r, u32 rows, u32 node);

/* Record and print one test outcome ("mhv: PASS smoke/cpuid_signature"). */
void results_test(struct run_results *r, const char *suite, const char *name, enum test_status st,
		  const char *reason);
/* A benchmark's row: the guest's report @b summed up in @st, measured in
 * @column; false, said, when r has no room for it (the plan counted wrong). */
bool results_bench(struct run_results *r, const char *suite, const char *column,
		   const struct hc_bench_result *b, const struct sample_stats *st,
		   const struct bench_clock *clock);
/* A matrix column the host cannot run: said now and in the tables. */
void results_refuse_column(struct run_results *r, const char *suite, const char *column,
			   const char *why);
/* Name @column as refused in r's tables, each column once, without saying it now. */
void results_add_refused(struct run_results *r, const char *column, const char *why);

#endif
