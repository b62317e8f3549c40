/* SPDX-License-Identifier: MIT */
/*
 * A CPU's PMU geometry from CPUID: what a guest's PMU mode relies on
 * being the same on every CPU it may run on.  Hybrid parts (Intel P- and
 * E-cores) differ from CPU to CPU, so each AP's is compared with the
 * BSP's, as its XSTATE layout is.  Pure: CPUID comes through a callback.
 */
#ifndef MHV_PMU_GEOMETRY_H
#define MHV_PMU_GEOMETRY_H

#include "lib/types.h"
#include "arch/x86.h"

struct pmu_geometry {
	/* Intel CPUID.0AH (SDM Vol 2A, CPUID leaf 0AH; Vol 3 §21.2) */
	u32 version, nr_gp, gp_width, nr_fixed, fixed_width;
	u32 fixed_mask;	    /* ECX: fixed counters present (version 5+) */
	u32 events_missing; /* EBX: architectural events not available */
	/* CPUID.1AH EAX[31:24] when CPUID.07H.0:EDX[15] says hybrid:
	 * 0x20 Atom (E-core), 0x40 Core (P-core); 0 otherwise */
	u32 core_type;
	/* AMD Fn8000_0022 (APM Vol 2 §13.2.2), else Fn8000_0001 ECX[23] */
	u32 amd_features;      /* EAX: PerfMonV2, LbrStack, LbrAndPmcFreeze */
	u32 amd_core_counters; /* EBX[3:0], or 4/6 without the leaf */
	u32 amd_lbr_depth;     /* EBX[9:4] */
};

/* One CPUID answer; false when the leaf is above the maximum. */
typedef bool (*pmu_cpuid_fn)(u32 leaf, u32 subleaf, struct cpuid_regs *r, const void *arg);

void pmu_geometry_read(struct pmu_geometry *g, bool intel, bool amd, pmu_cpuid_fn cpuid,
		       const void *arg);

/* false, and the first difference in why ("6 GP counters vs 8", this
 * CPU's first), when cpu's geometry is not the BSP's. */
bool pmu_geometry_same(const struct pmu_geometry *cpu, const struct pmu_geometry *bsp, char *why,
		       size_t size);

#endif
