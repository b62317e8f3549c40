// SPDX-License-Identifier: MIT
/*
 * The guest PMU of a vCPU in mhv (see pmu_vcpu.h).  Nothing here is on
 * the path of a VM whose PMU is off except the MSR and RDPMC intercepts,
 * which answer as a CPU without a PMU does.
 */
#include "pmu_vcpu.h"
#include "pmu_caps.h"
#include "core/backend.h"
#include "host/cpu_features.h"
#include "host/percpu.h"
#include "lib/guest_abi.h"
#include "core/vcpu.h"
#include "arch/x86.h"

_Static_assert(PMU_MODE_COUNT == HV_PMU_MODE_COUNT,
	       "CPUID 0x40000001 ECX tells guests the mode by its row in lib/pmu_modes.h");
_Static_assert(PMU_EV_INSTRUCTIONS == HV_PMU_ACCOUNT_INSN &&
		   PMU_EV_BRANCHES == HV_PMU_ACCOUNT_BRANCH,
	       "CPUID 0x40000001 EDX tells guests the accounted events");

static u64 hw_rdpmc(void *ctx, u32 ecx)
{
	u32 lo, hi;

	asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx));
	return (u64)hi << 32 | lo;
}

static u64 hw_rdmsr(void *ctx, u32 msr)
{
	return rdmsr(msr);
}

static void hw_wrmsr(void *ctx, u32 msr, u64 v)
{
	wrmsr(msr, v);
}

static const struct pmu_hw_ops host_pmu_ops = { hw_rdpmc, hw_rdmsr, hw_wrmsr };
static struct pmu_hw host_pmu = { &host_pmu_ops, NULL };

static u32 gp_ctl_msr(const struct pmu_state *s, unsigned i)
{
	return s->vendor == PMU_AMD ? MSR_AMD_PERF_CTL(i) : MSR_INTEL_PERFEVTSEL(i);
}

void pmu_vcpu_init(struct vcpu *vcpu, enum pmu_mode mode, unsigned account, bool guest_counts_insn)
{
	struct pmu_state *s = &vcpu->pmu;
	bool amd = pmu_caps.amd;

	pmu_init(s, amd ? PMU_AMD : PMU_INTEL, amd ? pmu_caps.amd_counters : pmu_caps.nr_gp,
		 pmu_caps.nr_fixed, mode);
	if (!amd && pmu_caps.gp_width)
		s->width = pmu_caps.gp_width;
	/* The guest's CPUID shows the host's HLE and RTM (core/cpuid_guest.c). */
	if (host_cpu.cpuid.max_std >= 7 && (host_cpu.cpuid.std[7].ebx & (BIT(4) | BIT(11))))
		pmu_allow_tsx_qualifiers(s);
	vcpu->pmu_mode = mode;
	vcpu->pmu_account = mode == PMU_OFF ? 0 : account;
	if (guest_counts_insn && mode != PMU_OFF && s->nr_gp)
		pmu_set_msr(s, &host_pmu, mode, gp_ctl_msr(s, 0),
			    PMU_EVENT_INSTRUCTIONS | PMU_EVTSEL_OS | PMU_EVTSEL_USR |
				PMU_EVTSEL_EN);
}

void pmu_vcpu_first_entry(struct vcpu *vcpu)
{
	vcpu->pmu.host_pmis_seen = vcpu->cpu->host_pmis;
	pmu_forget_hw(&vcpu->pmu);
	pmu_vcpu_before_entry(vcpu, vcpu->regs.rip);
}

void pmu_vcpu_after_exit(struct vcpu *vcpu)
{
	struct pmu_state *s = &vcpu->pmu;

	pmu_put_if_needed(s, &host_pmu, vcpu->pmu_mode, false);
}

void pmu_vcpu_before_entry(struct vcpu *vcpu, u64 exit_rip)
{
	struct pmu_state *s = &vcpu->pmu;

	/* Counted only when a guest counter counts such events (GLOBAL_CTRL,
	 * which may have changed without an exit, is looked at inside);
	 * none of the instructions mhv emulates is a branch. */
	if (unlikely(s->acct_any) && vcpu->regs.rip != exit_rip)
		pmu_account_emulated(s, &host_pmu, vcpu->pmu_mode,
				     vcpu->pmu_account & PMU_EV_INSTRUCTIONS,
				     backend->guest_cpl(vcpu));
	/* After the handler, which starts from the exit's own event state:
	 * an event raised before it would be lost (KVM raises its PMI from a
	 * request, before entry, too). */
	if (unlikely(s->pmi_mask))
		pmu_check_overflow(s, &host_pmu, vcpu->pmu_mode, vcpu->cpu->host_pmis);
	pmu_load(s, &host_pmu, vcpu->pmu_mode);
}

void pmu_vcpu_stopped(struct vcpu *vcpu)
{
	pmu_release(&vcpu->pmu, &host_pmu, vcpu->pmu_mode);
}

/* Legacy addresses as the architectural ones pmu.h knows. */
static u32 canonical_msr(const struct pmu_state *s, u32 msr)
{
	if (s->vendor == PMU_AMD) {
		if (msr - MSR_K7_PERF_CTL(0) < K7_COUNTERS)
			return MSR_AMD_PERF_CTL(msr - MSR_K7_PERF_CTL(0));
		if (msr - MSR_K7_PERF_CTR(0) < K7_COUNTERS)
			return MSR_AMD_PERF_CTR(msr - MSR_K7_PERF_CTR(0));
	} else if (msr - MSR_INTEL_PMC(0) < PMU_MAX_GP) {
		return MSR_INTEL_A_PMC(msr - MSR_INTEL_PMC(0));
	}
	return msr;
}

bool pmu_vcpu_msr_read(struct vcpu *vcpu, u32 msr, u64 *v)
{
	struct pmu_state *s = &vcpu->pmu;

	if (vcpu->pmu_mode == PMU_OFF) {
		/* As KVM with its PMU disabled: the K7 MSRs exist on every AMD
		 * CPU and read 0 (issue 8's platform contract). */
		*v = 0;
		return pmu_caps.amd && msr - MSR_K7_PERF_CTL(0) < 2 * K7_COUNTERS;
	}
	if (s->vendor == PMU_INTEL && msr == MSR_INTEL_PERF_CAPABILITIES) {
		*v = PERF_CAP_FW_WRITE; /* full-width writes through A_PMC (SDM Vol 3 §21.2.6) */
		return true;
	}
	return pmu_get_msr(s, &host_pmu, vcpu->pmu_mode, canonical_msr(s, msr), v);
}

bool pmu_vcpu_msr_write(struct vcpu *vcpu, u32 msr, u64 v)
{
	struct pmu_state *s = &vcpu->pmu;

	if (vcpu->pmu_mode == PMU_OFF)
		return pmu_caps.amd && msr - MSR_K7_PERF_CTL(0) < 2 * K7_COUNTERS;
	/* Legacy IA32_PMCi takes 32 bits, sign-extended (SDM Vol 3 §21.2.6). */
	if (s->vendor == PMU_INTEL && msr - MSR_INTEL_PMC(0) < PMU_MAX_GP)
		v = (u64)(s64)(s32)v;
	/* Bits beyond the width: #GP through A_PMC (SDM Vol 3 §21.2.6). */
	if (canonical_msr(s, msr) == msr && s->vendor == PMU_INTEL &&
	    msr - MSR_INTEL_A_PMC(0) < s->nr_gp && (v & ~pmu_mask(s)))
		return false;
	return pmu_set_msr(s, &host_pmu, vcpu->pmu_mode, canonical_msr(s, msr), v);
}

/*
 * Counters and the global status/control MSRs go straight to the guest
 * when it has the host's geometry, which mhv always gives it; event
 * selects and FIXED_CTR_CTRL stay intercepted for filtering, and so does
 * Intel's GLOBAL_CTRL, whose guest value VM-entry loads from the VMCS
 * (so neither the VM-exit "save" control nor an MSR-store list is needed).
 */
unsigned pmu_vcpu_passthrough_list(const struct vcpu *vcpu, u32 msrs[PMU_PASSTHROUGH_MAX])
{
	const struct pmu_state *s = &vcpu->pmu;
	unsigned i, n = 0;

	if (vcpu->pmu_mode == PMU_OFF)
		return 0;
	if (s->vendor == PMU_AMD) {
		for (i = 0; i < s->nr_gp; i++)
			msrs[n++] = MSR_AMD_PERF_CTR(i);
		for (i = MSR_AMD_GLOBAL_STATUS; i <= MSR_AMD_GLOBAL_STATUS_SET; i++)
			msrs[n++] = i;
		return n;
	}
	for (i = 0; i < s->nr_gp; i++)
		msrs[n++] = MSR_INTEL_A_PMC(i);
	for (i = 0; i < s->nr_fixed; i++)
		msrs[n++] = MSR_INTEL_FIXED_CTR(i);
	msrs[n++] = MSR_INTEL_GLOBAL_STATUS;
	msrs[n++] = MSR_INTEL_GLOBAL_OVF_CTRL;
	msrs[n++] = MSR_INTEL_GLOBAL_STATUS_SET;
	return n;
}

bool pmu_vcpu_rdpmc_passthrough(const struct vcpu *vcpu)
{
	return vcpu->pmu_mode != PMU_OFF;
}

void pmu_vcpu_rdpmc(struct vcpu *vcpu, const struct vm_exit *exit)
{
	struct pmu_state *s = &vcpu->pmu;
	u32 ecx = (u32)vcpu->regs.gpr[GPR_RCX];
	u64 v;
	u32 msr = 0;

	/* ECX: GP index, or bit 30 | fixed index on Intel; "fast" bit 31 is
	 * #GP as on KVM.  Anything else is #GP (SDM Vol 2B, RDPMC). */
	if (vcpu->pmu_mode != PMU_OFF) {
		if (!(ecx & ~0xffu) && ecx < s->nr_gp)
			msr = s->vendor == PMU_AMD ? MSR_AMD_PERF_CTR(ecx) : MSR_INTEL_A_PMC(ecx);
		else if (s->vendor == PMU_INTEL && (ecx & ~0xffu) == PMU_RDPMC_FIXED &&
			 (ecx & 0xff) < s->nr_fixed)
			msr = MSR_INTEL_FIXED_CTR(ecx & 0xff);
	}
	if (!msr || !pmu_get_msr(s, &host_pmu, vcpu->pmu_mode, msr, &v)) {
		vcpu_inject_gp(vcpu);
		return;
	}
	vcpu->regs.gpr[GPR_RAX] = (u32)v;
	vcpu->regs.gpr[GPR_RDX] = v >> 32;
	vcpu_skip_insn(vcpu, exit);
}
