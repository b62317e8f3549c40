// SPDX-License-Identifier: MIT
/*
 * Benchmark output: a table for people, and one JSON line per measurement
 * (after a fixed prefix) for scripts/report.py.
 */
#include "report.h"
#include "fmt.h"

#ifndef HOST_TEST
#include "backend.h"
#include "console.h"
#include "platform.h"
#endif

#define TABLE_HEADER "test                          min     median        p99       mean     stddev"

int report_format_row(char *buf, size_t size, const struct bench_row *row)
{
	const struct sample_stats *s = &row->st;

	if (row->skip_reason[0])
		return fmt_snprintf(buf, size, "%-24s (skipped: %s)", row->name, row->skip_reason);
	return fmt_snprintf(buf, size, "%-24s %9llu  %9llu  %9llu  %9llu  %9llu", row->name,
			    (unsigned long long)s->min, (unsigned long long)s->median,
			    (unsigned long long)s->p99, (unsigned long long)s->mean,
			    (unsigned long long)s->stddev);
}

int report_format_json(char *buf, size_t size, const struct bench_row *row, const char *env,
		       const char *backend_name)
{
	const struct sample_stats *s = &row->st;

	if (row->skip_reason[0])
		return fmt_snprintf(buf, size,
				    REPORT_JSON_PREFIX "{\"suite\":\"%s\",\"test\":\"%s\","
						       "\"config\":\"%s\",\"env\":\"%s\","
						       "\"backend\":\"%s\",\"skipped\":\"%s\"}",
				    row->suite, row->name, row->column, env, backend_name,
				    row->skip_reason);
	return fmt_snprintf(
	    buf, size,
	    REPORT_JSON_PREFIX "{\"suite\":\"%s\",\"test\":\"%s\",\"config\":\"%s\","
			       "\"env\":\"%s\",\"backend\":\"%s\",\"unit\":\"tsc\","
			       "\"iterations\":%u,\"batches\":%u,\"min\":%llu,"
			       "\"median\":%llu,\"p99\":%llu,\"mean\":%llu,"
			       "\"stddev\":%llu,\"max\":%llu}",
	    row->suite, row->name, row->column, env, backend_name, row->iterations, row->batches,
	    (unsigned long long)s->min, (unsigned long long)s->median, (unsigned long long)s->p99,
	    (unsigned long long)s->mean, (unsigned long long)s->stddev, (unsigned long long)s->max);
}

#ifndef HOST_TEST
void report_bench_tables(const struct run_results *r)
{
	const struct mhv_config *cfg = r->cfg;
	char line[320];
	u32 i;

	if (!r->nr_bench)
		return;
	console_printf("mhv: ---- benchmarks: TSC ticks per iteration; env %s; backend %s; "
		       "%u iterations x %u batches after %u warm-up ----\n",
		       platform_env(), backend->name, cfg->iterations, cfg->batches, cfg->warmup);
	console_printf("mhv: %s\n", TABLE_HEADER);
	for (i = 0; i < r->nr_bench; i++) {
		report_format_row(line, sizeof(line), &r->bench[i]);
		console_printf("mhv: %s\n", line);
	}
	console_printf("mhv: (loop_overhead is the empty timed loop; it is included in, not "
		       "subtracted from, every other row)\n");
	for (i = 0; i < r->nr_bench; i++) {
		report_format_json(line, sizeof(line), &r->bench[i], platform_env(), backend->name);
		console_printf("%s\n", line);
	}
}
#endif
