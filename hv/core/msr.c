// SPDX-License-Identifier: MIT
/*
 * Guest RDMSR/WRMSR that exit.  An explicit allow list; any other MSR
 * gets #GP, as on a CPU that does not have it.
 */
#include "host/cpu_features.h"
#include "exit_dispatch.h"
#include "mce_bank.h"
#include "msr_model.h"
#include "msr_policy.h"
#include "mtrr.h"
#include "pmu/pmu_vcpu.h"
#include "vcpu.h"
#include "arch/apic.h"
#include "arch/msr.h"
#include "arch/perfmon.h"
#include "arch/regs.h"
#include "arch/x86.h"
#include "lib/nospec.h"

static bool host_has_ibpb(const struct vcpu *vcpu)
{
	return host_cpu.has.ibpb || host_cpu.has.spec_ctrl;
}

/*
 * TSC_AUX exists where RDTSCP or RDPID does (SDM Vol 4 Table 2-2): the
 * guest has it where its CPUID shows one of them (VMX without "enable
 * RDTSCP" hides both).  The view only clears host bits, so the host has it too.
 */
static bool guest_has_tsc_aux(const struct vcpu *vcpu)
{
	const struct cpuid_cache *v = vcpu->cpuid_view;

	return (v->ext[1].edx & CPUID_EXT1_EDX_RDTSCP) || (v->std[7].ecx & CPUID7_ECX_RDPID);
}

/*
 * PKRS has no VMCB field (AMD has no PKS) and mhv does not ask VMX to
 * switch it: the host never sets CR4.PKS, so the guest's value can stay
 * loaded, reset where a vCPU starts (core/cpu_reset.c).  The guest has it
 * where its CPUID shows PKS, which is where the host has it.
 */
static bool guest_has_pks(const struct vcpu *vcpu)
{
	return vcpu->cpuid_view->std[7].ecx & CPUID7_ECX_PKS;
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
	{ MSR_IA32_PKRS, true, true, guest_has_pks },
	/* IBPB is a command with no state to switch; reads #GP (write-only MSR) */
	{ MSR_IA32_PRED_CMD, false, true, host_has_ibpb },
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
	/* Rewriting the value it has (a common idiom, and the benchmark's) moves nothing */
	if (likely(val == vcpu->tsc_adjust))
		return true;
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
 * SCE, LME and NXE (where the host has NX) are the guest's, and so is
 * AIBRSE where the host has AutoIBRS (CPUID 8000_0021 EAX[8], which guests
 * see; APM Vol 2 §3.1.7): the guest's EFER is the VMCB's, loaded by VMRUN.
 * LMA is read-only and SVME is not offered (no nested virtualization).  LME
 * may not change while paging is on (SDM Vol 3 §10.8.5; APM Vol 2 §14.6.1).
 */
static bool efer_write(struct vcpu *vcpu, u64 val)
{
	u64 old = backend->guest_efer(vcpu);
	u64 allowed = EFER_SCE | EFER_LME | EFER_LMA | (host_cpu.has.nx ? EFER_NXE : 0) |
		      (host_cpu.has.autoibrs ? EFER_AIBRSE : 0);

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

/*
 * IA32_MISC_ENABLE on both vendors, as KVM gives it: the architectural
 * bits (SDM Vol 4 Table 2-2).  The read-only ones describe the vCPU
 * (no BTS, no PEBS; performance monitoring where its CPUID has the
 * architectural PMU leaf); the others hold what the guest writes.  Of
 * those only LIMIT_CPUID changes what the guest sees (its CPUID view);
 * as under KVM, clearing MONITOR or setting XD_DISABLE takes neither
 * MONITOR/MWAIT nor NX away.  Other bits are reserved: #GP.
 */
#define MISC_ENABLE_RO (MISC_ENABLE_PERFMON | MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL)
#define MISC_ENABLE_RW                                                              \
	(MISC_ENABLE_FAST_STRINGS | MISC_ENABLE_AUTO_TCC | MISC_ENABLE_EIST |       \
	 MISC_ENABLE_MONITOR | MISC_ENABLE_LIMIT_CPUID | MISC_ENABLE_XTPR_DISABLE | \
	 MISC_ENABLE_XD_DISABLE)

static bool misc_enable_read(struct vcpu *vcpu, u64 *val)
{
	*val = vcpu->misc_enable;
	return true;
}

static bool misc_enable_write(struct vcpu *vcpu, u64 val)
{
	u64 changed = val ^ vcpu->misc_enable;

	if ((val & ~(MISC_ENABLE_RO | MISC_ENABLE_RW)) || (changed & MISC_ENABLE_RO))
		return false;
	vcpu->misc_enable = val;
	if (changed & MISC_ENABLE_LIMIT_CPUID)
		vcpu->cpuid_view =
		    val & MISC_ENABLE_LIMIT_CPUID ? &vcpu->vm->cpuid_limited : &vcpu->vm->cpuid;
	return true;
}

/* Each of the eight entries is a memory type; 2, 3 and 8-255 are reserved
 * (SDM Vol 3 §13.12.2; APM Vol 2 §7.8.1): #GP. */
static bool pat_read(struct vcpu *vcpu, u64 *val)
{
	*val = backend->guest_pat(vcpu);
	return true;
}

static bool pat_write(struct vcpu *vcpu, u64 val)
{
	unsigned i;

	for (i = 0; i < 64; i += 8) {
		u8 type = val >> i;

		if (type > 7 || type == 2 || type == 3)
			return false;
	}
	backend->set_guest_pat(vcpu, val);
	return true;
}

/*
 * The machine-check architecture that CPUID.1:EDX[14] (MCA) promises:
 * VCPU_MCE_BANKS banks, no MCG_CTL, no extended registers, CMCI or LMCE
 * (SDM Vol 3 §16.3.1).  mhv logs no errors in them; the guest's values
 * stay, with the writes the architecture refuses refused: MCG_CAP is
 * read-only, MCi_STATUS takes only 0 (§16.3.2.2) and MCi_CTL all 0s or
 * all 1s, or all 1s with bits 10 and 0 clear as KVM allows (mce_bank.h).
 * Banks beyond the count #GP.
 */
static bool guest_has_mca(struct vcpu *vcpu)
{
	return vcpu->cpuid_view->std[1].edx & CPUID1_EDX_MCA;
}

static bool mcg_read(struct vcpu *vcpu, u64 *val)
{
	if (!guest_has_mca(vcpu))
		return false;
	*val = (u32)vcpu->regs.gpr[GPR_RCX] == MSR_IA32_MCG_CAP ? VCPU_MCE_BANKS : vcpu->mce.status;
	return true;
}

static bool mcg_write(struct vcpu *vcpu, u64 val)
{
	if (!guest_has_mca(vcpu) || (u32)vcpu->regs.gpr[GPR_RCX] == MSR_IA32_MCG_CAP ||
	    (val & ~(MCG_STATUS_RIPV | MCG_STATUS_EIPV | MCG_STATUS_MCIP)))
		return false;
	vcpu->mce.status = val;
	return true;
}

static u64 *mc_bank_reg(struct vcpu *vcpu)
{
	u32 n = (u32)vcpu->regs.gpr[GPR_RCX] - MSR_IA32_MC_CTL(0);

	/* msr_handlers_rare's range bounds the bank; the clamp holds under
	 * speculation too (n % 4 is always a register of it) */
	return guest_has_mca(vcpu)
		   ? &vcpu->mce.bank[array_index_nospec(n / 4, VCPU_MCE_BANKS)][n % 4]
		   : NULL;
}

static bool mc_bank_read(struct vcpu *vcpu, u64 *val)
{
	u64 *reg = mc_bank_reg(vcpu);

	if (!reg)
		return false;
	*val = *reg;
	return true;
}

static bool mc_bank_write(struct vcpu *vcpu, u64 val)
{
	u32 n = (u32)vcpu->regs.gpr[GPR_RCX] - MSR_IA32_MC_CTL(0);
	u64 *reg = mc_bank_reg(vcpu);

	if (!reg || (n % 4 == 0 && !mc_ctl_write_ok(val)) ||
	    (n % 4 == 1 && !mc_status_write_ok(val)))
		return false;
	*reg = val;
	return true;
}

/* Canonical for the guest's paging: 57 bits with CR4.LA57 (bit 12), else
 * 48 (SDM Vol 3 §4.5.1). */
static bool guest_canonical(struct vcpu *vcpu, u64 addr)
{
	unsigned unused = backend->guest_cr4(vcpu) & BIT(12) ? 64 - 57 : 64 - 48;

	return (u64)((s64)(addr << unused) >> unused) == addr;
}

/*
 * IA32_DS_AREA where the guest's CPUID shows DS: a linear address, #GP
 * when not canonical (SDM Vol 4 Table 2-2), held for the guest.  Nothing
 * writes to the area: IA32_MISC_ENABLE says BTS and PEBS are unavailable.
 */
static bool guest_has_ds(struct vcpu *vcpu)
{
	return vcpu->cpuid_view->std[1].edx & CPUID1_EDX_DS;
}

static bool ds_area_read(struct vcpu *vcpu, u64 *val)
{
	*val = vcpu->ds_area;
	return guest_has_ds(vcpu);
}

static bool ds_area_write(struct vcpu *vcpu, u64 val)
{
	if (!guest_has_ds(vcpu) || !guest_canonical(vcpu, val))
		return false;
	vcpu->ds_area = val;
	return true;
}

/* The MTRRs (mtrr.h), where the guest's CPUID shows them. */
static bool guest_has_mtrr(struct vcpu *vcpu)
{
	return vcpu->cpuid_view->std[1].edx & CPUID1_EDX_MTRR;
}

/* CPUID 0x80000008 EAX[7:0], 36 where the leaf is absent (SDM Vol 3 §12.11.2.3) */
static unsigned guest_maxphyaddr(struct vcpu *vcpu)
{
	const struct cpuid_cache *v = vcpu->cpuid_view;

	return v->max_ext >= 0x80000008 ? v->ext[8].eax & 0xff : 36;
}

static bool mtrr_msr_read(struct vcpu *vcpu, u64 *val)
{
	return guest_has_mtrr(vcpu) && mtrr_read(&vcpu->mtrr, (u32)vcpu->regs.gpr[GPR_RCX], val);
}

static bool mtrr_msr_write(struct vcpu *vcpu, u64 val)
{
	return guest_has_mtrr(vcpu) &&
	       mtrr_write(&vcpu->mtrr, (u32)vcpu->regs.gpr[GPR_RCX], val, guest_maxphyaddr(vcpu));
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

/*
 * MSRs no benchmark uses, searched only when the table above has no
 * entry: with them in it, the compiler no longer unrolls its search into
 * compares, and the benchmarked MSRs pay a loop.
 */
static const struct msr_handler msr_handlers_rare[] = {
	{ MSR_IA32_MISC_ENABLE, 1, misc_enable_read, misc_enable_write },
	{ MSR_IA32_PAT, 1, pat_read, pat_write },
	{ MSR_IA32_MCG_CAP, 2, mcg_read, mcg_write }, /* and MCG_STATUS */
	{ MSR_IA32_MC_CTL(0), 4 * VCPU_MCE_BANKS, mc_bank_read, mc_bank_write },
	{ MSR_IA32_DS_AREA, 1, ds_area_read, ds_area_write },
	{ MSR_MICROCODE_REV, 1, microcode_rev_read, microcode_rev_write },
	{ MSR_AMD_HWCR, 1, amd_model_msr_read, amd_model_msr_write },
	{ MSR_AMD_NB_CFG, 1, amd_model_msr_read, amd_model_msr_write },
	{ MSR_AMD_OSVW_ID_LENGTH, 2, amd_model_msr_read, amd_model_msr_write }, /* and STATUS */
	{ MSR_AMD_DE_CFG, 1, amd_model_msr_read, amd_model_msr_write },
	{ MSR_AMD_SYSCFG, 1, amd_model_msr_read, amd_model_msr_write },
	{ MSR_AMD_INT_PENDING_MSG, 1, amd_model_msr_read, amd_model_msr_write },
	{ MSR_MTRRCAP, 1, mtrr_msr_read, mtrr_msr_write },
	{ MSR_MTRR_PHYSBASE(0), 2 * MTRR_VCNT, mtrr_msr_read, mtrr_msr_write },
	{ MSR_MTRR_FIX64K_00000, 1, mtrr_msr_read, mtrr_msr_write },
	{ MSR_MTRR_FIX16K_80000, 2, mtrr_msr_read, mtrr_msr_write },
	{ MSR_MTRR_FIX4K(0), 8, mtrr_msr_read, mtrr_msr_write },
	{ MSR_MTRR_DEF_TYPE, 1, mtrr_msr_read, mtrr_msr_write },
};

void msr_vcpu_reset(struct vcpu *vcpu)
{
	const struct cpuid_cache *v = vcpu->cpuid_view;

	vcpu->misc_enable =
	    MISC_ENABLE_FAST_STRINGS | MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL;
	if (v->max_std >= 0xa && (v->std[0xa].eax & 0xff))
		vcpu->misc_enable |= MISC_ENABLE_PERFMON;
	if (v->std[1].ecx & CPUID1_ECX_MONITOR)
		vcpu->misc_enable |= MISC_ENABLE_MONITOR;
	vcpu->mce = (struct vcpu_mce){ 0 };
	vcpu->ds_area = 0;
	model_msrs_reset(vcpu);
	mtrr_reset(&vcpu->mtrr, guest_maxphyaddr(vcpu));
}

static __attribute__((noinline)) const struct msr_handler *find_msr_rare(u32 index)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(msr_handlers_rare); i++)
		if (index - msr_handlers_rare[i].index < msr_handlers_rare[i].count)
			return &msr_handlers_rare[i];
	return NULL;
}

static const struct msr_handler *find_msr(u32 index)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(msr_handlers); i++)
		if (index - msr_handlers[i].index < msr_handlers[i].count)
			return &msr_handlers[i];
	return find_msr_rare(index);
}

/* The #GP path only: note which MSR the guest missed (vm.h). */
static __attribute__((noinline)) void msr_refuse(struct vcpu *vcpu, u32 index, bool write)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(vcpu->msr_refused); i++) {
		struct msr_refusal *r = &vcpu->msr_refused[i];

		if (!r->count) {
			*r = (struct msr_refusal){ index, write, 1 };
			break;
		}
		if (r->index == index && r->write == write) {
			r->count++;
			break;
		}
	}
	if (i == ARRAY_SIZE(vcpu->msr_refused))
		vcpu->msr_refused_other++;
	vcpu_inject_gp(vcpu);
}

void handle_msr_read(struct vcpu *vcpu, const struct vm_exit *exit)
{
	const struct msr_handler *h = find_msr(exit->msr.index);
	u64 val;

	if (!h || !h->read(vcpu, &val)) {
		msr_refuse(vcpu, exit->msr.index, false);
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
		msr_refuse(vcpu, exit->msr.index, true);
		return;
	}
	vcpu_skip_insn(vcpu, exit);
}
