/* SPDX-License-Identifier: MIT */
/*
 * The guest PMU modes, one row each: every list of them is made from
 * this table (enum pmu_mode, HV_PMU_*, the words of mhv.cfg's "pmu =",
 * the names in the reports and in the guests' own output, which modes
 * show the guest a PMU and which mhv switches in software).  A new mode
 * is one row here plus its switch code (hv/pmu/pmu_switch.c, the
 * backends' loop tables) and, to be benchmarked, a column (lab/suites.c).
 * docs/architecture.md says more.
 *
 * X(id, word, guest_pmu, sw_switch):
 *   id        PMU_<id> and HV_PMU_<id>; the row's number is what CPUID
 *             0x40000001 ECX tells the guest, so rows are only appended
 *   word      its name in mhv.cfg ("pmu =", a guest's "pmu =") and reports
 *   guest_pmu 1: the guest's CPUID has the host's PMU leaves (trimmed to
 *             what mhv switches) and its counter MSRs reach counters;
 *             0: a CPU without a PMU (pmu/pmu_cpuid.c, pmu/pmu_vcpu.c)
 *   sw_switch 1: mhv's software load/put switches the counters (pmu_load,
 *             pmu_put); 0: nothing does (off) or the CPU does (hw)
 * Lib: guests include it through guest_abi.h.
 */
#ifndef MHV_PMU_MODES_H
#define MHV_PMU_MODES_H

/*
 * off:        no PMU; every hook is a no-op
 * sw:         put at every exit, load at every entry, counter WRMSRs elided
 * sw-noelide: as sw, every counter written on load: no elision
 * sw-lazy:    loaded across exits, put only when the host needs the PMU
 * hw:         AMD PerfCtrVirt: VMRUN/#VMEXIT switch, state in the VMCB
 *             (APM Vol 2 §15.39)
 */
#define PMU_MODES(X)                      \
	X(OFF, "off", 0, 0)               \
	X(SW, "sw", 1, 1)                 \
	X(SW_NOELIDE, "sw-noelide", 1, 1) \
	X(SW_LAZY, "sw-lazy", 1, 1)       \
	X(HW, "hw", 1, 0)

/* Each row's word, indexed by its number: { "off", "sw", ... } */
#define PMU_MODE_WORD_OF(id, word, guest_pmu, sw_switch) word,
#define PMU_MODE_WORDS                      \
	{                                   \
		PMU_MODES(PMU_MODE_WORD_OF) \
	}

#endif
