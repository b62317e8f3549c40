// SPDX-License-Identifier: MIT
/*
 * Guest RDMSR/WRMSR that exit.  An explicit allow list; any other MSR
 * gets #GP, as on a CPU that does not have it.
 */
#include "host/cpu_features.h"
#include "exit_dispatch.h"
#include "msr_policy.h"
#include "pmu/pmu_vcpu.h"
#include "vcpu.h"
#include "arch/apic.h"
#include "arch/msr.h"
#include "arch/perfmon.h"
#include "arch/regs.h"
#include "arch/x86.h"

static bool has_ibpb(void)
{
	return host_cpu.has.ibpb || host_cpu.has.spec_ctrl;
}

/*
 * TSC_AUX exists where RDTSCP or RDPID does (SDM Vol 4 Table 2-2): the
 * guest has it where its CPUID shows one of them (VMX without "enable
 * RDTSCP" hides both).  The view only clears host bits, so the host has it too.
 */
static bool guest_has_tsc_aux(void)
{
	const struct cpuid_cache *v = guest_cpuid_view(false);

	return (v->ext[1].edx & CPUID_EXT1_EDX_RDTSCP) || (v->std[7].ecx & CPUID7_ECX_RDPID);
}

/*
 * The guest's segment and system-call state: the CPU checks the values
 * (canonical addresses, SDM Vol 4 Table 2-2) and the VM owns them: the
 * VMCB (VMLOAD/VMSAVE) or the VMCS switches FS/GS bases and SYSENTER_*,
 * the rest is reset where a vCPU starts (core/cpu_reset.c).
 */
const struct msr_passthrough msr_passthrough[] = {
	{ MSR_FS_BASE, true, true, NULL },
	{ MSR_GS_BASE, true, true, NULL },
	{ MSR_KERNEL_GS_BASE, true, true, NULL },
	{ MSR_IA32_SYSENTER_CS, true, true, NULL },
	{ MSR_IA32_SYSENTER_ESP, true, true, NULL },
	{ MSR_IA32_SYSENTER_EIP, true, true, NULL },
	{ MSR_STAR, true, true, NULL },
	{ MSR_LSTAR, true, true, NULL },
	{ MSR_CSTAR, true, true, NULL },
	{ MSR_SFMASK, true, true, NULL },
	{ MSR_TSC_AUX, true, true, guest_has_tsc_aux },
	/* IBPB is a command with no state to switch; reads #GP (write-only MSR) */
	{ MSR_IA32_PRED_CMD, false, true, has_ibpb },
};
const unsigned msr_passthrough_count = ARRAY_SIZE(msr_passthrough);

struct msr_handler {
	u32 index, count; /* a range: [index, index + count) */
	/* return false to raise #GP */
	bool (*read)(struct vcpu *vcpu, u64 *val);
	bool (*write)(struct vcpu *vcpu, u64 val);
};

/*
 * The guest's TSC runs at the host's rate from the offset; a write to
 * IA32_TIME_STAMP_COUNTER or IA32_TSC_ADJUST moves it and adds the same
 * amount to the other (SDM Vol 3 §18.17.3).  A TSC-deadline the guest
 * armed stays in its TSC's terms.
 */
static bool tsc_shift(struct vcpu *vcpu, u64 delta)
{
	if (!backend->set_tsc_offset(vcpu, vcpu->tsc_offset + delta))
		return false;
	vcpu->tsc_offset += delta;
	vcpu->tsc_adjust += delta;
	apic_tsc_changed(vcpu);
	return true;
}

static bool tsc_read(struct vcpu *vcpu, u64 *val)
{
	*val = rdtsc() + vcpu->tsc_offset;
	return true;
}

static bool tsc_write(struct vcpu *vcpu, u64 val)
{
	return tsc_shift(vcpu, val - (rdtsc() + vcpu->tsc_offset));
}

static bool tsc_adjust_read(struct vcpu *vcpu, u64 *val)
{
	*val = vcpu->tsc_adjust;
	return true;
}

static bool tsc_adjust_write(struct vcpu *vcpu, u64 val)
{
	return tsc_shift(vcpu, val - vcpu->tsc_adjust);
}

static bool apic_base_read(struct vcpu *vcpu, u64 *val)
{
	*val = vcpu->apic.base;
	return true;
}

static bool efer_read(struct vcpu *vcpu, u64 *val)
{
	*val = backend->guest_efer(vcpu);
	return true;
}

/*
 * SCE, LME and NXE (where the host has NX) are the guest's; LMA is
 * read-only and SVME is not offered (no nested virtualization).  LME may
 * not change while paging is on (SDM Vol 3 §10.8.5; APM Vol 2 §14.6.1).
 */
static bool efer_write(struct vcpu *vcpu, u64 val)
{
	u64 old = backend->guest_efer(vcpu);
	u64 allowed = EFER_SCE | EFER_LME | EFER_LMA | (host_cpu.has.nx ? EFER_NXE : 0);

	if (val & ~allowed)
		return false;
	if ((backend->guest_cr0(vcpu) & CR0_PG) && ((val ^ old) & EFER_LME))
		return false;
	if (val != old)
		backend->set_guest_efer(vcpu, (val & ~EFER_LMA) | (old & EFER_LMA));
	return true;
}

static bool x2apic_read(struct vcpu *vcpu, u64 *val)
{
	return apic_msr_read(vcpu, (u32)vcpu->regs.gpr[GPR_RCX], val);
}

static bool x2apic_write(struct vcpu *vcpu, u64 val)
{
	return apic_msr_write(vcpu, (u32)vcpu->regs.gpr[GPR_RCX], val);
}

static bool pmu_read(struct vcpu *vcpu, u64 *val)
{
	return pmu_vcpu_msr_read(vcpu, (u32)vcpu->regs.gpr[GPR_RCX], val);
}

static bool pmu_write(struct vcpu *vcpu, u64 val)
{
	return pmu_vcpu_msr_write(vcpu, (u32)vcpu->regs.gpr[GPR_RCX], val);
}

static const struct msr_handler msr_handlers[] = {
	{ MSR_IA32_TSC_ADJUST, 1, tsc_adjust_read, tsc_adjust_write },
	{ MSR_IA32_APIC_BASE, 1, apic_base_read, apic_base_write },
	{ MSR_EFER, 1, efer_read, efer_write },
	{ MSR_IA32_XSS, 1, xstate_xss_read, xstate_xss_write },
	{ X2APIC_MSR_BASE, X2APIC_MSR_LAST - X2APIC_MSR_BASE + 1, x2apic_read, x2apic_write },
	{ MSR_IA32_TSC_DEADLINE, 1, apic_tsc_deadline_read, apic_tsc_deadline_write },
	/* PMU (SDM Vol 4 Table 2-2; APM Vol 2 Appendix A.6); pmu_vcpu.c answers #GP for MSRs the
	 * VM's PMU does not have */
	{ MSR_INTEL_PMC(0), 8, pmu_read, pmu_write },
	{ MSR_INTEL_PERFEVTSEL(0), 8, pmu_read, pmu_write },
	{ MSR_INTEL_FIXED_CTR(0), 4, pmu_read, pmu_write },
	{ MSR_INTEL_PERF_CAPABILITIES, 1, pmu_read, pmu_write },
	/* FIXED_CTR_CTRL, GLOBAL_STATUS, GLOBAL_CTRL, GLOBAL_OVF_CTRL, GLOBAL_STATUS_SET */
	{ MSR_INTEL_FIXED_CTR_CTRL, 5, pmu_read, pmu_write },
	{ MSR_INTEL_A_PMC(0), 8, pmu_read, pmu_write },
	/* GLOBAL_STATUS, GLOBAL_CTL, GLOBAL_STATUS_CLR, GLOBAL_STATUS_SET */
	{ MSR_AMD_GLOBAL_STATUS, 4, pmu_read, pmu_write },
	{ MSR_K7_PERF_CTL(0), 2 * K7_COUNTERS, pmu_read, pmu_write },
	{ MSR_AMD_PERF_CTL(0), 2 * PMU_AMD_MAX_GP, pmu_read, pmu_write },
	/* last: the search for the MSRs above, benchmarked, stays as it was */
	{ MSR_IA32_TSC, 1, tsc_read, tsc_write },
};

static const struct msr_handler *find_msr(u32 index)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(msr_handlers); i++)
		if (index - msr_handlers[i].index < msr_handlers[i].count)
			return &msr_handlers[i];
	return NULL;
}

void handle_msr_read(struct vcpu *vcpu, const struct vm_exit *exit)
{
	const struct msr_handler *h = find_msr(exit->msr.index);
	u64 val;

	if (!h || !h->read(vcpu, &val)) {
		vcpu_inject_gp(vcpu);
		return;
	}
	vcpu->regs.gpr[GPR_RAX] = (u32)val;
	vcpu->regs.gpr[GPR_RDX] = val >> 32;
	vcpu_skip_insn(vcpu, exit);
}

void handle_msr_write(struct vcpu *vcpu, const struct vm_exit *exit)
{
	const struct msr_handler *h = find_msr(exit->msr.index);
	u64 val = (vcpu->regs.gpr[GPR_RDX] << 32) | (u32)vcpu->regs.gpr[GPR_RAX];

	if (!h || !h->write(vcpu, val)) {
		vcpu_inject_gp(vcpu);
		return;
	}
	vcpu_skip_insn(vcpu, exit);
}
