// SPDX-License-Identifier: MIT
/*
 * From a guest counter's overflow to the guest's PMI: which overflows
 * are fresh, and the raise through the vCPU's interrupt line
 * (struct pmu_pmi_line), which the core wires to the APIC's LVTPC.  Pure
 * but for struct pmu_hw, so the unit tests drive it against their model.
 */
#include "pmu.h"

/*
 * Overflows of counters whose interrupt is on become one guest PMI each,
 * through the vCPU's PMI line (pmi_line: the guest's LVTPC), before the
 * next entry.  A hardware overflow in guest mode raises the host's PMI
 * (lapic.h), which forces an exit at the overflow, as the PMI comes on
 * hardware; an accounted one is found right after accounting.
 * A PMI per overflow, not per status bit: a counter may overflow again
 * while its GLOBAL_STATUS bit is still set, or set again after the guest
 * cleared it through the unintercepted StatusClr/OVF_CTRL without an exit
 * in between (Linux's AMD PMI handler does exactly that), and the CPU
 * raises a PMI for each.  The status alone cannot tell such an overflow
 * from the last one, so a host PMI taken on this CPU since the last check
 * (@host_pmis, struct cpu's count) or an accounted overflow (pmi_pending)
 * makes every armed status bit fresh; without either only bits mhv has not
 * signalled yet are.  (Before, only a new status bit raised a PMI, and a
 * perf record of Linux under sw and sw-lazy lost its samples: issue 28,
 * perf test 35.)
 * Mode hw: the CPU itself delivers a guest overflow as a virtual NMI (APM
 * Vol 2 §15.39, VNMI without AVIC ignores the LVTPC), so mhv adds nothing:
 * a second delivery of one overflow; its accounted overflows are left in
 * pmi_pending for the backend to raise the same way.
 */
void pmu_check_overflow(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, u64 host_pmis)
{
	u64 status = 0, fresh, mask = s->pmi_mask;
	bool again;

	s->pmi_mask = s->pmi_armed; /* a counter disarmed since the last check is checked now */
	if (mode == PMU_HW)
		return;
	again = s->pmi_pending || host_pmis != s->host_pmis_seen;
	s->host_pmis_seen = host_pmis;
	s->pmi_pending = false;
	pmu_get_msr(s, hw, mode,
		    s->vendor == PMU_AMD ? MSR_AMD_GLOBAL_STATUS : MSR_INTEL_GLOBAL_STATUS,
		    &status);
	s->pmi_signalled &= status; /* bits the guest cleared may fire again */
	fresh = status & mask & (again ? ~0ull : ~s->pmi_signalled);
	if (!fresh)
		return;
	s->pmi_signalled |= fresh;
	s->pmi_line.raise(s->pmi_line.ctx, s->vendor == PMU_INTEL);
}
