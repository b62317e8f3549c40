// SPDX-License-Identifier: MIT
/*
 * The guest PMU on SVM: which PMU MSRs and RDPMC skip the exit, the
 * PerfCtrVirt VMCB slots (mode hw), and the exit handler of the PMU run
 * loops, which wraps svm_handle_exit in the world switch of hv/pmu.
 */
#include "svm.h"
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
	}
}

/*
 * Mode hw: the VMCB holds the guest's counters and global registers while
 * mhv runs; struct pmu_state keeps its own copy (what the PMU model tests),
 * so it is refreshed at each exit and written back before each VMRUN.
 * Event selects are always intercepted, so only mhv changes those slots.
 */
static void vmcb_to_pmu(struct pmu_state *p, const struct vmcb_save_area *g)
{
	unsigned i;

	for (i = 0; i < p->nr_gp; i++)
		p->vmcb_ctr[i] = g->pmc[i].ctr;
	p->vmcb_global_status = g->perf_global_status;
	p->vmcb_global_ctl = g->perf_global_ctl;
}

static void pmu_to_vmcb(const struct pmu_state *p, struct vmcb_save_area *g)
{
	unsigned i;

	for (i = 0; i < p->nr_gp; i++) {
		g->pmc[i].ctl = p->vmcb_ctl[i];
		g->pmc[i].ctr = p->vmcb_ctr[i];
	}
	g->perf_global_status = p->vmcb_global_status;
	g->perf_global_ctl = (u32)p->vmcb_global_ctl;
}

/*
 * Mode hw: VMRUN loads the VMCB's PMU slots, and an overflow mhv caused by
 * accounting an emulated instruction goes the way the CPU's own go: a
 * virtual NMI (APM Vol 2 §15.39 with VNMI; KVM's PMC virtualization sets
 * V_NMI pending for its synthesized PMIs too).
 */
static void pmu_enter_hw(struct vcpu *vcpu, struct vmcb *vmcb)
{
	pmu_to_vmcb(&vcpu->pmu, &vmcb->save);
	if (unlikely(vcpu->pmu.pmi_pending)) {
		vcpu->pmu.pmi_pending = false;
		vmcb->control.int_ctl |= INT_CTL_V_NMI_PENDING;
	}
}

void svm_pmu_first_entry(struct vcpu *vcpu, struct vmcb *vmcb)
{
	pmu_vcpu_before_entry(vcpu, vcpu->regs.rip);
	if (vcpu->pmu_mode == PMU_HW)
		pmu_enter_hw(vcpu, vmcb);
}

/* Called by the PMU run loops after every #VMEXIT; non-zero to enter again. */
int svm_handle_exit_pmu(struct vcpu *vcpu, struct vmcb *vmcb)
{
	u64 exit_rip = vmcb->save.rip;

	if (vcpu->pmu_mode == PMU_HW)
		vmcb_to_pmu(&vcpu->pmu, &vmcb->save);
	pmu_vcpu_after_exit(vcpu);
	if (!svm_handle_exit(vcpu, vmcb))
		return 0; /* the VM stopped: vcpu_run gives the host its PMU back */
	pmu_vcpu_before_entry(vcpu, exit_rip);
	if (vcpu->pmu_mode == PMU_HW)
		pmu_enter_hw(vcpu, vmcb);
	return 1;
}
