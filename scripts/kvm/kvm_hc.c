// SPDX-License-Identifier: MIT
#include <string.h>

#include "kvm_hc.h"
#include "lab/report.h"
#include "lib/fmt.h"
#include "lib/stats.h"

/* Printable ASCII as it is, anything else '?': no guest text can end one
 * of our lines and start its own (hv/vdev/guest_console.h does the same). */
static void clean(char *s, size_t size)
{
	s[size - 1] = 0;
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			*s = '?';
}

/* Guest RAM at [gpa, gpa + len), or NULL when any of it is outside. */
static void *guest_ptr(struct kvm_hc *hc, u64 gpa, u64 len)
{
	if (gpa >= hc->ram_size || len > hc->ram_size - gpa)
		return NULL;
	return hc->ram + gpa;
}

/* One clear line, and the run fails: the guest broke the ABI. */
static u64 malformed(struct kvm_hc *hc, const char *what, u64 gpa)
{
	fprintf(hc->out, "mhv-kvm: %s: malformed %s from the guest (at 0x%llx)\n", hc->suite, what,
		(unsigned long long)gpa);
	hc->malformed++;
	return HC_ERROR;
}

static void put_guest_char(struct kvm_hc *hc, char c)
{
	if (c != '\n' && hc->line_len < sizeof(hc->line) - 1) {
		hc->line[hc->line_len++] = c >= 0x20 && c <= 0x7e ? c : '?';
		return;
	}
	hc->line[hc->line_len] = 0;
	fprintf(hc->out, "[%s] %s\n", hc->suite, hc->line);
	hc->line_len = 0;
}

static u64 hc_print(struct kvm_hc *hc, u64 gpa, u64 len)
{
	const char *s = len <= KVM_HC_PRINT_MAX ? guest_ptr(hc, gpa, len) : NULL;
	u64 i;

	if (!s)
		return malformed(hc, "console text", gpa);
	for (i = 0; i < len; i++)
		put_guest_char(hc, s[i]);
	return 0;
}

static u64 hc_test_result(struct kvm_hc *hc, u64 gpa)
{
	static const char *const verdict[] = { "PASS", "FAIL", "SKIP" };
	struct hc_test_result r;
	const void *src = guest_ptr(hc, gpa, sizeof(r));

	if (!src)
		return malformed(hc, "test result", gpa);
	memcpy(&r, src, sizeof(r));
	if (r.status > TEST_SKIP)
		return malformed(hc, "test result (status not 0, 1 or 2)", gpa);
	clean(r.name, sizeof(r.name));
	clean(r.reason, sizeof(r.reason));
	fprintf(hc->out, "mhv-kvm: %s %s/%s%s%s\n", verdict[r.status], hc->suite, r.name,
		r.reason[0] ? ": " : "", r.reason);
	if (r.status == TEST_PASS)
		hc->passed++;
	else if (r.status == TEST_FAIL)
		hc->failed++;
	else
		hc->skipped++;
	return 0;
}

/* The row as mhv prints it (report_format_json), our labels before its
 * closing brace. */
static void print_row(struct kvm_hc *hc, struct bench_row *row)
{
	char line[KVM_HC_LINE_MAX], why[JSON_ESCAPED(HC_REASON_LEN)];
	const char *nc = hc->not_comparable ? hc->not_comparable(row->name) : NULL;
	int n;

	snprintf(row->suite, sizeof(row->suite), "%s", hc->suite);
	snprintf(row->column, sizeof(row->column), "%s", hc->config);
	n = report_format_json(line, sizeof(line), row, hc->env, hc->backend, 0);
	if (n < 2 || n >= (int)sizeof(line) || line[n - 1] != '}')
		return;
	line[n - 1] = 0;
	fprintf(hc->out, "%s,\"hypervisor\":\"kvm\",%s%s%s%s}\n", line, hc->labels,
		nc ? ",\"not_comparable\":\"" : "", nc ? json_escape(why, sizeof(why), nc) : "",
		nc ? "\"" : "");
	hc->rows++;
}

void kvm_hc_skip_row(struct kvm_hc *hc, const char *test, const char *why)
{
	struct bench_row row = { 0 };

	snprintf(row.name, sizeof(row.name), "%s", test);
	snprintf(row.skip_reason, sizeof(row.skip_reason), "%s", why);
	print_row(hc, &row);
}

static u64 hc_bench_result(struct kvm_hc *hc, u64 gpa)
{
	static u64 samples[HC_BENCH_MAX_SAMPLES];
	struct bench_row row = { 0 };
	struct hc_bench_result r;
	const void *src = guest_ptr(hc, gpa, sizeof(r));

	if (!src)
		return malformed(hc, "benchmark result", gpa);
	memcpy(&r, src, sizeof(r));
	clean(r.name, sizeof(r.name));
	clean(r.skip_reason, sizeof(r.skip_reason));
	memcpy(row.name, r.name, sizeof(row.name));
	if (r.skip_reason[0]) {
		memcpy(row.skip_reason, r.skip_reason, sizeof(row.skip_reason));
		print_row(hc, &row);
		return 0;
	}
	if (!r.nr_samples || r.nr_samples > HC_BENCH_MAX_SAMPLES || !r.iterations)
		return malformed(hc, "benchmark result (no samples, too many, or no iterations)",
				 gpa);
	src = guest_ptr(hc, r.samples_gpa, r.nr_samples * sizeof(u64));
	if (!src)
		return malformed(hc, "benchmark result (samples outside guest RAM)", gpa);
	memcpy(samples, src, r.nr_samples * sizeof(u64));
	stats_compute(samples, r.nr_samples, &row.st);
	row.iterations = r.iterations;
	row.batches = r.nr_samples;
	print_row(hc, &row);
	return 0;
}

static u64 hc_test_wanted(struct kvm_hc *hc, u64 gpa)
{
	char name[HC_NAME_LEN];
	const void *src = guest_ptr(hc, gpa, sizeof(name));
	unsigned i;

	if (!src)
		return malformed(hc, "test name", gpa);
	memcpy(name, src, sizeof(name));
	clean(name, sizeof(name));
	if (!hc->nr_tests)
		return 1;
	for (i = 0; i < hc->nr_tests; i++)
		if (!strcmp(hc->tests[i], name))
			return 1;
	return 0;
}

static u64 hc_params(struct kvm_hc *hc, u64 gpa)
{
	struct hc_params p = hc->params;
	void *dst = guest_ptr(hc, gpa, sizeof(p));

	if (!dst)
		return malformed(hc, "parameter block address", gpa);
	p.variant = 0;
	memcpy(dst, &p, sizeof(p));
	return 0;
}

u64 kvm_hc_call(struct kvm_hc *hc, u64 nr, u64 a0, u64 a1)
{
	switch (nr) {
	case HC_PRINT:
		return hc_print(hc, a0, a1);
	case HC_TEST_RESULT:
		return hc_test_result(hc, a0);
	case HC_BENCH_RESULT:
		return hc_bench_result(hc, a0);
	case HC_EXIT:
		if (hc->line_len)
			put_guest_char(hc, '\n');
		hc->exited = 1;
		hc->exit_code = (long long)a0;
		return 0;
	case HC_TEST_WANTED:
		return hc_test_wanted(hc, a0);
	case HC_PARAMS:
		return hc_params(hc, a0);
	}
	/* HC_EXIT_COUNT and HC_TIMESTAMPS need the hypervisor's own exit
	 * path, which user space does not see: an error, as for any
	 * number mhv does not know */
	return HC_ERROR;
}
