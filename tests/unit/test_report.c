// SPDX-License-Identifier: MIT
/* Benchmark output lines: the human row and the MHV-JSON line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lab/report.h"

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
	assert_string_equal(
	    buf, "null                               123        125        200        140  "
		 "       30");
}

static void json_line(void **state)
{
	struct bench_row row = make_row();
	char buf[400];

	(void)state;
	report_format_json(buf, sizeof(buf), &row, "bochs", "svm", 0);
	assert_string_equal(
	    buf, "MHV-JSON {\"suite\":\"vmexit\",\"test\":\"null\",\"config\":\"default\","
		 "\"env\":\"bochs\",\"backend\":\"svm\",\"unit\":\"tsc\","
		 "\"iterations\":1000,\"batches\":5,\"min\":123,\"median\":125,"
		 "\"p99\":200,\"mean\":140,\"stddev\":30,\"max\":200}");
}

/* APERF/MPERF over the benchmark: a core at 1.5 times the TSC's 2 GHz
 * (boost) runs 3000 MHz, and the 125-tick median is 187 core cycles
 * (rounded down); without the counters both columns say "-". */
static void clock_columns(void **state)
{
	struct bench_row row = make_row();
	char buf[400];

	(void)state;
	report_format_clock(buf, sizeof(buf), &row, 2000000000ull);
	assert_string_equal(buf, "        -       -");
	report_format_json(buf, sizeof(buf), &row, "bochs", "svm", 2000000000ull);
	assert_null(strstr(buf, "mhz"));
	row.clock.d_aperf = 3000000;
	row.clock.d_mperf = 2000000;
	report_format_clock(buf, sizeof(buf), &row, 2000000000ull);
	assert_string_equal(buf, "     3000     187");
	report_format_json(buf, sizeof(buf), &row, "bochs", "svm", 2000000000ull);
	assert_non_null(strstr(buf, ",\"max\":200,\"mhz\":3000,\"cycles_median\":187}"));
	/* no TSC frequency: no clock either */
	report_format_clock(buf, sizeof(buf), &row, 0);
	assert_string_equal(buf, "        -       -");
	/* SMIs counted (Intel): the row says how many fell into it */
	row.clock.smis_known = true;
	row.clock.smis = 2;
	report_format_clock(buf, sizeof(buf), &row, 2000000000ull);
	assert_string_equal(buf, "     3000     187  SMIs: 2");
	report_format_json(buf, sizeof(buf), &row, "bochs", "svm", 2000000000ull);
	assert_non_null(strstr(buf, ",\"cycles_median\":187,\"smis\":2}"));
	row.clock.smis = 0;
	/* a core slowed below the TSC's rate (a power limit, an idle P-state) */
	row.clock.d_aperf = 1;
	row.clock.d_mperf = 4;
	report_format_clock(buf, sizeof(buf), &row, 3600000000ull);
	assert_string_equal(buf, "      900      31");
}

/* Counts by class from two samples (platform/insn_class.h): 2 PMU WRMSRs per
 * iteration over 2100 iterations, and the bracket's 5 more, show as 2; a
 * class at 1 in 3 iterations as 0.33; the table names only the classes
 * that occur, JSON every one; unknown across two CPUs. */
static void class_counts(void **state)
{
	struct bench_row row = make_row();
	struct insn_class_sample a = { .valid = true, .cpu = 1 }, b = a;
	char buf[700];

	(void)state;
	a.count[ICLASS_WRMSR_PMU] = 1000;
	b.count[ICLASS_WRMSR_PMU] = 1000 + 2 * 2100 + 5;
	b.count[ICLASS_CPUID] = 700;
	insn_class_rate(&row.clock.classes, &a, &b, NULL, 2100);
	assert_true(row.clock.classes.known);
	assert_int_equal(row.clock.classes.hundredths[ICLASS_WRMSR_PMU], 200);
	assert_int_equal(row.clock.classes.hundredths[ICLASS_CPUID], 33);
	report_format_classes(buf, sizeof(buf), &row.clock.classes, false);
	assert_string_equal(buf, "  per iteration: cpuid 0.33 wrmsr_pmu 2");
	report_format_json(buf, sizeof(buf), &row, "bochs", "svm", 0);
	assert_non_null(strstr(buf, ",\"max\":200,\"classes\":{\"cpuid\":0.33,"
				    "\"rdmsr_pmu\":0,\"rdmsr_spec\":0,\"rdmsr_other\":0,"
				    "\"wrmsr_pmu\":2,\"wrmsr_spec\":0,\"wrmsr_other\":0,"
				    "\"rdpmc\":0,\"xstate\":0,\"svm\":0,\"vmx\":0,"
				    "\"cr_tlb\":0,\"serializing\":0,\"verw\":0}}"));
	/* nothing of any class: said, not left blank */
	insn_class_rate(&row.clock.classes, &a, &a, NULL, 2100);
	report_format_classes(buf, sizeof(buf), &row.clock.classes, false);
	assert_string_equal(buf, "  per iteration: none");
	/* another CPU's counts, or none at all (hardware): no column, no key */
	b.cpu = 2;
	insn_class_rate(&row.clock.classes, &a, &b, NULL, 2100);
	assert_false(row.clock.classes.known);
	assert_int_equal(report_format_classes(buf, sizeof(buf), &row.clock.classes, false), 0);
	report_format_json(buf, sizeof(buf), &row, "bochs", "svm", 0);
	assert_null(strstr(buf, "classes"));
	b.cpu = 1;
	b.valid = false;
	insn_class_rate(&row.clock.classes, &a, &b, NULL, 2100);
	assert_false(row.clock.classes.known);
}

static void skipped_row(void **state)
{
	struct bench_row row = make_row();
	char buf[400];

	(void)state;
	strcpy(row.skip_reason, "no IBPB");
	report_format_row(buf, sizeof(buf), &row);
	assert_string_equal(buf, "null                         (skipped: no IBPB)");
	report_format_json(buf, sizeof(buf), &row, "qemu-tcg", "svm", 0);
	assert_string_equal(buf, "MHV-JSON {\"suite\":\"vmexit\",\"test\":\"null\",\"config\":"
				 "\"default\",\"env\":\"qemu-tcg\",\"backend\":\"svm\","
				 "\"skipped\":\"no IBPB\"}");
}

/* Whatever a guest named its benchmark, the line stays one line of
 * ASCII and one JSON object with the fields mhv wrote. */
static void json_strings_escaped(void **state)
{
	struct bench_row row = make_row();
	char buf[REPORT_JSON_MAX];

	(void)state;
	strcpy(row.name, "q\"\\\nMHV-JSON {}\x1b\xff");
	strcpy(row.skip_reason, "\t\"}\r\nMHV-JSON {\"median\":1}");
	report_format_json(buf, sizeof(buf), &row, "qemu-tcg", "svm", 0);
	assert_string_equal(buf,
			    "MHV-JSON {\"suite\":\"vmexit\",\"test\":\"q\\\"\\\\\\u000aMHV-JSON "
			    "{}\\u001b\\u00ff\",\"config\":\"default\",\"env\":\"qemu-tcg\","
			    "\"backend\":\"svm\",\"skipped\":\"\\u0009\\\"}\\u000d\\u000aMHV-JSON "
			    "{\\\"median\\\":1}\"}");
	/* the longest strings a row holds, each byte escaped to six */
	memset(row.name, '\n', sizeof(row.name) - 1);
	memset(row.skip_reason, '\x01', sizeof(row.skip_reason) - 1);
	memset(row.column, '"', sizeof(row.column) - 1);
	assert_true(report_format_json(buf, sizeof(buf), &row, "qemu-tcg", "svm", 0) <
		    (int)sizeof(buf));
	assert_non_null(strstr(buf, "\\u0001\"}"));
}

static void truncation_is_safe(void **state)
{
	struct bench_row row = make_row();
	char buf[16];
	int n;

	(void)state;
	n = report_format_json(buf, sizeof(buf), &row, "bochs", "svm", 0);
	assert_true(n > (int)sizeof(buf));
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
}

static void gain_column(void **state)
{
	char buf[32];

	(void)state;
	/* the seed table: cpuid sw 5333 vs hw 2592 is +51.4%, invd 1857 vs 2147 -15.6% */
	report_format_gain(buf, sizeof(buf), 5333, 2592);
	assert_string_equal(buf, "+51.4%");
	report_format_gain(buf, sizeof(buf), 1857, 2147);
	assert_string_equal(buf, "-15.6%");
	report_format_gain(buf, sizeof(buf), 18, 18);
	assert_string_equal(buf, "+0.0%");
	report_format_gain(buf, sizeof(buf), 0, 5);
	assert_string_equal(buf, "n/a");
	report_format_gain(buf, sizeof(buf), 2000, 1999); /* 0.05% rounds away from zero */
	assert_string_equal(buf, "+0.1%");
}

static void nanoseconds(void **state)
{
	char buf[32];

	(void)state;
	report_format_ns(buf, sizeof(buf), 1234, 2000000000);
	assert_string_equal(buf, "617.0");
	report_format_ns(buf, sizeof(buf), 1, 3000000000); /* 0.333: tenths round down */
	assert_string_equal(buf, "0.3");
	report_format_ns(buf, sizeof(buf), 2, 3000000000); /* 0.666 */
	assert_string_equal(buf, "0.6");
	report_format_ns(buf, sizeof(buf), 1000, 0);
	assert_string_equal(buf, "-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(human_row),
		cmocka_unit_test(json_line),
		cmocka_unit_test(clock_columns),
		cmocka_unit_test(class_counts),
		cmocka_unit_test(skipped_row),
		cmocka_unit_test(truncation_is_safe),
		cmocka_unit_test(gain_column),
		cmocka_unit_test(nanoseconds),
		cmocka_unit_test(json_strings_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
