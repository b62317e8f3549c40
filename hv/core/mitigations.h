/* SPDX-License-Identifier: MIT */
/*
 * The duties a production hypervisor keeps on the exit path and around a
 * vCPU's run, chosen once at init from what this CPU needs
 * ("mitigations = auto", core/mitigation_policy.c decides); a VM run with
 * "mitigations = off" gets none of them, the floor to compare with KVM's
 * mitigations=off.  Guest-controlled table indexes are clamped always,
 * as Linux's array_index_nospec() is (lib/nospec.h).
 */
#ifndef MHV_MITIGATIONS_H
#define MHV_MITIGATIONS_H

#include "lib/types.h"
#include "mitigation_policy.h"

struct vcpu;

struct mitigations {
	struct spec_decision decision; /* what "auto" takes on this CPU */
	u8 auto_set;		       /* the index of its exit duties in duty_sets */
};

extern struct mitigations mitigations;

/* Reads CPUID (cached) and IA32_ARCH_CAPABILITIES once, on the BSP. */
void mitigations_init(void);
/* The header line: which duties a VM gets by default (off: the config). */
void mitigations_describe(bool off);

/* The host's MSRs an "auto" vCPU's run changed, for mitigations_vcpu_leave */
#define HOST_CTLS 3 /* HOST_* (mitigation_policy.h) */
struct host_ctl_saved {
	u8 set;		      /* HOST_* bits changed */
	u64 value[HOST_CTLS]; /* each changed MSR's value before */
};

/*
 * Around a vCPU's run on this CPU (vm_vcpu_run), for an "auto" vCPU: the
 * IBPB that keeps the VM before it from steering its predictions, and the
 * host controls (AutoIBRS, eIBRS, BpSpecReduce) set while it runs and put
 * back after, so a "mitigations = off" VM on the same CPU runs without.
 */
void mitigations_vcpu_enter(const struct vcpu *vcpu, struct host_ctl_saved *saved);
void mitigations_vcpu_leave(const struct host_ctl_saved *saved);

#endif
