/* SPDX-License-Identifier: MIT */
/*
 * One vCPU's guest PMU inside mhv: the real PMU instructions behind the
 * vendor-neutral switch (pmu.h, tested against a model), the guest's
 * CPUID and MSR view of it, accounting of the instructions mhv emulates,
 * and overflow interrupts through the virtual LVTPC.
 *
 * The backends call the hooks only from their PMU run loop, so a VM with
 * the PMU off runs the plain loop and pays nothing.
 */
#ifndef MHV_PMU_VCPU_H
#define MHV_PMU_VCPU_H

#include "pmu.h"

struct cpuid_cache;
struct vcpu;
struct vm_exit;

/*
 * RESET state for a new vCPU.  account: HV_PMU_ACCOUNT_* events added
 * for each emulated instruction.  guest_counts_insn: start with counter 0
 * counting instructions at all CPLs, as a guest running perf or an NMI
 * watchdog would.
 */
void pmu_vcpu_init(struct vcpu *vcpu, enum pmu_mode mode, unsigned account, bool guest_counts_insn);

/* The vCPU's first entry on its CPU: pmu_vcpu_before_entry; the CPU's
 * host PMIs so far are not this vCPU's overflows, nor are its PMU
 * registers its own (pmu_forget_hw). */
void pmu_vcpu_first_entry(struct vcpu *vcpu);
/* First thing after an exit, before the handler. */
void pmu_vcpu_after_exit(struct vcpu *vcpu);
/* Last thing before entry; exit_rip is the guest RIP the exit reported
 * (a RIP that moved means mhv completed an instruction for the guest). */
void pmu_vcpu_before_entry(struct vcpu *vcpu, u64 exit_rip);
/* The VM stopped: the host gets its PMU back. */
void pmu_vcpu_stopped(struct vcpu *vcpu);

/* Intercepted PMU MSRs (core/msr.c); false: #GP. */
bool pmu_vcpu_msr_read(struct vcpu *vcpu, u32 msr, u64 *v);
bool pmu_vcpu_msr_write(struct vcpu *vcpu, u32 msr, u64 v);
/* The MSRs this vCPU reads and writes without an exit (the backends'
 * MSR bitmaps); returns how many. */
#define PMU_PASSTHROUGH_MAX (PMU_MAX_GP + PMU_MAX_FIXED + 4)
unsigned pmu_vcpu_passthrough_list(const struct vcpu *vcpu, u32 msrs[PMU_PASSTHROUGH_MAX]);
/*
 * Must a guest WRMSR of msr take the PMU world switch while the PMU is quiet?
 * Where it may change what pmu_exit_quiet says: the event selects and
 * FIXED_CTR_CTRL feed it (acct_any, pmi_mask); their whole blocks are
 * counted, both vendors' (SDM Vol 4 Table 2-2; APM Vol 2 A.6).  And
 * Intel's GLOBAL_CTRL, which the next VM entry loads from the VMCS (SDM
 * Vol 3 §25.8.1): the switch brings vmcs_global_ctrl up to date.  (AMD
 * does not intercept its GLOBAL_CTL; there 0x38F is a #GP either way.)
 */
static inline bool pmu_vcpu_msr_write_needs_switch(u32 msr)
{
	return msr - MSR_INTEL_PERFEVTSEL(0) < PMU_MAX_GP || msr == MSR_INTEL_FIXED_CTR_CTRL ||
	       msr == MSR_INTEL_GLOBAL_CTRL || msr - MSR_K7_PERF_CTL(0) < 2 * K7_COUNTERS ||
	       msr - MSR_AMD_PERF_CTL(0) < 2 * PMU_AMD_MAX_GP;
}

/* Is RDPMC executed by the guest without an exit? */
bool pmu_vcpu_rdpmc_passthrough(const struct vcpu *vcpu);
/* An intercepted RDPMC: the guest's counter, or #GP. */
void pmu_vcpu_rdpmc(struct vcpu *vcpu, const struct vm_exit *exit);

/* The PMU part of a guest CPUID view (pmu_cpuid.c): with_pmu, the geometry
 * mhv switches, else no PMU; either way no PMU-adjacent feature mhv does
 * not virtualize (LBRs, IBS, PT, uncore counters, APERF/MPERF...). */
void pmu_adjust_guest_cpuid(struct cpuid_cache *view, bool with_pmu);

#endif
