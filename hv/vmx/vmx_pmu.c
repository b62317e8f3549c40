// SPDX-License-Identifier: MIT
/*
 * The guest PMU on VMX: which PMU MSRs and RDPMC skip the exit, the
 * VM-entry/VM-exit loads of IA32_PERF_GLOBAL_CTRL (guest value from VMCS
 * 0x2808 at entry, 0 at exit: SDM Vol 3 §25.7.1, §25.8.1), and the exit handlers of
 * the PMU run loops, which wrap vmx_handle_exit in the world switch, or, in
 * mode sw-lazy while the PMU needs no hook, leave the exits to the fast
 * handlers.
 *
 * The guest's GLOBAL_CTRL writes are intercepted (pmu_vcpu.c), so the
 * VMCS field is always current and neither the VM-exit "save" control nor
 * an MSR-store list is needed on CPUs that lack "save".
 */
#include "vmx.h"
#include "vmcs.h"
#include "vmx_insn.h"
#include "pmu/pmu_vcpu.h"
#include "core/vcpu.h"

enum backend_err vmx_pmu_setup(struct vcpu *vcpu, struct vmx_vcpu *x, struct backend_error *err)
{
	u32 msrs[PMU_PASSTHROUGH_MAX];
	unsigned i, n = pmu_vcpu_passthrough_list(vcpu, msrs);

	for (i = 0; i < n; i++)
		vmx_msr_bitmap_allow(x->msr_bitmap, msrs[i], true, true);
	if (pmu_vcpu_rdpmc_passthrough(vcpu))
		x->proc &= ~PROC_RDPMC_EXITING;
	x->guest_perf_global_ctrl = vcpu->pmu.vmcs_global_ctrl;

	const struct vmcs_init fields[] = {
		VMCS_INIT(VMCS_PROC_CONTROLS, x->proc),
		VMCS_INIT(VMCS_EXIT_CONTROLS, vmx_caps.exit | EXIT_LOAD_PERF_GLOBAL_CTRL),
		/* on top of what vcpu_create chose: a 32-bit multiboot entry has
		 * "IA-32e mode guest" cleared (SDM Vol 3 §25.8.1) */
		VMCS_INIT(VMCS_ENTRY_CONTROLS,
			  vmread(VMCS_ENTRY_CONTROLS) | ENTRY_LOAD_PERF_GLOBAL_CTRL),
		VMCS_INIT(VMCS_HOST_PERF_GLOBAL_CTRL, 0),
		VMCS_INIT(VMCS_GUEST_PERF_GLOBAL_CTRL, x->guest_perf_global_ctrl),
	};

	return vmx_write_fields(fields, ARRAY_SIZE(fields), BACKEND_ERR_VMWRITE, err);
}

/* The guest's GLOBAL_CTRL, for the next VM entry to load. */
static void sync_global_ctrl(struct vcpu *vcpu)
{
	struct vmx_vcpu *x = vcpu->vendor;

	if (vcpu->pmu.vmcs_global_ctrl != x->guest_perf_global_ctrl) {
		x->guest_perf_global_ctrl = vcpu->pmu.vmcs_global_ctrl;
		vmwrite(VMCS_GUEST_PERF_GLOBAL_CTRL, x->guest_perf_global_ctrl);
	}
}

/* Every reason, those from 256 up too, to the world switch: the PMU needs its hooks. */
static vmx_fast_fn *const switch_exits[VMX_FAST_EXITS + 1] = {
	[0 ... VMX_FAST_EXITS] = vmx_pmu_general_exit,
};

/*
 * The table the sw-lazy loops call next: while no exit needs a PMU hook
 * (pmu_exit_quiet), the one of VMs without a PMU, but for WRMSR
 * (vmx_fast_exits_pmu); else the switch for every exit.  What the choice
 * depends on changes only in pmu_set_msr, which only an intercepted MSR
 * access reaches, and in the hooks: so only exits under the switch choose.
 */
static void vmx_choose_exit_table(struct vcpu *vcpu)
{
	vcpu->exit_table =
	    pmu_exit_quiet(&vcpu->pmu, vcpu->pmu_mode) ? vmx_fast_exits_pmu : switch_exits;
}

void vmx_pmu_first_entry(struct vcpu *vcpu)
{
	pmu_vcpu_first_entry(vcpu);
	sync_global_ctrl(vcpu);
	vmx_choose_exit_table(vcpu);
}

/* Modes sw and sw-noelide: called by their run loops after every VM exit;
 * non-zero to enter again. */
int vmx_handle_exit_pmu(struct vcpu *vcpu)
{
	u64 exit_rip = vmread(VMCS_GUEST_RIP);

	pmu_vcpu_after_exit(vcpu);
	if (!vmx_handle_exit(vcpu))
		return 0; /* the VM stopped: vcpu_run gives the host its PMU back */
	pmu_vcpu_before_entry(vcpu, exit_rip);
	sync_global_ctrl(vcpu);
	return 1;
}

/*
 * Mode sw-lazy: every exit while the PMU needs its hooks, and the WRMSRs
 * that may wake it while it does not.  Its exit hook puts nothing
 * (pmu_put_if_needed: no guest counter counts in host mode, the VM exit
 * loads GLOBAL_CTRL = 0), so only the entry hooks are left, and those find
 * nothing to do when the handler leaves the PMU quiet; a GLOBAL_CTRL the
 * guest wrote still goes to the VMCS.
 */
int vmx_pmu_general_exit(struct vcpu *vcpu, u32 reason)
{
	u64 exit_rip = vmread(VMCS_GUEST_RIP);

	if (!vmx_handle_exit_reason(vcpu, reason))
		return 0; /* the VM stopped: vcpu_run gives the host its PMU back */
	if (likely(pmu_exit_quiet(&vcpu->pmu, vcpu->pmu_mode))) {
		sync_global_ctrl(vcpu);
		vcpu->exit_table = vmx_fast_exits_pmu;
		return 1;
	}
	pmu_vcpu_before_entry(vcpu, exit_rip);
	sync_global_ctrl(vcpu);
	vmx_choose_exit_table(vcpu);
	return 1;
}
