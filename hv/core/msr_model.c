// SPDX-License-Identifier: MIT
/*
 * Model-specific MSRs that Linux reads at boot on every CPU of a vendor.
 * Without them its log says "unchecked MSR access error" and "[Firmware
 * Bug]: TSC doesn't count with P0 frequency!", and it picks mitigations
 * for a CPU that is not there.  Each is per-vCPU storage the guest reads
 * back; none reaches the host's MSR.  The AMD ones exist where the guest
 * sees an AMD CPU (its CPUID vendor is the host's).
 */
#include "msr_model.h"
#include "host/cpu_features.h"
#include "arch/msr.h"
#include "arch/regs.h"

/* The OSVW MSRs exist where CPUID Fn8000_0001 ECX[9] says (APM Vol 3 E.4.2). */
#define CPUID_EXT1_ECX_OSVW BIT(9)

static bool amd_guest(void)
{
	return host_cpu.vendor == VENDOR_AMD;
}

/*
 * HWCR: TscFreqSel reads 1 (the TSC counts at the P0 rate, which the
 * guest's invariant TSC does); the other bits are configuration the guest
 * may set and read back, and they change nothing: the guest runs with the
 * host's HWCR.  NB_CFG: extended PCI configuration through CF8 (bit 46,
 * which Linux sets on Family 10h-17h) changes nothing either: mhv's
 * guests have no PCI configuration space.  OSVW: ID length 0, no errata
 * known, as a hypervisor that tracks none.  DE_CFG: LFENCE is
 * dispatch-serializing, as on every Family 17h and later CPU, which Linux
 * reads to choose LFENCE before RDTSC and its Spectre v2 mitigation.
 */
void model_msrs_reset(struct vcpu *vcpu)
{
	vcpu->model_msrs = (struct vcpu_model_msrs){
		.hwcr = HWCR_TSC_FREQ_SEL,
		.de_cfg = DE_CFG_LFENCE_SERIALIZE,
	};
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
	*val = amd_guest() ? host_cpu.microcode_rev : (u64)host_cpu.microcode_rev << 32;
	return true;
}

bool microcode_rev_write(struct vcpu *vcpu, u64 val)
{
	(void)vcpu;
	(void)val;
	return true;
}

bool amd_hwcr_read(struct vcpu *vcpu, u64 *val)
{
	*val = vcpu->model_msrs.hwcr;
	return amd_guest();
}

bool amd_hwcr_write(struct vcpu *vcpu, u64 val)
{
	if (!amd_guest())
		return false;
	vcpu->model_msrs.hwcr = val | HWCR_TSC_FREQ_SEL;
	return true;
}

bool amd_nb_cfg_read(struct vcpu *vcpu, u64 *val)
{
	*val = vcpu->model_msrs.nb_cfg;
	return amd_guest();
}

bool amd_nb_cfg_write(struct vcpu *vcpu, u64 val)
{
	if (!amd_guest())
		return false;
	vcpu->model_msrs.nb_cfg = val;
	return true;
}

static bool guest_has_osvw(const struct vcpu *vcpu)
{
	const struct cpuid_cache *v = vcpu->cpuid_view;

	return amd_guest() && v->max_ext >= 0x80000001 && (v->ext[1].ecx & CPUID_EXT1_ECX_OSVW);
}

/* Both OSVW MSRs through one handler: ECX picks the slot. */
static u64 *osvw_reg(struct vcpu *vcpu)
{
	return &vcpu->model_msrs.osvw[((u32)vcpu->regs.gpr[GPR_RCX] - MSR_AMD_OSVW_ID_LENGTH) & 1];
}

bool amd_osvw_read(struct vcpu *vcpu, u64 *val)
{
	*val = *osvw_reg(vcpu);
	return guest_has_osvw(vcpu);
}

bool amd_osvw_write(struct vcpu *vcpu, u64 val)
{
	if (!guest_has_osvw(vcpu))
		return false;
	*osvw_reg(vcpu) = val;
	return true;
}

bool amd_de_cfg_read(struct vcpu *vcpu, u64 *val)
{
	*val = vcpu->model_msrs.de_cfg;
	return amd_guest();
}

bool amd_de_cfg_write(struct vcpu *vcpu, u64 val)
{
	if (!amd_guest())
		return false;
	vcpu->model_msrs.de_cfg = val | DE_CFG_LFENCE_SERIALIZE;
	return true;
}
