// SPDX-License-Identifier: MIT
/*
 * Model-specific MSRs that Linux reads at boot on every CPU of a vendor.
 * Without them its log says "unchecked MSR access error" and "[Firmware
 * Bug]: TSC doesn't count with P0 frequency!", and it picks mitigations
 * for a CPU that is not there.  None reaches the host's MSR.
 */
#include "msr_model.h"
#include "host/cpu_features.h"
#include "arch/msr.h"
#include "arch/regs.h"

/* The OSVW MSRs exist where CPUID Fn8000_0001 ECX[9] says (APM Vol 3 E.4.2). */
#define CPUID_EXT1_ECX_OSVW BIT(9)

/*
 * The AMD ones: per-vCPU values the guest reads back, which change
 * nothing (the guest runs with the host's settings).  set: bits that
 * always read 1; fixed: bits a write may not change (#GP).
 *   HWCR: TscFreqSel, the TSC counts at the P0 rate, as the guest's
 *     invariant TSC does.
 *   NB_CFG: extended PCI configuration through CF8 (bit 46, which Linux
 *     sets on Family 10h-17h): mhv's guests have no PCI configuration space.
 *   OSVW: ID length 0, no errata known, as a hypervisor that tracks none.
 *   DE_CFG: LFENCE is dispatch-serializing, as on every Family 17h and
 *     later CPU; Linux reads it to choose LFENCE before RDTSC.
 *   SYSCFG (APM Vol 2 §3.2.1), read unguarded next to the fixed MTRRs:
 *     all 0 (no RdMem/WrMem extension, TOP_MEM2 off), and so it stays.
 *   Interrupt Pending Message (family 0Fh/10h), read unguarded where
 *     erratum 400 applies (QEMU TCG's family 0Fh): 0, no C1E in a VM.
 */
static const struct model_msr {
	u32 index;
	u64 set, fixed;
	bool osvw; /* exists only where CPUID shows OSVW */
} amd_msrs[] = {
	{ MSR_AMD_HWCR, HWCR_TSC_FREQ_SEL, 0, false },
	{ MSR_AMD_NB_CFG, 0, 0, false },
	{ MSR_AMD_OSVW_ID_LENGTH, 0, 0, true },
	{ MSR_AMD_OSVW_STATUS, 0, 0, true },
	{ MSR_AMD_DE_CFG, DE_CFG_LFENCE_SERIALIZE, 0, false },
	{ MSR_AMD_SYSCFG, 0, ~0ull, false },
	{ MSR_AMD_INT_PENDING_MSG, 0, ~0ull, false },
};
_Static_assert(ARRAY_SIZE(amd_msrs) == VCPU_MODEL_MSRS, "one vCPU slot per MSR");

void model_msrs_reset(struct vcpu *vcpu)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(amd_msrs); i++)
		vcpu->model_msrs[i] = amd_msrs[i].set;
}

/* The slot of the MSR in ECX, where the guest sees an AMD CPU (its CPUID
 * vendor is the host's) that has it; -1 for #GP. */
static int amd_msr_slot(const struct vcpu *vcpu)
{
	const struct cpuid_cache *v = vcpu->cpuid_view;
	u32 index = (u32)vcpu->regs.gpr[GPR_RCX];
	unsigned i;

	if (host_cpu.vendor != VENDOR_AMD)
		return -1;
	for (i = 0; i < ARRAY_SIZE(amd_msrs); i++)
		if (amd_msrs[i].index == index)
			break;
	if (i == ARRAY_SIZE(amd_msrs) ||
	    (amd_msrs[i].osvw &&
	     !(v->max_ext >= 0x80000001 && (v->ext[1].ecx & CPUID_EXT1_ECX_OSVW))))
		return -1;
	return (int)i;
}

bool amd_model_msr_read(struct vcpu *vcpu, u64 *val)
{
	int slot = amd_msr_slot(vcpu);

	if (slot < 0)
		return false;
	*val = vcpu->model_msrs[slot];
	return true;
}

bool amd_model_msr_write(struct vcpu *vcpu, u64 val)
{
	int slot = amd_msr_slot(vcpu);

	if (slot < 0 || ((val ^ vcpu->model_msrs[slot]) & amd_msrs[slot].fixed))
		return false;
	vcpu->model_msrs[slot] = val | amd_msrs[slot].set;
	return true;
}

/*
 * The microcode revision (SDM Vol 3 §10.11.7: Intel's in EDX, after the
 * write of 0 and CPUID that the guest does first; AMD's PATCH_LEVEL in
 * EAX): the host's, where mhv could read it, else 0.  Writes are Intel's
 * "clear, then CPUID reloads it": accepted, the value stays the host's.
 */
bool microcode_rev_read(struct vcpu *vcpu, u64 *val)
{
	(void)vcpu;
	*val = host_cpu.vendor == VENDOR_AMD ? host_cpu.microcode_rev
					     : (u64)host_cpu.microcode_rev << 32;
	return true;
}

bool microcode_rev_write(struct vcpu *vcpu, u64 val)
{
	(void)vcpu;
	(void)val;
	return true;
}
