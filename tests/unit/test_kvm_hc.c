// SPDX-License-Identifier: MIT
/* The KVM side's result channel (scripts/kvm/kvm_hc.c): what a guest
 * reports, well-formed and malformed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../scripts/kvm/kvm_hc.h"

#define RAM (1ull << 20)
#define RESULT_GPA 0x1000ull
#define SAMPLES_GPA 0x2000ull

struct fixture {
	struct kvm_hc hc;
	char *out;
	size_t out_len;
};

static const char *nc(const char *test)
{
	return strcmp(test, "inl_from_hv") ? NULL : "user space";
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->hc.ram = calloc(1, RAM);
	f->hc.ram_size = RAM;
	f->hc.suite = "vmexit";
	f->hc.config = "kvm";
	f->hc.env = "bochs";
	f->hc.backend = "svm";
	f->hc.labels = "\"kernel\":\"6.1\"";
	f->hc.not_comparable = nc;
	f->hc.out = open_memstream(&f->out, &f->out_len);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	fclose(f->hc.out);
	free(f->out);
	free(f->hc.ram);
	free(f);
	return 0;
}

static const char *output(struct fixture *f)
{
	fflush(f->hc.out);
	return f->out;
}

static void put_bench(struct fixture *f, const char *name, u32 n, u64 samples_gpa)
{
	struct hc_bench_result r = { .nr_samples = n,
				     .iterations = 200,
				     .samples_gpa = samples_gpa };
	u64 s[5] = { 90, 80, 85, 80, 1000 };

	snprintf(r.name, sizeof(r.name), "%s", name);
	memcpy(f->hc.ram + RESULT_GPA, &r, sizeof(r));
	memcpy(f->hc.ram + SAMPLES_GPA, s, sizeof(s));
}

static void test_bench_row(void **state)
{
	struct fixture *f = *state;

	put_bench(f, "cpuid", 5, SAMPLES_GPA);
	assert_int_equal(kvm_hc_call(&f->hc, HC_BENCH_RESULT, RESULT_GPA, 0), 0);
	assert_int_equal(f->hc.rows, 1);
	assert_int_equal(f->hc.malformed, 0);
	/* mhv's statistics: median of 80 80 85 90 1000, nearest-rank p99 */
	assert_non_null(strstr(output(f),
			       "MHV-JSON {\"suite\":\"vmexit\",\"test\":\"cpuid\","
			       "\"config\":\"kvm\",\"env\":\"bochs\",\"backend\":\"svm\","
			       "\"unit\":\"tsc\",\"iterations\":200,\"batches\":5,"
			       "\"min\":80,\"median\":85,\"p99\":1000,"));
	assert_non_null(strstr(output(f), ",\"hypervisor\":\"kvm\",\"kernel\":\"6.1\"}\n"));
	assert_null(strstr(output(f), "not_comparable"));
}

static void test_not_comparable(void **state)
{
	struct fixture *f = *state;

	put_bench(f, "inl_from_hv", 5, SAMPLES_GPA);
	assert_int_equal(kvm_hc_call(&f->hc, HC_BENCH_RESULT, RESULT_GPA, 0), 0);
	assert_non_null(strstr(output(f), ",\"not_comparable\":\"user space\"}\n"));
}

static void test_samples_outside_ram(void **state)
{
	struct fixture *f = *state;

	put_bench(f, "cpuid", 5, RAM - 16);
	assert_int_equal(kvm_hc_call(&f->hc, HC_BENCH_RESULT, RESULT_GPA, 0), HC_ERROR);
	assert_int_equal(f->hc.malformed, 1);
	assert_int_equal(f->hc.rows, 0);
	assert_string_equal(output(f), "mhv-kvm: vmexit: malformed benchmark result (samples "
				       "outside guest RAM) from the guest (at 0x1000)\n");
}

static void test_no_samples(void **state)
{
	struct fixture *f = *state;

	put_bench(f, "cpuid", 0, SAMPLES_GPA);
	assert_int_equal(kvm_hc_call(&f->hc, HC_BENCH_RESULT, RESULT_GPA, 0), HC_ERROR);
	put_bench(f, "cpuid", HC_BENCH_MAX_SAMPLES + 1, SAMPLES_GPA);
	assert_int_equal(kvm_hc_call(&f->hc, HC_BENCH_RESULT, RESULT_GPA, 0), HC_ERROR);
	assert_int_equal(f->hc.malformed, 2);
	assert_null(strstr(output(f), "MHV-JSON"));
}

static void test_result_outside_ram(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(kvm_hc_call(&f->hc, HC_BENCH_RESULT, RAM - 8, 0), HC_ERROR);
	assert_int_equal(kvm_hc_call(&f->hc, HC_TEST_RESULT, ~0ull, 0), HC_ERROR);
	assert_int_equal(kvm_hc_call(&f->hc, HC_PRINT, RAM - 4, 8), HC_ERROR);
	assert_int_equal(kvm_hc_call(&f->hc, HC_PARAMS, RAM, 0), HC_ERROR);
	assert_int_equal(f->hc.malformed, 4);
}

static void test_bad_status_and_forged_text(void **state)
{
	struct fixture *f = *state;
	struct hc_test_result r = { .status = 7 };

	memcpy(f->hc.ram + RESULT_GPA, &r, sizeof(r));
	assert_int_equal(kvm_hc_call(&f->hc, HC_TEST_RESULT, RESULT_GPA, 0), HC_ERROR);
	r.status = TEST_FAIL;
	snprintf(r.name, sizeof(r.name), "x\nMHV-JSON {}");
	memcpy(f->hc.ram + RESULT_GPA, &r, sizeof(r));
	assert_int_equal(kvm_hc_call(&f->hc, HC_TEST_RESULT, RESULT_GPA, 0), 0);
	assert_int_equal(f->hc.failed, 1);
	/* no guest text starts a line of its own */
	assert_non_null(strstr(output(f), "mhv-kvm: FAIL vmexit/x?MHV-JSON {}\n"));
	assert_null(strstr(output(f), "\nMHV-JSON"));
}

static void test_params_and_wanted(void **state)
{
	struct fixture *f = *state;
	struct hc_params p;

	f->hc.params =
	    (struct hc_params){ .iterations = 200, .batches = 10, .warmup = 100, .variant = 3 };
	assert_int_equal(kvm_hc_call(&f->hc, HC_PARAMS, RESULT_GPA, 0), 0);
	memcpy(&p, f->hc.ram + RESULT_GPA, sizeof(p));
	assert_int_equal(p.iterations, 200);
	assert_int_equal(p.batches, 10);
	assert_int_equal(p.warmup, 100);
	assert_int_equal(p.variant, 0);
	strcpy((char *)f->hc.ram + RESULT_GPA, "cpuid");
	assert_int_equal(kvm_hc_call(&f->hc, HC_TEST_WANTED, RESULT_GPA, 0), 1);
	f->hc.tests[f->hc.nr_tests++] = "null";
	assert_int_equal(kvm_hc_call(&f->hc, HC_TEST_WANTED, RESULT_GPA, 0), 0);
	/* what needs mhv's own exit path is an error, as an unknown number */
	assert_int_equal(kvm_hc_call(&f->hc, HC_EXIT_COUNT, 0, 0), HC_ERROR);
	assert_int_equal(kvm_hc_call(&f->hc, HC_UNKNOWN_NR, 0, 0), HC_ERROR);
	assert_int_equal(kvm_hc_call(&f->hc, HC_EXIT, 3, 0), 0);
	assert_true(f->hc.exited);
	assert_int_equal(f->hc.exit_code, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bench_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_comparable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples_outside_ram, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_outside_ram, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_status_and_forged_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_params_and_wanted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
