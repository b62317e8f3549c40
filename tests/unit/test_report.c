// SPDX-License-Identifier: MIT
/* Benchmark output lines: the human row and the MHV-JSON line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "report.h"

static struct bench_row make_row(void)
{
	struct bench_row row;
	u64 samples[] = { 130, 123, 125, 200, 124 };

	memset(&row, 0, sizeof(row));
	strcpy(row.suite, "vmexit");
	strcpy(row.name, "null");
	strcpy(row.column, "default");
	row.iterations = 1000;
	row.batches = 5;
	stats_compute(samples, 5, &row.st);
	return row;
}

static void human_row(void **state)
{
	struct bench_row row = make_row();
	char buf[200];

	(void)state;
	report_format_row(buf, sizeof(buf), &row);
	assert_string_equal(buf,
			    "null                           123        125        200        140  "
			    "       30");
}

static void json_line(void **state)
{
	struct bench_row row = make_row();
	char buf[400];

	(void)state;
	report_format_json(buf, sizeof(buf), &row, "bochs", "svm");
	assert_string_equal(
	    buf, "MHV-JSON {\"suite\":\"vmexit\",\"test\":\"null\",\"config\":\"default\","
		 "\"env\":\"bochs\",\"backend\":\"svm\",\"unit\":\"tsc\","
		 "\"iterations\":1000,\"batches\":5,\"min\":123,\"median\":125,"
		 "\"p99\":200,\"mean\":140,\"stddev\":30,\"max\":200}");
}

static void skipped_row(void **state)
{
	struct bench_row row = make_row();
	char buf[400];

	(void)state;
	strcpy(row.skip_reason, "no IBPB");
	report_format_row(buf, sizeof(buf), &row);
	assert_string_equal(buf, "null                     (skipped: no IBPB)");
	report_format_json(buf, sizeof(buf), &row, "qemu-tcg", "svm");
	assert_string_equal(buf, "MHV-JSON {\"suite\":\"vmexit\",\"test\":\"null\",\"config\":"
				 "\"default\",\"env\":\"qemu-tcg\",\"backend\":\"svm\","
				 "\"skipped\":\"no IBPB\"}");
}

static void truncation_is_safe(void **state)
{
	struct bench_row row = make_row();
	char buf[16];
	int n;

	(void)state;
	n = report_format_json(buf, sizeof(buf), &row, "bochs", "svm");
	assert_true(n > (int)sizeof(buf));
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(human_row),
		cmocka_unit_test(json_line),
		cmocka_unit_test(skipped_row),
		cmocka_unit_test(truncation_is_safe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
