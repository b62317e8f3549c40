/* SPDX-License-Identifier: MIT */
/*
 * What "mitigations = auto" takes on a CPU, decided from its CPUID and
 * IA32_ARCH_CAPABILITIES values alone: a pure function, so that a host
 * unit test feeds it the documented values of real parts
 * (tests/unit/test_mitigation_policy.c).  core/mitigations.c reads the
 * values, applies the decision and prints it.  mhv has no user space:
 * the attacks that matter are guest to host and guest to guest.
 */
#ifndef MHV_MITIGATION_POLICY_H
#define MHV_MITIGATION_POLICY_H

#include "lib/types.h"

/* Per-exit duties: a VM-run loop variant has exactly its set of them
 * (core/duties.inc) */
#define DUTY_CLEAR_REGS 1u /* the guest's GPRs zeroed once saved */
#define DUTY_VERW 2u	   /* VERW right before every entry */
#define DUTY_RSB_FILL 4u   /* 32 CALLs after every exit, before the host's first RET */
#define DUTY_RSB_LITE 8u   /* one CALL retired after every exit (PBRSB) */
#define DUTY_IBPB 16u	   /* IBPB after every exit */
#define DUTY_RETPOLINE 32u /* the first indirect call after an exit through a retpoline */

/* The duty sets a VM-run loop exists for, in the order of duties.inc's
 * DUTY_SET_n: set 0 is "mitigations = off", the others what the decision
 * below can give (the unit test checks every decision is one of them). */
#define DUTY_SETS 13
extern const u8 duty_sets[DUTY_SETS];
/* The index of a set in duty_sets, -1 when no loop has exactly these. */
int duty_set_index(u8 duties);
/* A backend's list of the sets its loops were built for (DUTY_SETS
 * masks, then 0xff) is duty_sets. */
bool duty_sets_match(const u8 *list);

/* Host controls, set on a CPU while an "auto" vCPU runs there */
#define HOST_AUTOIBRS 1u       /* EFER.AIBRSE */
#define HOST_EIBRS 2u	       /* SPEC_CTRL.IBRS */
#define HOST_BP_SPEC_REDUCE 4u /* BP_CFG.BpSpecReduce */

enum spec_vendor {
	SPEC_VENDOR_OTHER,
	SPEC_VENDOR_AMD,
	SPEC_VENDOR_INTEL
};

/* The inputs: 0 for a leaf above the CPU's maximum, or an MSR it lacks. */
struct spec_cpu {
	enum spec_vendor vendor;
	u32 family;		  /* display family (base + extended) */
	u32 std7_edx;		  /* CPUID 7.0 EDX */
	u32 ext8_ebx;		  /* CPUID 8000_0008 EBX */
	u32 ext21_eax, ext21_ecx; /* CPUID 8000_0021 EAX, ECX */
	u64 arch_caps;		  /* IA32_ARCH_CAPABILITIES */
	bool sbpb_probe;	  /* family 19h+: a WRMSR of PRED_CMD.SBPB was taken */
};

/* The concerns the header line names, in its order */
enum spec_topic {
	SPEC_REGS,
	SPEC_BTI,
	SPEC_RSB,
	SPEC_SRSO,
	SPEC_VERW,
	SPEC_SWITCH,
	SPEC_TOPICS
};

struct spec_decision {
	u8 exit_duties;		      /* DUTY_* bits, one of duty_sets */
	u8 host_ctl;		      /* HOST_* bits */
	bool ibpb_switch;	      /* IBPB when a vCPU takes its CPU */
	const char *why[SPEC_TOPICS]; /* each duty and the bit that decided it */
};

void mitigation_decide(const struct spec_cpu *cpu, struct spec_decision *d);

#endif
