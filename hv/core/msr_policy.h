/* SPDX-License-Identifier: MIT */
/* Which MSRs a guest reaches without an exit: one list for both backends. */
#ifndef MHV_MSR_POLICY_H
#define MHV_MSR_POLICY_H

#include "lib/types.h"

struct vcpu;

struct msr_passthrough {
	u32 index;
	bool read, write; /* which accesses skip the exit */
	/* NULL: always; else whether the vCPU's VM has it (its CPUID view) */
	bool (*available)(const struct vcpu *vcpu);
};

/* The host code never uses these, so the guest's values can stay loaded. */
extern const struct msr_passthrough msr_passthrough[];
extern const unsigned msr_passthrough_count;

#endif
