// SPDX-License-Identifier: MIT
/*
 * fuzz: the random-exit guest (docs/fuzz.md).  Variant 0 draws operations
 * from the seed mhv passes ("fuzz_seed =", else one mhv picks) until it
 * has caused the exit budget ("fuzz_exits ="), catching every fault it
 * raises, then prints what it tried and reached.  Variant 1, the VM after
 * it on the same CPU, checks that it starts from the reset state whatever
 * the fuzzer left.  Variant 2 is the differential run: the operations
 * whose outcome the bare emulator shares, one line each.
 */
#include "core/exit.h"
#include "fuzz/fuzz.h"
#include "xstate/xstate.h"
#include "lib/fmt.h"

GUEST_BENCH_ROWS();

#define BUDGET_CHECK_OPS 256 /* ops between two looks at the exit counts */
#define DEFAULT_EXITS 2000
#define DIFF_OPS 600

static const char *const vector_names[32] = {
	[0] = "DE",  [1] = "DB",  [2] = "NMI", [3] = "BP",  [4] = "OF",
	[5] = "BR",  [6] = "UD",  [7] = "NM",  [8] = "DF",  [13] = "GP",
	[14] = "PF", [16] = "MF", [17] = "AC", [18] = "MC", [19] = "XM",
};

static void print_ring(void)
{
	u32 i, n;

	if (!fuzz_ring)
		return;
	n = fuzz_ring->done;
	gprintf("fuzz: seed %u: the last operations, oldest first:\n", fuzz_ring->seed);
	for (i = n >= FUZZ_RING_LEN ? n - FUZZ_RING_LEN + 1 : 1; i && i <= n; i++) {
		const struct fuzz_ring_op *r = &fuzz_ring->ops[i % FUZZ_RING_LEN];

		gprintf("fuzz:   #%u %s/%u 0x%llx 0x%llx\n", r->n, fuzz_op_name(r->op), r->size,
			(unsigned long long)r->a, (unsigned long long)r->b);
	}
}

/* An exception no probe expected: a data breakpoint a random DR7 armed
 * (a trap: resume after disarming), else the guest is lost: say how. */
static bool stray_exception(struct guest_frame *f)
{
	if (f->vector == 1) {
		write_dr7(0x400);
		write_dr6(0xffff0ff0);
		return true;
	}
	if (f->vector == 7) {
		write_cr0(read_cr0() & ~BIT(3)); /* TS */
		return true;
	}
	gprintf("fuzz: unexpected vector %llu at rip 0x%llx, error 0x%llx\n", f->vector, f->rip,
		f->error_code);
	print_ring();
	return false;
}

static u64 total_exits(void)
{
	u64 sum = 0;
	unsigned k;

	for (k = 0; k < EXIT_KIND_COUNT; k++)
		sum += exit_count(k);
	return sum;
}

static void report(const struct fuzz_env *env, const struct fuzz_stats *st, u32 seed, u32 ops)
{
	char line[256];
	u32 used = 0, kinds = 0;
	u64 exits = 0, c;
	unsigned k;

	for (k = 0; k < EXIT_KIND_COUNT; k++) {
		c = exit_count(k);
		exits += c;
		kinds += c != 0;
	}
	gprintf("fuzz: seed %u: %u ops, %llu exits, %u of %u exit kinds, %u MSRs, %u ports, "
		"%u of 3 MMIO windows; outcome hash 0x%llx\n",
		seed, ops, (unsigned long long)exits, kinds, EXIT_KIND_COUNT, st->nr_msrs,
		st->nr_ports, (u32)__builtin_popcount(st->windows),
		(unsigned long long)st->outcome_hash);
	for (k = 0; k < NR_FUZZ_OPS; k++)
		used += fmt_snprintf(line + used, sizeof(line) - used, " %s=%llu/%llu",
				     fuzz_op_name(k), (unsigned long long)st->tried[k],
				     (unsigned long long)st->faulted[k]);
	gprintf("fuzz: ops (tried/faulted):%s\n", line);
	used = 0;
	for (k = 0; k < 32; k++)
		if (st->vectors[k])
			used +=
			    fmt_snprintf(line + used, sizeof(line) - used, " #%s=%u",
					 vector_names[k] ? vector_names[k] : "?", st->vectors[k]);
	gprintf("fuzz: faults:%s; interrupts %llu, NMIs %llu\n", used ? line : " none",
		(unsigned long long)guest_irqs, (unsigned long long)guest_nmis);
}

/*
 * The bare build (tests/fuzz-bare/): the machine as mhv gives its guests,
 * where the bare CPU would differ only by what it was left in: the local
 * APIC in x2APIC mode, EFER.NXE where the CPU has NX (hv/svm/svm_vcpu.c,
 * hv/vmx/vmx_vcpu.c).
 */
static void bare_like_mhv(void)
{
#ifdef FUZZ_BARE
	struct cpuid_regs r;

	cpuid_count(1, 0, &r);
	if (r.ecx & BIT(21))
		wrmsr(MSR_IA32_APIC_BASE, rdmsr(MSR_IA32_APIC_BASE) | BIT(11) | BIT(10));
	cpuid_count(0x80000001, 0, &r);
	if (r.edx & BIT(20))
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | BIT(11));
#endif
}

/*
 * What the differential run found (docs/fuzz.md), checked here as well:
 * CPUID leaves 0xB and 0x1F echo the sub-leaf in ECX[7:0], past the last
 * level too (SDM Vol 2A CPUID leaf 0BH).
 */
static void check_found(void)
{
	static const u32 subs[] = { 2, 0xf, 0x32, 0x995999cc };
	struct cpuid_regs r;
	u32 leaf, i, max, bad = 0;

	cpuid_count(0, 0, &r);
	max = r.eax;
	for (leaf = 0xb; leaf <= 0x1f && leaf <= max; leaf += 0x1f - 0xb)
		for (i = 0; i < ARRAY_SIZE(subs); i++) {
			cpuid_count(leaf, subs[i], &r);
			if ((r.ecx & 0xff) != (subs[i] & 0xff)) {
				bad++;
				gprintf("fuzz: CPUID 0x%x.0x%x ECX 0x%x, not the level 0x%x\n",
					leaf, subs[i], r.ecx, subs[i] & 0xff);
			}
		}
	expect("fuzz_cpuid_level_echo", !bad, "%u sub-leaves of 0xB/0x1F without ECX[7:0]", bad);
}

static int run(u32 variant, const struct hc_params *p)
{
	static struct fuzz_stats st;
	struct fuzz_env env = { .mhv = true };
	u32 seed = p->fuzz_seed, n;

#ifdef FUZZ_BARE
	env.mhv = false;
#endif
	bare_like_mhv();

	env.diff = variant == 2;
	env.max_ops = env.diff ? DIFF_OPS : 0;
	env.exit_budget = p->fuzz_exits ? p->fuzz_exits : DEFAULT_EXITS;
	if (env.mhv) {
		fuzz_ring = (struct fuzz_ring *)(uintptr_t)GUEST_FUZZ_RING;
		*fuzz_ring = (struct fuzz_ring){ .magic = FUZZ_RING_MAGIC, .seed = seed };
	}
	gprintf("fuzz: seed %u (fuzz_seed = %u replays it), %s %llu\n", seed, seed,
		env.diff ? "ops" : "exit budget",
		(unsigned long long)(env.diff ? env.max_ops : env.exit_budget));
	fuzz_seed(seed);
	fuzz_init(&env);
	guest_exception_hook = stray_exception;
	for (n = 1;; n++) {
		if (env.max_ops && n > env.max_ops)
			break;
		if (!env.max_ops && !(n % BUDGET_CHECK_OPS) && total_exits() >= env.exit_budget)
			break;
		fuzz_one(&env, &st, n);
	}
	guest_exception_hook = NULL;
	report(&env, &st, seed, n - 1);
	test_report(env.diff ? "fuzz_diff" : "fuzz", TEST_PASS, "%s", "");
	return 0;
}

/* ---- variant 1: the next VM starts from the reset state ---- */

static unsigned fresh_failures;

static void expect_value(const char *what, u64 got, u64 reset)
{
	if (got == reset)
		return;
	fresh_failures++;
	gprintf("fuzz_fresh: %s is 0x%llx, not its reset value 0x%llx\n", what,
		(unsigned long long)got, (unsigned long long)reset);
}

static void expect_msr(u32 msr, u64 reset)
{
	char what[32];
	u64 v;

	if (rdmsr_safe(msr, &v) >= 0)
		return; /* not offered: the fuzzer could not have changed it */
	fmt_snprintf(what, sizeof(what), "MSR 0x%x", msr);
	expect_value(what, v, reset);
}

/* The counters' registers of either vendor: 0 at reset (SDM Vol 3
 * §20.2.1.1; APM Vol 2 §13.2.1), except counter 0 in the columns whose
 * guest counts instructions (vm_config guest_counts_insn): mhv starts it
 * counting retired instructions in both rings. */
#define INSN_COUNTER_SEL 0x4300c0ull /* EN, USR, OS, event 0xC0 */

static void expect_pmu_reset(void)
{
	u64 sel0 = 0;
	u32 i, first = 0;

	if ((rdmsr_safe(0x186, &sel0) < 0 || rdmsr_safe(0xc0010200, &sel0) < 0) &&
	    sel0 == INSN_COUNTER_SEL)
		first = 1;
	for (i = first; i < 8; i++) {
		expect_msr(0x186 + i, 0); /* IA32_PERFEVTSELi */
		expect_msr(0xc1 + i, 0);  /* IA32_PMCi */
	}
	expect_msr(0x38d, 0); /* IA32_FIXED_CTR_CTRL */
	for (i = 2 * first; i < 12; i++)
		expect_msr(0xc0010200 + i, 0); /* PerfEvtSel/PerfCtr, AMD core extension */
	for (i = 0; i < 4; i++) {
		if (i < first)
			continue;
		expect_msr(0xc0010000 + i, 0); /* legacy K7 PerfEvtSel/PerfCtr */
		expect_msr(0xc0010004 + i, 0);
	}
}

/*
 * What a VM starts with on mhv: the architectural reset values (DR6
 * 0xFFFF0FF0, DR7 0x400: SDM Vol 3 §18.2; the local APIC's masked LVTs
 * and SVR 0xFF: §11.4.7.1; PAT: §13.12.4), XCR0 x87 only, and mhv's own
 * (hv/core/msr.c msr_vcpu_reset: machine-check banks 0, MTRRs as a PC's
 * firmware leaves them).
 */
static int fresh(void)
{
	static const u32 zero_msrs[] = {
		0x3b,	    0x48,	0xda0,	    0x1d9,	0x174,	    0x175,	0x176,
		0xc0000081, 0xc0000082, 0xc0000083, 0xc0000084, 0xc0000100, 0xc0000101, 0xc0000102,
		0xc0000103, 0x808,	0x838,	    0x400,	0x401,	    0x410,	0x411,
	};
	u32 i;

	expect_value("DR0", read_dr0(), 0);
	expect_value("DR1", read_dr1(), 0);
	expect_value("DR2", read_dr2(), 0);
	expect_value("DR3", read_dr3(), 0);
	expect_value("DR6", read_dr6(), 0xffff0ff0);
	expect_value("DR7", read_dr7(), 0x400);
	expect_value("CR8", read_cr8(), 0);
	if (guest_has_xsave)
		expect_value("XCR0", xgetbv(0), XSTATE_X87);
	for (i = 0; i < ARRAY_SIZE(zero_msrs); i++)
		expect_msr(zero_msrs[i], 0);
	expect_msr(MSR_IA32_PAT, 0x0007040600070406ull);
	expect_msr(0x80f, 0xff); /* SVR */
	for (i = 0x832; i <= 0x837; i++)
		if (i != 0x833)			/* LVT timer, PMC, LINT0/1, error; not thermal */
			expect_msr(i, BIT(16)); /* masked */
	expect_msr(MSR_MTRR_DEF_TYPE, 0xc06);
	expect_pmu_reset();
	gprintf("fuzz_fresh: %u registers not at their reset values\n", fresh_failures);
	expect("fuzz_fresh", !fresh_failures, "%u registers kept the previous VM's values",
	       fresh_failures);
	return 0;
}

int guest_main(u32 variant)
{
	struct hc_params p = { 0 };

	guest_rt_init();
	if (hypercall(HC_PARAMS, (u64)(uintptr_t)&p, 0) == HC_ERROR) {
		test_report("fuzz", TEST_FAIL, "HC_PARAMS failed");
		return 1;
	}
	if (variant == 1)
		return test_wanted("fuzz_fresh") ? fresh() : 0;
	if (variant == 0 && test_wanted("fuzz_cpuid_level_echo"))
		check_found();
	return test_wanted(variant == 2 ? "fuzz_diff" : "fuzz") ? run(variant, &p) : 0;
}
