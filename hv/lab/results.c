// SPDX-License-Identifier: MIT
/*
 * The results of a run: each test's outcome said and counted, the columns
 * the host refused, the benchmark rows.
 */
#include "results.h"
#include "platform/console.h"
#include "lib/fmt.h"
#include "arch/x86.h"
#include "host/page_alloc.h"

bool results_alloc(struct run_results *r, u32 rows, u32 node)
{
	u64 bytes = (u64)rows * sizeof(*r->bench);

	r->nr_bench = 0;
	r->max_bench = rows;
	r->bench = rows ? alloc_pages_zeroed_node((bytes + PAGE_SIZE - 1) / PAGE_SIZE, node) : NULL;
	if (rows && !r->bench)
		r->max_bench = 0;
	return r->max_bench == rows;
}

void results_test(struct run_results *r, const char *suite, const char *name, enum test_status st,
		  const char *reason)
{
	static const char *const words[] = { "PASS", "FAIL", "SKIP" };

	spin_lock(&r->lock);
	if (st == TEST_PASS)
		r->passed++;
	else if (st == TEST_FAIL)
		r->failed++;
	else
		r->skipped++;
	spin_unlock(&r->lock);
	console_printf("mhv: %s %s/%s%s%s\n", words[st], suite, name, reason[0] ? ": " : "",
		       reason);
}

void results_add_refused(struct run_results *r, const char *column, const char *why)
{
	struct refused_column *rc;
	u32 i;

	for (i = 0; i < r->nr_refused; i++)
		if (!__builtin_strcmp(r->refused[i].column, column))
			return; /* the tables name each column once */
	if (r->nr_refused == ARRAY_SIZE(r->refused))
		return;
	rc = &r->refused[r->nr_refused++];
	rc->column = column;
	rc->why = why;
}

void results_refuse_column(struct run_results *r, const char *suite, const char *column,
			   const char *why)
{
	console_printf("mhv: %s: configuration %s cannot run here: %s\n", suite, column, why);
	results_add_refused(r, column, why);
}

bool results_bench(struct run_results *r, const char *suite, const char *column,
		   const struct hc_bench_result *b, const struct sample_stats *st,
		   const struct bench_clock *clock)
{
	struct bench_row *row;

	spin_lock(&r->lock);
	if (r->nr_bench >= r->max_bench) {
		spin_unlock(&r->lock);
		console_printf("mhv: %s/%s: no room for benchmark row %u: the plan counted %u "
			       "(a defect of mhv's plan count)\n",
			       suite, b->name, r->nr_bench + 1, r->max_bench);
		return false;
	}
	row = &r->bench[r->nr_bench++];
	fmt_snprintf(row->suite, sizeof(row->suite), "%s", suite);
	fmt_snprintf(row->name, sizeof(row->name), "%s", b->name);
	fmt_snprintf(row->column, sizeof(row->column), "%s", column);
	fmt_snprintf(row->cpu_tag, sizeof(row->cpu_tag), "%s", r->cpu_tag);
	fmt_snprintf(row->skip_reason, sizeof(row->skip_reason), "%s", b->skip_reason);
	row->iterations = b->iterations;
	row->batches = b->nr_samples;
	row->st = *st;
	row->clock = *clock;
	spin_unlock(&r->lock);
	return true;
}
