/* SPDX-License-Identifier: MIT */
#ifndef MHV_VM_CONFIG_H
#define MHV_VM_CONFIG_H

#include "lib/types.h"
#include "pmu/pmu.h"

/*
 * A VM's description: which features it has.  Every field's zero is the
 * default VM (PMU off, x2APIC, CPUID.0xD from the cache, accounting and
 * mitigations as mhv.cfg says, its maker's RAM and vCPUs), so each
 * description is a designated-initialiser override of that default.
 * The benchmark matrix's columns are such descriptions (lab/suites.c), and
 * each "guest =" section of mhv.cfg fills one (lab/config.c).  vm_init
 * makes the VM from it, its CPUID view first (core/cpuid_guest.c): the
 * MSRs and devices ask that view what the VM has.  A new per-VM key is a
 * field here, its config key, and what the view or a device does with it
 * (docs/architecture.md).
 */
struct vm_config {
	const char *name;
	const char *description;
	/* The tests this configuration is for (NULL-terminated), or NULL: all. */
	const char *const *tests;
	/* its PMU mode: a column the host may refuse (pmu_mode_unsupported) */
	enum pmu_mode pmu;
	bool xstate_uncached; /* guest CPUID.0xD re-executes host CPUID */
	/* the guest starts with counter 0 counting instructions (seed 003) */
	bool guest_counts_insn;
	/* no accounting of emulated instructions, whatever pmu_account says */
	bool no_accounting;
	/* the exit path's duties off (the floor) / as the CPU needs, whatever
	 * "mitigations =" says; neither: as it says */
	bool mitigations_off, mitigations_auto;
	/* no x2APIC: CPUID.1:ECX[21] clear, so IA32_APIC_BASE.EXTD and the
	 * x2APIC MSRs #GP (SDM Vol 3 §11.12.1) */
	bool no_x2apic;
	u32 mem_mib;  /* guest RAM; 0: its maker's (mhv's own guests: GUEST_RAM_SIZE) */
	u32 nr_vcpus; /* 0: its maker's (a suite's VM row; one) */
};

#endif
