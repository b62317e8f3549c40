/* SPDX-License-Identifier: MIT */
/*
 * The guest's GLOBAL_CTRL read back where it lives, shared by the world
 * switch (pmu_switch.c, whose put inlines it) and the accounting
 * (pmu_account.c, which owns pmu_sync_global_ctrl and the recalculation):
 * with it here, pmu_account.c calls nothing of pmu_switch.c, and the two
 * files no longer call each other.
 */
#ifndef MHV_PMU_GLOBAL_CTRL_H
#define MHV_PMU_GLOBAL_CTRL_H

#include "pmu.h"

/*
 * GLOBAL_CTRL as the guest left it: AMD's is not intercepted, so it is read
 * back while loaded (as KVM does) or from the VMCB where #VMEXIT saved it
 * (APM Vol 2 §15.39); Intel's guest writes are intercepted into VMCS 0x2808.
 */
static inline void pmu_global_ctrl_sync(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode)
{
	u64 global_ctrl = s->global_ctrl;

	if (mode == PMU_HW && s->vendor == PMU_AMD)
		global_ctrl = *s->vmcb_global_ctl;
	else if (pmu_mode_is_sw(mode) && s->loaded && s->vendor == PMU_INTEL)
		global_ctrl = s->vmcs_global_ctrl;
	else if (pmu_mode_is_sw(mode) && s->loaded)
		global_ctrl = hw->ops->rdmsr(hw->ctx, MSR_AMD_GLOBAL_CTL);
	if (global_ctrl != s->global_ctrl) {
		s->global_ctrl = global_ctrl;
		pmu_recalc_accounting(s);
	}
}

#endif
