// SPDX-License-Identifier: MIT
/*
 * vmexit: exit round-trip latencies, kvm-unit-tests' x86/vmexit.c names
 * where the meaning is the same.  Each test is timed in batches; one
 * sample per batch (TSC ticks per iteration) goes to mhv, which computes
 * the statistics and prints the tables.
 */
#include "rt.h"

#define MAX_BATCHES HC_BENCH_MAX_SAMPLES

typedef void bench_fn(void);

static u64 samples[MAX_BATCHES];
static struct hc_params params;

static void loop_overhead(void)
{
	asm volatile("" ::: "memory");
}

static void null_vmmcall(void)
{
	asm volatile("vmmcall" ::"a"(HC_NULL) : "memory");
}

static void null_vmcall(void)
{
	asm volatile("vmcall" ::"a"(HC_NULL) : "memory");
}

static void cpuid_0(void)
{
	u32 a = 0, b, c = 0, d;

	asm volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d)::"memory");
}

struct bench {
	const char *name;
	bench_fn *fn;
};

static u64 run_batch(bench_fn *fn, u32 n)
{
	u64 t0, t1;
	u32 i;

	t0 = rdtsc_ordered();
	for (i = 0; i < n; i++)
		fn();
	t1 = rdtsc_ordered();
	return t1 - t0;
}

static void run_bench(const struct bench *b)
{
	struct hc_bench_result r = { 0 };
	u32 i, n = params.iterations;

	if (!test_wanted(b->name))
		return;
	if (params.warmup)
		run_batch(b->fn, params.warmup);
	for (i = 0; i < params.batches; i++)
		samples[i] = (run_batch(b->fn, n) + n / 2) / n;
	__builtin_memcpy(r.name, b->name, __builtin_strlen(b->name) + 1);
	__builtin_memcpy(r.unit, "tsc", 4);
	r.nr_samples = params.batches;
	r.iterations = n;
	r.samples_gpa = (u64)(uintptr_t)samples;
	if (hypercall(HC_BENCH_RESULT, (u64)(uintptr_t)&r, 0) == HC_ERROR)
		test_report(b->name, TEST_FAIL, "mhv refused the benchmark result");
}

u64 guest_main(u64 variant)
{
	unsigned i;

	guest_rt_init();
	const struct bench benches[] = {
		{ "loop_overhead", loop_overhead },
		{ "null", hypercall_is_vmcall ? null_vmcall : null_vmmcall },
		{ "cpuid", cpuid_0 },
	};

	if (hypercall(HC_PARAMS, (u64)(uintptr_t)&params, 0) == HC_ERROR) {
		test_report("params", TEST_FAIL, "HC_PARAMS failed");
		return 1;
	}
	if (params.batches > MAX_BATCHES)
		params.batches = MAX_BATCHES;
	for (i = 0; i < ARRAY_SIZE(benches); i++)
		run_bench(&benches[i]);
	return 0;
}
