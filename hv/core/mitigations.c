// SPDX-License-Identifier: MIT
/*
 * "mitigations = auto" on this machine: the CPU's report (cached CPUID,
 * IA32_ARCH_CAPABILITIES read once here, never on an exit) goes to the
 * decision (mitigation_policy.c); this file applies it.  The exit duties
 * are the VM-run loop an "auto" vCPU takes (core/duties.inc); IBPB and
 * the host controls go around each vCPU's run: each vCPU runs once, start
 * to end, on its CPU (vm_vcpu_run), so that is where one VM follows
 * another, and a "mitigations = off" VM on the same CPU runs without them.
 */
#include "mitigations.h"
#include "vcpu.h"
#include "platform/console.h"
#include "host/cpu_features.h"
#include "arch/msr.h"
#include "arch/regs.h"
#include "arch/spec_ctrl.h"
#include "arch/x86.h"

struct mitigations mitigations;

static u32 std_reg7_edx(void)
{
	return host_cpu.cpuid.max_std >= 7 ? host_cpu.cpuid.std[7].edx : 0;
}

static const struct cpuid_regs *ext_leaf(u32 leaf)
{
	static const struct cpuid_regs none;

	if (leaf > host_cpu.cpuid.max_ext || leaf - CPUID_EXT_BASE >= CPUID_EXT_CACHED)
		return &none;
	return &host_cpu.cpuid.ext[leaf - CPUID_EXT_BASE];
}

/*
 * Family 19h and later enumerate IBPB's flush of every branch type with
 * microcode that may leave CPUID as it was: Linux (amd.c early_init_amd)
 * probes for the PRED_CMD.SBPB the same microcode brought, on bare metal
 * only.  Emulators ignore writes to MSRs they lack, so not under one.
 */
static bool sbpb_probe(const struct spec_cpu *c)
{
	if (c->vendor != SPEC_VENDOR_AMD || c->family < 0x19 || host_cpu.has.hypervisor ||
	    (c->ext21_eax & EXT21_EAX_IBPB_BRTYPE))
		return false;
	return wrmsr_safe(MSR_IA32_PRED_CMD, PRED_CMD_SBPB) == 0;
}

static void read_cpu(struct spec_cpu *c)
{
	static const enum spec_vendor vendors[] = {
		[VENDOR_OTHER] = SPEC_VENDOR_OTHER,
		[VENDOR_AMD] = SPEC_VENDOR_AMD,
		[VENDOR_INTEL] = SPEC_VENDOR_INTEL,
	};
	u64 caps = 0;

	*c = (struct spec_cpu){
		.vendor = vendors[host_cpu.vendor],
		.family = host_cpu.family,
		.std7_edx = std_reg7_edx(),
		.ext8_ebx = ext_leaf(0x80000008)->ebx,
		.ext21_eax = ext_leaf(0x80000021)->eax,
		.ext21_ecx = ext_leaf(0x80000021)->ecx,
	};
	if ((c->std7_edx & STD7_EDX_ARCH_CAPABILITIES) &&
	    rdmsr_safe(MSR_IA32_ARCH_CAPABILITIES, &caps) == 0)
		c->arch_caps = caps;
	c->sbpb_probe = sbpb_probe(c);
}

void mitigations_init(void)
{
	struct spec_cpu cpu;
	int set;

	read_cpu(&cpu);
	mitigation_decide(&cpu, &mitigations.decision);
	set = duty_set_index(mitigations.decision.exit_duties);
	/* the unit test holds every decision to the list: not reached */
	mitigations.auto_set = set < 0 ? 0 : (u8)set;
}

void mitigations_describe(bool off)
{
	const struct spec_decision *d = &mitigations.decision;
	unsigned i;

	console_printf("mhv: mitigations: %s:", off ? "off (mhv.cfg), auto would take" : "auto");
	for (i = 0; i < SPEC_TOPICS; i++)
		console_printf(" %s;", d->why[i]);
	console_printf(" guest indexes clamped\n");
}

/* The host controls: HOST_* bit, its MSR and the MSR's bit */
static const struct {
	u8 bit;
	u32 msr;
	u64 set;
} host_ctls[HOST_CTLS] = {
	{ HOST_AUTOIBRS, MSR_EFER, EFER_AIBRSE },
	{ HOST_EIBRS, MSR_IA32_SPEC_CTRL, SPEC_CTRL_IBRS },
	{ HOST_BP_SPEC_REDUCE, MSR_AMD_BP_CFG, BP_CFG_BP_SPEC_REDUCE },
};

/*
 * On SVM, VMRUN keeps the host's EFER in the host save area and #VMEXIT
 * loads it back (APM Vol 2 §15.5.1, §15.6), so AIBRSE set here protects
 * the host from the first instruction after every #VMEXIT; the guest's
 * EFER (VMCB) governs the guest only.  On VMX, SPEC_CTRL is not switched:
 * mhv gives guests no SPEC_CTRL (core/msr.c: #GP), so IBRS stays set
 * through the guest as well, as enhanced IBRS is meant to (set once).
 */
void mitigations_vcpu_enter(const struct vcpu *vcpu, struct host_ctl_saved *saved)
{
	u8 want = vcpu->mitigated ? mitigations.decision.host_ctl : 0;
	unsigned i;

	saved->set = 0;
	if (vcpu->mitigated && mitigations.decision.ibpb_switch)
		wrmsr(MSR_IA32_PRED_CMD, PRED_CMD_IBPB); /* SDM Vol 4 IA32_PRED_CMD */
	for (i = 0; i < HOST_CTLS; i++) {
		u64 v;

		if (!(want & host_ctls[i].bit) || rdmsr_safe(host_ctls[i].msr, &v))
			continue;
		saved->value[i] = v;
		if (!(v & host_ctls[i].set) &&
		    wrmsr_safe(host_ctls[i].msr, v | host_ctls[i].set) == 0)
			saved->set |= host_ctls[i].bit;
	}
}

void mitigations_vcpu_leave(const struct host_ctl_saved *saved)
{
	unsigned i;

	for (i = 0; i < HOST_CTLS; i++)
		if (saved->set & host_ctls[i].bit)
			wrmsr(host_ctls[i].msr, saved->value[i]);
}
