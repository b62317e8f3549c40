/* SPDX-License-Identifier: MIT */
#ifndef MHV_VM_CONFIG_H
#define MHV_VM_CONFIG_H

#include "lib/types.h"

/*
 * A named configuration of a VM: one column of the benchmark matrix.
 * Suites that measure run once per configuration; the PMU and XSTATE
 * work adds its modes here as further entries.
 */
struct vm_config {
	const char *name;
	const char *description;
	bool xstate_uncached; /* guest CPUID.0xD re-executes host CPUID */
	/* The tests this configuration is for (NULL-terminated), or NULL: all. */
	const char *const *tests;
	/* PMU mode name ("off", "sw", ...): a column the host may refuse */
	const char *pmu;
	/* the guest starts with counter 0 counting instructions (seed 003) */
	bool guest_counts_insn;
	/* no accounting of emulated instructions, whatever pmu_account says */
	bool no_accounting;
	/* the exit path's duties off (the floor) / as the CPU needs, whatever
	 * "mitigations =" says; neither: as it says */
	bool mitigations_off, mitigations_auto;
};

#endif
