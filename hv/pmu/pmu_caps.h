/* SPDX-License-Identifier: MIT */
#ifndef MHV_PMU_CAPS_H
#define MHV_PMU_CAPS_H

#include "lib/types.h"
#include "pmu.h"

/*
 * What the host PMU offers, decided from CPUID alone: emulators answer PMU
 * MSRs with 0 instead of #GP, so probing MSRs would give wrong answers
 * (seen under QEMU 7.2 TCG: every MSR it lacks reads 0).
 */
struct pmu_caps {
	bool amd, intel;
	/* AMD (APM Vol 2 §13.2.2, §15.39) */
	bool perfctr_core, perfmon_v2, perfctr_virt, vnmi, avic;
	u32 amd_counters;
	/* Intel CPUID.0AH (SDM Vol 3 §21.2.1-21.2.2) */
	u32 version, nr_gp, gp_width, nr_fixed, fixed_width;
	bool pdcm;
	/* VMX: VM entry and exit can load IA32_PERF_GLOBAL_CTRL (set by the
	 * VMX backend's probe, which runs first) */
	bool vm_global_ctrl_switch;
	/* why the PMU cannot be used although CPUID offers it, or NULL */
	const char *not_counting;
	char why_buf[128];
};

extern struct pmu_caps pmu_caps;

void pmu_caps_probe(void);
/* NULL when the host can run a VM in this mode, else why not. */
const char *pmu_mode_unsupported(enum pmu_mode mode);
void pmu_caps_describe(void);
/* On an AP: false, and why, when its PMU geometry (CPUID) is not the BSP's. */
bool pmu_matches_this_cpu(char *why, size_t size);

#endif
