// SPDX-License-Identifier: MIT
/*
 * The results of a run: each test's outcome said and counted, the columns
 * the host refused, the benchmark rows, and how a suite VM's end is judged.
 */
#include "runner_priv.h"
#include "platform/console.h"
#include "lib/fmt.h"

void results_test(struct run_results *r, const char *suite, const char *name, enum test_status st,
		  const char *reason)
{
	static const char *const words[] = { "PASS", "FAIL", "SKIP" };

	if (st == TEST_PASS)
		r->passed++;
	else if (st == TEST_FAIL)
		r->failed++;
	else
		r->skipped++;
	console_printf("mhv: %s %s/%s%s%s\n", words[st], suite, name, reason[0] ? ": " : "",
		       reason);
}

/* A column r's tables name as refused, each once. */
void record_refused(struct run_results *r, const char *column, const char *why)
{
	struct refused_column *rc;

	u32 i;

	for (i = 0; i < r->nr_refused; i++)
		if (!__builtin_strcmp(r->refused[i].column, column))
			return; /* the tables name each column once */
	if (r->nr_refused == MAX_REFUSED_COLUMNS)
		return;
	rc = &r->refused[r->nr_refused++];
	rc->column = column;
	rc->why = why;
}

void results_refuse_column(struct run_results *r, const char *suite, const char *column,
			   const char *why)
{
	console_printf("mhv: %s: configuration %s cannot run here: %s\n", suite, column, why);
	record_refused(r, column, why);
}

struct bench_row *results_bench_row(struct run_results *r)
{
	if (r->nr_bench == MAX_BENCH_ROWS)
		return NULL;
	return &r->bench[r->nr_bench++];
}

void print_exit_counts(const struct vm *v)
{
	char line[256];
	size_t used;
	unsigned k;

	u32 i;

	for (i = 0; i < v->nr_vcpus; i++) {
		used = 0;
		for (k = 0; k < EXIT_KIND_COUNT && used < sizeof(line); k++)
			if (v->vcpus[i].exits[k])
				used += fmt_snprintf(line + used, sizeof(line) - used, " %s=%llu",
						     exit_kind_name(k), v->vcpus[i].exits[k]);
		if (v->nr_vcpus > 1)
			console_printf("mhv: vm %s: vcpu %u on cpu %u: exits:%s\n", v->name, i,
				       v->vcpus[i].cpu ? v->vcpus[i].cpu->index : 0,
				       used ? line : " none");
		else
			console_printf("mhv: vm %s: exits:%s\n", v->name, used ? line : " none");
	}
}

/* Judge how the VM ended against how it had to end. */
void judge_stop(const struct suite *s, const struct suite_vm *sv, const struct vm *v)
{
	const char *test = sv->test ? sv->test : sv->name;
	char why[200];

	console_printf("mhv: vm %s stopped: %s: %s\n", v->name, vm_stop_name(v->stop),
		       v->stop_reason);
	print_exit_counts(v);
	if ((v->stop == sv->expect && (v->stop != VM_STOP_EXIT || v->exit_code == 0)) ||
	    (sv->expect_alt != VM_RUNNING && v->stop == sv->expect_alt)) {
		if (sv->test)
			results_test(v->results, s->name, test, TEST_PASS, v->stop_reason);
		return;
	}
	fmt_snprintf(why, sizeof(why), "VM %s ended with %s (%s), expected %s", v->name,
		     vm_stop_name(v->stop), v->stop_reason, vm_stop_name(sv->expect));
	results_test(v->results, s->name, test, TEST_FAIL, why);
}
