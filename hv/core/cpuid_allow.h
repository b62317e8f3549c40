/* SPDX-License-Identifier: MIT */
/*
 * The guest CPUID is an allowlist (issue 27 item 2): a feature bit reaches
 * a guest only where mhv knows it is safe to pass through or virtualizes
 * it; every other bit of the feature leaves reads 0, so the unknown bits
 * of future CPUs never reach a guest, and leaves mhv does not know read as
 * zeros.  Pure data and a function over a struct cpuid_cache: host unit
 * tests run it on other CPUs' answers.  Applied once at init to the
 * guests' views (core/cpuid_guest.c), never on an exit.
 *
 * Not governed here: the PMU's leaves and bits (pmu/pmu_cpuid.c trims
 * them after this), XSAVE's leaf 0xD (answered by hv/xstate), and mhv's
 * own bits (hypervisor, x2APIC, TSC-deadline, the per-vCPU ones: set in
 * core/cpuid_guest.c).
 */
#ifndef MHV_CPUID_ALLOW_H
#define MHV_CPUID_ALLOW_H

#include "host/cpu_features.h"

enum cpuid_reg_index {
	CPUID_EAX,
	CPUID_EBX,
	CPUID_ECX,
	CPUID_EDX
};

/* The bits of (leaf, sub-leaf, register) a guest may see: ~0 for the
 * registers passed whole (and the leaves owned elsewhere), 0 for hidden. */
u32 cpuid_allowed(u32 leaf, u32 subleaf, unsigned reg);

/* Why (leaf, sub-leaf, register) bit is hidden or passed: the table's reason. */
const char *cpuid_allow_reason(u32 leaf, u32 subleaf, unsigned reg, unsigned bit);

/* Hides, in a view copied from the host's cache, everything the allowlist
 * does not pass, sub-leaves of the indexed leaves included. */
void cpuid_allow_apply(struct cpuid_cache *view);

/* Leaf 7's highest sub-leaf a guest sees (7.0 EAX): 7.1 and no further. */
#define CPUID7_GUEST_MAX_SUBLEAF 1

#endif
