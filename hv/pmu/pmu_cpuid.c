// SPDX-License-Identifier: MIT
/*
 * The guest's CPUID view of performance monitoring.  A VM with the PMU off
 * sees a CPU without one; a VM with a PMU sees the geometry mhv switches
 * (pmu_switch.c) and nothing more.  In every view the PMU-adjacent
 * features mhv does not virtualize are hidden: their MSRs are not in the
 * MSR allow list (core/msr.c), so they #GP, as on a CPU without them.
 *
 * Bit positions: SDM Vol 2A, CPUID (Tables 3-8, 3-10, 3-11, leaves 06H,
 * 07H, 0AH, 14H, 1CH); APM Vol 3 Appendix E.4 (Fn8000_0001, _0007, _0008,
 * _001B, _0022).
 */
#include "pmu_vcpu.h"
#include "host/cpu_features.h"

enum {
	R_EAX,
	R_EBX,
	R_ECX,
	R_EDX
};

enum trim_when {
	TRIM_ALWAYS,  /* nothing virtualizes the feature */
	TRIM_PMU_OFF, /* the PMU itself: hidden from VMs whose PMU is off */
};

struct pmu_cpuid_trim {
	u32 leaf;
	u8 subleaf, reg, when;
	u32 clear;
	const char *why;
};

static const struct pmu_cpuid_trim trims[] = {
	/* The PMU off, as a CPU without one. */
	{ 0x1, 0, R_ECX, TRIM_PMU_OFF, BIT(15), "PDCM: IA32_PERF_CAPABILITIES" },
	{ 0xa, 0, R_EAX, TRIM_PMU_OFF, ~0u, "architectural PMU: version, counters, width" },
	{ 0xa, 0, R_EBX, TRIM_PMU_OFF, ~0u, "architectural events" },
	{ 0xa, 0, R_ECX, TRIM_PMU_OFF, ~0u, "fixed counters" },
	{ 0xa, 0, R_EDX, TRIM_PMU_OFF, ~0u, "fixed counters" },
	{ 0x80000001, 0, R_ECX, TRIM_PMU_OFF, BIT(23), "PerfCtrExtCore: PERF_CTL/CTR 0-5" },
	{ 0x80000022, 0, R_EAX, TRIM_PMU_OFF, BIT(0), "PerfMonV2: the global registers" },
	{ 0x80000022, 0, R_EBX, TRIM_PMU_OFF, 0xfu, "NumPerfCtrCore" },

	/* Intel, in every view. */
	{ 0x6, 0, R_ECX, TRIM_ALWAYS, BIT(0), "APERF/MPERF (MSRs E7H, E8H)" },
	{ 0x7, 0, R_EBX, TRIM_ALWAYS, BIT(25), "Intel PT: IA32_RTIT_* MSRs" },
	{ 0x7, 0, R_EDX, TRIM_ALWAYS, BIT(19), "architectural LBRs: IA32_LBR_* MSRs" },
	{ 0x7, 1, R_EAX, TRIM_ALWAYS, BIT(8), "ArchPerfmonExt: leaf 23H, PMU version 6" },
	/* a bitmap of fixed counters mhv may not switch; with it 0, EDX[4:0]
	 * alone says which exist (FxCtr[i] is ECX[i] || EDX[4:0] > i) */
	{ 0xa, 0, R_ECX, TRIM_ALWAYS, ~0u, "fixed-counter bitmap" },
	{ 0x14, 0, R_EAX, TRIM_ALWAYS, ~0u, "Intel PT leaf" },
	{ 0x14, 0, R_EBX, TRIM_ALWAYS, ~0u, "Intel PT leaf" },
	{ 0x14, 0, R_ECX, TRIM_ALWAYS, ~0u, "Intel PT leaf" },
	{ 0x14, 0, R_EDX, TRIM_ALWAYS, ~0u, "Intel PT leaf" },
	{ 0x1c, 0, R_EAX, TRIM_ALWAYS, ~0u, "architectural LBR leaf" },
	{ 0x1c, 0, R_EBX, TRIM_ALWAYS, ~0u, "architectural LBR leaf" },
	{ 0x1c, 0, R_ECX, TRIM_ALWAYS, ~0u, "architectural LBR leaf" },

	/* AMD, in every view. */
	{ 0x80000001, 0, R_ECX, TRIM_ALWAYS, BIT(10), "IBS: IBS_*_CTL MSRs C001_103x" },
	{ 0x80000001, 0, R_ECX, TRIM_ALWAYS, BIT(24), "PerfCtrExtNB: data fabric counters" },
	{ 0x80000001, 0, R_ECX, TRIM_ALWAYS, BIT(27), "PerfTsc: MSR C001_0280" },
	{ 0x80000001, 0, R_ECX, TRIM_ALWAYS, BIT(28), "PerfCtrExtLLC: L3 counters" },
	{ 0x80000007, 0, R_EDX, TRIM_ALWAYS, BIT(10), "EffFreqRO: MSRs C000_00E7/E8" },
	{ 0x80000008, 0, R_EBX, TRIM_ALWAYS, BIT(1), "IRPerf: MSR C000_00E9" },
	{ 0x8000001b, 0, R_EAX, TRIM_ALWAYS, ~0u, "IBS leaf" },
	/* of PerfMonV2's leaf only PerfMonV2 and NumPerfCtrCore: not
	 * LbrExtV2 (EAX[1]), LbrAndPmcFreeze (EAX[2]), the LBR stack size
	 * (EBX[9:4]), the DF and UMC counters (EBX[15:10], [21:16]), the UMCs */
	{ 0x80000022, 0, R_EAX, TRIM_ALWAYS, ~1u, "LbrExtV2, LbrAndPmcFreeze" },
	{ 0x80000022, 0, R_EBX, TRIM_ALWAYS, ~0xfu, "LBR stack, NB and UMC counters" },
	{ 0x80000022, 0, R_ECX, TRIM_ALWAYS, ~0u, "active UMC mask" },
	{ 0x80000022, 0, R_EDX, TRIM_ALWAYS, ~0u, "reserved" },
};

static struct cpuid_regs *leaf_regs(struct cpuid_cache *view, u32 leaf, u8 subleaf)
{
	if (leaf == 7 && subleaf == 1)
		return &view->leaf7_1;
	if (subleaf)
		return NULL;
	if (leaf < CPUID_STD_CACHED)
		return &view->std[leaf];
	if (leaf - CPUID_EXT_BASE < CPUID_EXT_CACHED)
		return &view->ext[leaf - CPUID_EXT_BASE];
	return NULL;
}

static void apply_trims(struct cpuid_cache *view, bool with_pmu)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(trims); i++) {
		const struct pmu_cpuid_trim *t = &trims[i];
		struct cpuid_regs *r = leaf_regs(view, t->leaf, t->subleaf);
		u32 *regs[4];

		if (!r || (t->when == TRIM_PMU_OFF && with_pmu))
			continue;
		regs[R_EAX] = &r->eax;
		regs[R_EBX] = &r->ebx;
		regs[R_ECX] = &r->ecx;
		regs[R_EDX] = &r->edx;
		*regs[t->reg] &= ~t->clear;
	}
}

/* Architectural PMU version 6 (leaf 23H) adds event-select bits above 31
 * (UMASK2, EQ: SDM Vol 3 ch. 21), which mhv refuses as reserved; 5 is the
 * last version whose selects mhv filters as the CPU does. */
#define PMU_GUEST_MAX_VERSION 5

/* The geometry mhv switches at most (pmu.h); more would be left unswitched. */
static void clamp_geometry(struct cpuid_cache *view)
{
	struct cpuid_regs *a = &view->std[0xa];
	struct cpuid_regs *e22 = &view->ext[0x22];

	if ((a->eax & 0xff) > PMU_GUEST_MAX_VERSION)
		a->eax = (a->eax & ~0xffu) | PMU_GUEST_MAX_VERSION;
	if (((a->eax >> 8) & 0xff) > PMU_MAX_GP)
		a->eax = (a->eax & ~0xff00u) | PMU_MAX_GP << 8;
	if ((a->edx & 0x1f) > PMU_MAX_FIXED)
		a->edx = (a->edx & ~0x1fu) | PMU_MAX_FIXED;
	/* AnyThread (version 3) is dropped by mhv (pmu_switch.c): tell the guest. */
	if ((a->eax & 0xff) >= 3)
		a->edx |= PMU_CPUID_ANYTHREAD_DEPRECATED;
	if ((e22->ebx & 0xf) > PMU_AMD_MAX_GP)
		e22->ebx = (e22->ebx & ~0xfu) | PMU_AMD_MAX_GP;
}

_Static_assert(CPUID_STD_CACHED > 0x1c && CPUID_EXT_CACHED > 0x22,
	       "the leaves trimmed here are in the CPUID cache");

void pmu_adjust_guest_cpuid(struct cpuid_cache *view, bool with_pmu)
{
	apply_trims(view, with_pmu);
	if (with_pmu)
		clamp_geometry(view);
}
