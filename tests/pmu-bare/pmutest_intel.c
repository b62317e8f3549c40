/* SPDX-License-Identifier: MIT */
/*
 * The bare test of the patched Bochs' Intel PMU model (skylake_pmu,
 * tests/emu/bochs/0007): the architectural PMU version 4 against the SDM
 * (December 2023 numbering: Vol 3B 20.2), no hypervisor.  The counts are
 * pmuasm.asm's, as on AMD.
 */
#include "pmutest.h"

u64 pmu_loop_intel(u64 n, u64 global_ctrl);
void pmu_loop_intel_sti(u64 n, u64 global_ctrl);

/* SDM Vol 4 Table 2-2 */
#define MSR_PMC(n) (0xc1u + (n))
#define MSR_A_PMC(n) (0x4c1u + (n))
#define MSR_PERFEVTSEL(n) (0x186u + (n))
#define MSR_FIXED_CTR(n) (0x309u + (n))
#define MSR_PERF_CAPABILITIES 0x345u
#define MSR_FIXED_CTR_CTRL 0x38du
#define MSR_GLOBAL_STATUS 0x38eu
#define MSR_GLOBAL_CTRL 0x38fu
#define MSR_GLOBAL_OVF_CTRL 0x390u
#define MSR_GLOBAL_STATUS_SET 0x391u

#define SEL_USR (1ull << 16)
#define SEL_OS (1ull << 17)
#define SEL_INT (1ull << 20)
#define SEL_EN (1ull << 22)
/* architectural events (SDM Vol 3B Table 20-1): umask << 8 | event */
#define EV_CYCLES 0x3cull
#define EV_INSNS 0xc0ull
#define EV_REF_CYCLES 0x13cull
#define EV_BRANCHES 0xc4ull

#define NR_GP 4
#define NR_FIXED 3
#define GP_BITS 0xfull
#define FIXED_BIT(j) (1ull << (32 + (j)))
#define FIXED_BITS (7ull << 32)
#define CTR_MASK ((1ull << 48) - 1)
#define RDPMC_FIXED (1u << 30)
#define LVT_MASKED 0x10000u

static void pmu_clear(void)
{
	unsigned n;

	wrmsr(MSR_GLOBAL_CTRL, 0);
	wrmsr(MSR_FIXED_CTR_CTRL, 0);
	for (n = 0; n < NR_GP; n++) {
		wrmsr(MSR_PERFEVTSEL(n), 0);
		wrmsr(MSR_A_PMC(n), 0);
	}
	for (n = 0; n < NR_FIXED; n++)
		wrmsr(MSR_FIXED_CTR(n), 0);
	wrmsr(MSR_GLOBAL_OVF_CTRL, GP_BITS | FIXED_BITS);
}

static u32 gp_after(u32 before)
{
	return gp_count - before;
}

static void test_cpuid(void)
{
	u32 a, b, c, d;

	cpuid(0xa, &a, &b, &c, &d);
	check("cpuid 0AH: version 4", a & 0xff, 4);
	check("cpuid 0AH: 4 GP counters", (a >> 8) & 0xff, NR_GP);
	check("cpuid 0AH: GP counters of 48 bits", (a >> 16) & 0xff, 48);
	check("cpuid 0AH: EBX: cycles, instructions, ref cycles, branches available", b & 0x27, 0);
	check("cpuid 0AH: 3 fixed counters", d & 0x1f, NR_FIXED);
	check("cpuid 0AH: fixed counters of 48 bits", (d >> 5) & 0xff, 48);
	cpuid(1, &a, &b, &c, &d);
	check("cpuid 1: PDCM (ECX[15], IA32_PERF_CAPABILITIES)", (c >> 15) & 1, 1);
	check("PERF_CAPABILITIES[13]: full-width writes", (rdmsr(MSR_PERF_CAPABILITIES) >> 13) & 1,
	      1);
}

static void test_msrs(void)
{
	u32 gp;

	check("reset: GLOBAL_CTRL enables the GP counters", rdmsr(MSR_GLOBAL_CTRL), GP_BITS);
	pmu_clear();
	wrmsr(MSR_A_PMC(0), 0xff0123456789ull);
	check("A_PMC0 write keeps 48 bits, PMC0 reads it", rdmsr(MSR_PMC(0)), 0xff0123456789ull);
	check("RDPMC 0 reads it", rdpmc(0), 0xff0123456789ull);
	gp = gp_count;
	wrmsr(MSR_A_PMC(1), 1ull << 48);
	check("A_PMC1 write above 48 bits is #GP", gp_after(gp), 1);
	wrmsr(MSR_PMC(2), 0x80000001ull);
	check("PMC2 write sign-extends bit 31", rdmsr(MSR_A_PMC(2)), 0xffff80000001ull);
	wrmsr(MSR_PMC(3), 0x500000007ull);
	check("PMC3 write keeps bits 31:0", rdmsr(MSR_PMC(3)), 7);
	wrmsr(MSR_FIXED_CTR(1), 0x1234);
	check("RDPMC fixed 1 reads FIXED_CTR1", rdpmc(RDPMC_FIXED | 1), 0x1234);
	gp = gp_count;
	rdpmc(NR_GP);
	check("RDPMC 4 is #GP", gp_after(gp), 1);
	gp = gp_count;
	rdpmc(RDPMC_FIXED | NR_FIXED);
	check("RDPMC fixed 3 is #GP", gp_after(gp), 1);
	gp = gp_count;
	wrmsr(MSR_PERFEVTSEL(0), EV_INSNS | (1ull << 32));
	check("PERFEVTSEL bit 32 (no TSX) is #GP", gp_after(gp), 1);
	gp = gp_count;
	wrmsr(MSR_FIXED_CTR_CTRL, 1ull << 12);
	check("FIXED_CTR_CTRL nibble 3 (no counter) is #GP", gp_after(gp), 1);
	gp = gp_count;
	wrmsr(MSR_GLOBAL_CTRL, 1ull << NR_GP);
	check("GLOBAL_CTRL bit 4 (no counter) is #GP", gp_after(gp), 1);
	gp = gp_count;
	wrmsr(MSR_GLOBAL_CTRL, FIXED_BIT(NR_FIXED));
	check("GLOBAL_CTRL bit 35 (no fixed counter) is #GP", gp_after(gp), 1);
	gp = gp_count;
	wrmsr(MSR_GLOBAL_STATUS, 1);
	check("GLOBAL_STATUS is read-only (#GP)", gp_after(gp), 1);
	gp = gp_count;
	wrmsr(MSR_PERF_CAPABILITIES, 0);
	check("PERF_CAPABILITIES is read-only (#GP)", gp_after(gp), 1);
	wrmsr(MSR_GLOBAL_STATUS_SET, FIXED_BIT(2) | 0x5);
	check("STATUS_SET sets status bits", rdmsr(MSR_GLOBAL_STATUS), FIXED_BIT(2) | 0x5);
	wrmsr(MSR_GLOBAL_OVF_CTRL, 0x1);
	check("OVF_CTRL clears status bits", rdmsr(MSR_GLOBAL_STATUS), FIXED_BIT(2) | 0x4);
	pmu_clear();
}

static void test_counting(void)
{
	const u64 want = 2 * N + 5;

	pmu_clear();
	wrmsr(MSR_PERFEVTSEL(0), EV_INSNS | SEL_OS | SEL_USR | SEL_EN);
	wrmsr(MSR_PERFEVTSEL(1), EV_BRANCHES | SEL_OS | SEL_EN);
	wrmsr(MSR_PERFEVTSEL(2), EV_CYCLES | SEL_OS | SEL_EN);
	wrmsr(MSR_PERFEVTSEL(3), EV_INSNS | SEL_USR | SEL_EN); /* CPL 0: nothing */
	wrmsr(MSR_FIXED_CTR_CTRL, 0x211); /* fixed 0, 1: OS; fixed 2: USR only */
	pmu_loop_intel(N, GP_BITS | FIXED_BITS);
	check("instructions retired (0xC0): loop of N counts 2N+5", rdmsr(MSR_PMC(0)), want);
	check("branches retired (0xC4): loop of N counts N", rdmsr(MSR_PMC(1)), N);
	check("core cycles (0x3C): one per retired instruction", rdmsr(MSR_PMC(2)), want);
	check("USR only at CPL 0 counts nothing", rdmsr(MSR_PMC(3)), 0);
	check("fixed 0: instructions, 2N+5", rdmsr(MSR_FIXED_CTR(0)), want);
	check("fixed 1: core cycles, 2N+5", rdmsr(MSR_FIXED_CTR(1)), want);
	check("fixed 2 with USR only at CPL 0 counts nothing", rdmsr(MSR_FIXED_CTR(2)), 0);
	check("RDPMC fixed 0 reads the count", rdpmc(RDPMC_FIXED | 0), want);

	/* GLOBAL_CTRL gates each counter; a counter counts on from its value */
	wrmsr(MSR_A_PMC(0), 100);
	wrmsr(MSR_PERFEVTSEL(1), EV_INSNS | SEL_OS); /* EN clear */
	wrmsr(MSR_A_PMC(1), 0);
	wrmsr(MSR_PERFEVTSEL(2), EV_REF_CYCLES | SEL_OS | SEL_EN);
	wrmsr(MSR_A_PMC(2), 0);
	wrmsr(MSR_PERFEVTSEL(3), EV_INSNS | SEL_OS | SEL_EN);
	wrmsr(MSR_A_PMC(3), 0);
	wrmsr(MSR_FIXED_CTR(0), 0);
	wrmsr(MSR_FIXED_CTR(2), 0);
	wrmsr(MSR_FIXED_CTR_CTRL, 0x311); /* fixed 2: OS and USR */
	pmu_loop_intel(N, 0x7 | FIXED_BIT(2));
	check("a written counter counts on from its value", rdmsr(MSR_PMC(0)), 100 + want);
	check("EN clear counts nothing", rdmsr(MSR_PMC(1)), 0);
	check("ref cycles (0x3C/01): one per retired instruction", rdmsr(MSR_PMC(2)), want);
	check("GLOBAL_CTRL bit 3 clear: PMC3 counts nothing", rdmsr(MSR_PMC(3)), 0);
	check("GLOBAL_CTRL bit 32 clear: fixed 0 counts nothing", rdmsr(MSR_FIXED_CTR(0)), 0);
	check("fixed 2: ref cycles, 2N+5", rdmsr(MSR_FIXED_CTR(2)), want);
	check("no overflow: GLOBAL_STATUS stays 0", rdmsr(MSR_GLOBAL_STATUS), 0);
	pmu_clear();
}

static void test_overflow(void)
{
	const u64 left = 100, want = 2 * N + 5;

	/* fixed delivery; the APIC masks LVTPC as it delivers (SDM Vol 3A 11.5.1) */
	pmu_clear();
	lapic[0x340 / 4] = PMI_VECTOR;
	wrmsr(MSR_A_PMC(0), (1ull << 48) - left);
	wrmsr(MSR_PERFEVTSEL(0), EV_INSNS | SEL_OS | SEL_EN | SEL_INT);
	wrmsr(MSR_PMC(1), (u32)-left);			      /* sign-extended: 2^48 - left */
	wrmsr(MSR_PERFEVTSEL(1), EV_INSNS | SEL_OS | SEL_EN); /* INT clear: status only */
	pmi_count = 0;
	pmu_loop_intel_sti(N, 0x3);
	check("overflow: one PMI through LVTPC (fixed)", pmi_count, 1);
	check_range("overflow: PMC1 wrapped past 2^48 (plus the handler)", rdmsr(MSR_PMC(1)),
		    want - left, want - left + HANDLER_MAX);
	check("overflow: GLOBAL_STATUS bits 0 and 1", rdmsr(MSR_GLOBAL_STATUS), 0x3);
	check("overflow: Intel masks LVTPC on delivery", lapic[0x340 / 4] & LVT_MASKED, LVT_MASKED);
	wrmsr(MSR_GLOBAL_OVF_CTRL, 0x3);
	check("overflow: OVF_CTRL clears it", rdmsr(MSR_GLOBAL_STATUS), 0);

	/* LVTPC still masked from the delivery: status, no interrupt */
	wrmsr(MSR_A_PMC(0), (1ull << 48) - left);
	pmi_count = 0;
	pmu_loop_intel_sti(N, 0x1);
	check("overflow, LVTPC left masked: no PMI", pmi_count, 0);
	check("overflow, LVTPC left masked: GLOBAL_STATUS bit 0", rdmsr(MSR_GLOBAL_STATUS), 0x1);

	/* a fixed counter's PMI bit, NMI delivery (how Linux programs LVTPC) */
	pmu_clear();
	lapic[0x340 / 4] = 4u << 8;
	wrmsr(MSR_FIXED_CTR(0), (1ull << 48) - left);
	wrmsr(MSR_FIXED_CTR_CTRL, 0x9); /* fixed 0: OS and PMI */
	wrmsr(MSR_FIXED_CTR(1), (1ull << 48) - left);
	wrmsr(MSR_FIXED_CTR_CTRL, 0x19); /* fixed 1: OS, no PMI */
	nmi_count = 0;
	pmu_loop_intel(N, FIXED_BIT(0) | FIXED_BIT(1));
	check("fixed overflow: one NMI through LVTPC (NMI delivery)", nmi_count, 1);
	check("fixed overflow: GLOBAL_STATUS bits 32 and 33", rdmsr(MSR_GLOBAL_STATUS),
	      FIXED_BIT(0) | FIXED_BIT(1));
	check_range("fixed overflow: counter wrapped (plus the handler)", rdmsr(MSR_FIXED_CTR(0)),
		    want - left, want - left + HANDLER_MAX);
	check("fixed overflow: LVTPC masked after an NMI too", lapic[0x340 / 4] & LVT_MASKED,
	      LVT_MASKED);
	lapic[0x340 / 4] = LVT_MASKED;
	pmu_clear();
}

void pmutest_intel(void)
{
	puts_e9("pmutest: Intel architectural PMU (skylake_pmu)\n");
	test_cpuid();
	test_msrs();
	test_counting();
	test_overflow();
}
