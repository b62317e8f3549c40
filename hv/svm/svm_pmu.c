// SPDX-License-Identifier: MIT
/*
 * The guest PMU on SVM: which PMU MSRs and RDPMC skip the exit, the
 * PerfCtrVirt VMCB slots (mode hw), and the exit handlers of the PMU run
 * loops, which wrap svm_handle_exit in the world switch of hv/pmu, or, in
 * modes sw-lazy and hw while the PMU needs no hook, leave the exits to the
 * handlers of VMs without a PMU.
 */
#include "svm.h"
#include "svm_exit.h"
#include "pmu/pmu_vcpu.h"
#include "core/vcpu.h"

#define VIRT_EXT_PMC BIT(3)	     /* PMC virtualization enable (APM Vol 2 Table B-1, 0B8h) */
#define INT_CTL_V_NMI_ENABLE BIT(26) /* VNMI (APM Vol 2 §15.21.10, Table B-1) */
#define INT_CTL_V_NMI_PENDING BIT(11)

void svm_pmu_setup(struct vcpu *vcpu, struct svm_vcpu *s)
{
	struct vmcb_control_area *c = &s->vmcb->control;
	u32 msrs[PMU_PASSTHROUGH_MAX];
	unsigned i, n = pmu_vcpu_passthrough_list(vcpu, msrs);

	for (i = 0; i < n; i++)
		svm_msrpm_allow(s->msrpm, msrs[i], true, true);
	if (pmu_vcpu_rdpmc_passthrough(vcpu))
		c->intercept_misc1 &= ~INTERCEPT_RDPMC;
	/* The CPU swaps the counters itself and delivers the guest's
	 * overflows as virtual NMIs (APM Vol 2 §15.39: mhv does not use AVIC). */
	if (vcpu->pmu_mode == PMU_HW) {
		c->virt_ext |= VIRT_EXT_PMC;
		c->int_ctl |= INT_CTL_V_NMI_ENABLE;
		/* The VMCB is the guest state's home (APM Vol 2 Table B-2): no copy per exit. */
		_Static_assert(sizeof(s->vmcb->save.pmc[0]) == sizeof(struct pmu_vmcb_pmc) &&
				   ARRAY_SIZE(s->vmcb->save.pmc) == PMU_AMD_MAX_GP,
			       "VMCB PERF_CTL/CTR pairs as pmu.h lays them out");
		pmu_attach_vmcb(&vcpu->pmu, (struct pmu_vmcb_pmc *)s->vmcb->save.pmc,
				&s->vmcb->save.perf_global_status, &s->vmcb->save.perf_global_ctl);
	}
}

/*
 * Mode hw: VMRUN loads the VMCB's PMU slots, and an overflow mhv caused by
 * accounting an emulated instruction goes the way the CPU's own go: a
 * virtual NMI (APM Vol 2 §15.39 with VNMI; KVM's PMC virtualization sets
 * V_NMI pending for its synthesized PMIs too).
 */
static void raise_accounted_pmi(struct vcpu *vcpu, struct vmcb *vmcb)
{
	if (unlikely(vcpu->pmu.pmi_pending)) {
		vcpu->pmu.pmi_pending = false;
		vmcb->control.int_ctl |= INT_CTL_V_NMI_PENDING;
		svm_vmcb_dirty(vmcb, VMCB_CLEAN_TPR);
	}
}

/* Every exit code, those above 255 too, to the world switch: the PMU needs its hooks. */
static svm_fast_fn *const switch_exits[SVM_EXIT_TABLE_SIZE + 1] = {
	[0 ... SVM_EXIT_TABLE_SIZE] = svm_pmu_general_exit,
};

/*
 * The table the sw-lazy and hw loops call next: while no exit needs a PMU
 * hook (pmu_exit_quiet), the one of VMs without a PMU, but for the MSR exit
 * (svm_fast_exits_pmu); else the switch for every exit.  What the choice
 * depends on changes only in pmu_set_msr, which only an intercepted MSR
 * access reaches, and in the hooks: so only exits under the switch choose.
 */
static void svm_choose_exit_table(struct vcpu *vcpu)
{
	vcpu->exit_table =
	    pmu_exit_quiet(&vcpu->pmu, vcpu->pmu_mode) ? svm_fast_exits_pmu : switch_exits;
}

void svm_pmu_first_entry(struct vcpu *vcpu, struct vmcb *vmcb)
{
	pmu_vcpu_first_entry(vcpu);
	if (vcpu->pmu_mode == PMU_HW)
		raise_accounted_pmi(vcpu, vmcb);
	svm_choose_exit_table(vcpu);
}

/* Modes sw and sw-noelide: called by their run loops after every #VMEXIT;
 * non-zero to enter again. */
int svm_handle_exit_pmu(struct vcpu *vcpu, struct vmcb *vmcb)
{
	u64 exit_rip = vmcb->save.rip;

	pmu_vcpu_after_exit(vcpu);
	if (!svm_handle_exit(vcpu, vmcb))
		return 0; /* the VM stopped: vcpu_run gives the host its PMU back */
	pmu_vcpu_before_entry(vcpu, exit_rip);
	return 1;
}

/*
 * Modes sw-lazy and hw: every exit while the PMU needs its hooks, and the
 * MSR accesses no fast handler completes while it does not.  Their exit hook
 * puts nothing (pmu_put_if_needed: the host never needs the PMU back while
 * the VM runs), so only the entry hooks are left, and those find nothing to
 * do when the handler leaves the PMU quiet (no accounting, no PMI to look
 * for or raise, the state loaded or in the VMCB).
 */
int svm_pmu_general_exit(struct vcpu *vcpu, struct vmcb *vmcb)
{
	u64 exit_rip = vmcb->save.rip;

	if (!svm_handle_exit(vcpu, vmcb))
		return 0; /* the VM stopped: vcpu_run gives the host its PMU back */
	if (likely(pmu_exit_quiet(&vcpu->pmu, vcpu->pmu_mode))) {
		vcpu->exit_table = svm_fast_exits_pmu;
		return 1;
	}
	pmu_vcpu_before_entry(vcpu, exit_rip);
	if (vcpu->pmu_mode == PMU_HW)
		raise_accounted_pmi(vcpu, vmcb);
	svm_choose_exit_table(vcpu);
	return 1;
}
