/* SPDX-License-Identifier: MIT */
/*
 * What the backends' fast exit handlers share: the rules of the fast
 * path as one table (fast_exit_rules, fast_exit.c), which each backend's
 * fast table (svm/svm_fast.c, vmx/vmx_fast.c) is built from at probe
 * time, and the answers of the hot exits that need no more than a table
 * lookup.  Each helper returns false for the cases it leaves to the
 * general path (exit_dispatch.c), before it has changed anything, so a
 * fast handler can still hand the exit over.  The vendor files keep only
 * what reads or writes the VMCB or VMCS.
 *
 * The table is read when the backends fill their dispatch arrays, never
 * on an exit: the fast handlers cost what they did (the exit gate,
 * docs/testing.md), and tests/unit/test_fast_exit.c checks both vendors'
 * arrays against it.
 */
#ifndef MHV_FAST_EXIT_H
#define MHV_FAST_EXIT_H

#include "vm.h"
#include "exit.h"
#include "arch/regs.h"
#include "arch/msr.h"
#include "host/cpu_features.h"
#include "lib/guest_abi.h"
#include "lib/nospec.h"

/* Why a fast handler must hand its exit to the general path. */
enum fast_refusal {
	/*
	 * RFLAGS.TF: the #DB after the completed instruction, and mhv's own
	 * single step for an NMI window, are vcpu_insn_completed()'s.
	 */
	FAST_NOT_TF = BIT(0),
	/* String or REP I/O: the general path's string emulation. */
	FAST_NOT_STRING_REP = BIT(1),
	/* A case the kind's helper below (or io_port_fast) refuses. */
	FAST_NOT_HELPER = BIT(2),
	/*
	 * sw-lazy (and AMD hw), whose loops use the same handlers while the
	 * PMU needs no hook: a WRMSR that pmu_vcpu_msr_write_needs_switch
	 * names goes to the vendor's PMU world switch.  sw and sw-noelide
	 * switch around every exit and use no fast table.
	 */
	FAST_NOT_PMU_SWITCH = BIT(3),
};

/* What a fast handler must still do before it enters again. */
enum fast_duty {
	FAST_STEP = BIT(0),  /* RIP past the instruction */
	FAST_COUNT = BIT(1), /* vcpu->exits[kind]++ */
	/*
	 * Clear the injection field where the vendor keeps it across exits
	 * (SVM's EVENTINJ) before anything that may inject: a port device's
	 * line reaches the APIC, which injects at once.
	 */
	FAST_CLEAR_INJECTION = BIT(2),
	/* A port device may stop the VM (the exit port): enter only if running. */
	FAST_CHECK_STOP = BIT(3),
};

/*
 * One exit kind's rule.  Every kind not marked fast goes to the general
 * path directly.  What any fast handler may skip: the event being
 * delivered (an instruction exit is not taken during event delivery, APM
 * Vol 2 §15.7.2, SDM Vol 3 §28.2.4, and an event mhv injected is gone
 * once the guest ran); the VM's stop, which comes from another CPU's kick
 * (an interrupt exit, general) or from a port device (FAST_CHECK_STOP).
 */
struct fast_exit_rule {
	bool fast;	     /* the fast path may take this kind */
	bool needs_insn_len; /* the step needs the CPU's instruction length */
	u8 refuse;	     /* enum fast_refusal */
	u8 duties;	     /* enum fast_duty */
};

extern const struct fast_exit_rule fast_exit_rules[EXIT_KIND_COUNT];

/*
 * At probe time: may a vendor exit code that stands for every kind in
 * @kinds (a mask of BIT(enum exit_kind); SVM's MSR exit is both reads and
 * writes) take the fast path, with the instruction length known or not?
 */
bool fast_exit_may_take(u32 kinds, bool insn_len_known);
/* At probe time: must a write of @kinds go to the PMU world switch in the
 * PMU loops (FAST_NOT_PMU_SWITCH)? */
bool fast_exit_pmu_switch(u32 kinds);

/* RFLAGS as the CPU saved it: false when FAST_NOT_TF applies. */
static inline bool fast_exit_tf_clear(u64 rflags)
{
	return !(rflags & RFLAGS_TF);
}

/*
 * Hypercalls that need no table (core/hypercall.c): HC_NULL, the
 * benchmark floor, leaves RAX at 0; a number past the table returns
 * HC_ERROR in RAX.  The others take the general path.  An answer, not a
 * pointer: SVM's RAX is a packed VMCB field.
 */
enum fast_hc_answer {
	FAST_HC_DONE,	 /* RAX as it is */
	FAST_HC_ERROR,	 /* RAX = HC_ERROR */
	FAST_HC_GENERAL, /* the general path's table */
};

static inline enum fast_hc_answer fast_hypercall(u64 nr)
{
	if (likely(nr == HC_NULL))
		return FAST_HC_DONE;
	return nr < HC_COUNT ? FAST_HC_GENERAL : FAST_HC_ERROR;
}

/* The leaves guest_cpuid() answers other than from the view as it is:
 * per-vCPU bits (1, 0xB, 0x1F), sub-leaves (host/cpuid_subleaf.h); the
 * others up to max_std (max_ext) are the view's fast_std (fast_ext),
 * cpuid_guest.c. */
#define CPUID_FAST_SLOW_LEAVES (BIT(0x1) | BIT(0xb) | BIT(0x1f) | CPUID_STD_INDEXED)

/* The view's answer for a leaf that needs nothing else; NULL for the
 * others (guest_cpuid_any()). */
static inline const struct cpuid_regs *fast_cpuid(const struct vcpu *vcpu, u32 leaf)
{
	const struct cpuid_cache *v = vcpu->cpuid_view;

	if (leaf < CPUID_STD_CACHED)
		return (v->fast_std >> leaf) & 1
			   ? &v->std[array_index_nospec_pow2(leaf, CPUID_STD_CACHED)]
			   : NULL;
	if (leaf - CPUID_EXT_BASE < CPUID_EXT_CACHED)
		return (v->fast_ext >> (leaf - CPUID_EXT_BASE)) & 1
			   ? &v->ext[array_index_nospec(leaf - CPUID_EXT_BASE, CPUID_EXT_CACHED)]
			   : NULL;
	return NULL;
}

/* RDMSR of IA32_TSC_ADJUST and the WRMSR that rewrites its value
 * (core/msr.c); other MSRs and values take the general path. */
static inline bool fast_msr_index(u32 index)
{
	return index == MSR_IA32_TSC_ADJUST;
}

static inline void fast_msr_read(const struct vcpu *vcpu, u32 index, u64 *val)
{
	*val = vcpu->tsc_adjust;
}

static inline bool fast_msr_write(const struct vcpu *vcpu, u32 index, u64 val)
{
	return val == vcpu->tsc_adjust;
}

#endif
