// SPDX-License-Identifier: MIT
/*
 * Guest PMU register access for the intercept handlers and the accounting
 * of instructions mhv emulates or skips, which never retire in hardware.
 * Both must reach the guest state where it currently lives: the software
 * copy (put), the PMU registers (loaded, PMU_SW_LAZY) or the VMCB slots
 * (PMU_HW, APM Vol 2 §15.39).
 */
#include "pmu_global_ctrl.h"

enum pmu_reg {
	REG_NONE,
	REG_CTL,
	REG_CTR,
	REG_FIXED,
	REG_FIXED_CTRL,
	REG_STATUS,
	REG_CTRL,
	REG_STATUS_CLR, /* AMD STATUS_CLR, Intel OVF_CTRL */
	REG_STATUS_SET,
};

static bool in_vmcb(const struct pmu_state *s, enum pmu_mode mode)
{
	return mode == PMU_HW && s->vendor == PMU_AMD;
}

static enum pmu_reg decode(const struct pmu_state *s, u32 msr, unsigned *idx)
{
	if (s->vendor == PMU_AMD) {
		/* CTL at even, CTR at odd addresses (APM Vol 2 Appendix A.6). */
		if (msr >= MSR_AMD_PERF_CTL(0) && msr < MSR_AMD_PERF_CTL(s->nr_gp)) {
			*idx = (msr - MSR_AMD_PERF_CTL(0)) / 2;
			return (msr - MSR_AMD_PERF_CTL(0)) & 1 ? REG_CTR : REG_CTL;
		}
		switch (msr) {
		case MSR_AMD_GLOBAL_STATUS:
			return REG_STATUS;
		case MSR_AMD_GLOBAL_CTL:
			return REG_CTRL;
		case MSR_AMD_GLOBAL_STATUS_CLR:
			return REG_STATUS_CLR;
		case MSR_AMD_GLOBAL_STATUS_SET:
			return REG_STATUS_SET;
		}
		return REG_NONE;
	}
	if (msr >= MSR_INTEL_PERFEVTSEL(0) && msr < MSR_INTEL_PERFEVTSEL(s->nr_gp)) {
		*idx = msr - MSR_INTEL_PERFEVTSEL(0);
		return REG_CTL;
	}
	if (msr >= MSR_INTEL_A_PMC(0) && msr < MSR_INTEL_A_PMC(s->nr_gp)) {
		*idx = msr - MSR_INTEL_A_PMC(0);
		return REG_CTR;
	}
	if (msr >= MSR_INTEL_FIXED_CTR(0) && msr < MSR_INTEL_FIXED_CTR(s->nr_fixed)) {
		*idx = msr - MSR_INTEL_FIXED_CTR(0);
		return REG_FIXED;
	}
	switch (msr) {
	case MSR_INTEL_FIXED_CTR_CTRL:
		return REG_FIXED_CTRL;
	case MSR_INTEL_GLOBAL_STATUS:
		return REG_STATUS;
	case MSR_INTEL_GLOBAL_CTRL:
		return REG_CTRL;
	case MSR_INTEL_GLOBAL_OVF_CTRL:
		return REG_STATUS_CLR;
	case MSR_INTEL_GLOBAL_STATUS_SET:
		return REG_STATUS_SET;
	}
	return REG_NONE;
}

static bool counts_event(const struct pmu_state *s, u64 sel, u64 event)
{
	/* The event code with unit mask 0, as KVM matches them (pmu.h). */
	if (!(sel & PMU_EVTSEL_EN) || (sel & (PMU_EVTSEL_EVENT | PMU_EVTSEL_UMASK)) != event)
		return false;
	/* An instruction that exits is never inside a transaction: it aborts it. */
	if (s->vendor == PMU_INTEL && (sel & PMU_INTEL_EVTSEL_IN_TX))
		return false;
	return s->vendor != PMU_AMD || !(sel & PMU_AMD_EVTSEL_EVENT_HI);
}

/* The per-event masks, ANDed with GLOBAL_CTRL so the hot path tests one bool. */
void pmu_recalc_accounting(struct pmu_state *s)
{
	u64 branches = s->vendor == PMU_AMD ? PMU_AMD_EVENT_BRANCHES : PMU_INTEL_EVENT_BRANCHES;
	unsigned i;

	s->acct_insn = s->acct_branch = 0;
	for (i = 0; i < s->nr_gp; i++) {
		if (counts_event(s, s->eventsel[i], PMU_EVENT_INSTRUCTIONS))
			s->acct_insn |= BIT(i);
		else if (counts_event(s, s->eventsel[i], branches))
			s->acct_branch |= BIT(i);
	}
	/* Intel fixed counter 0 is instructions retired (SDM Vol 3 §21.2.2). */
	if (s->nr_fixed && (s->fixed_ctr_ctrl & (PMU_FIXED_OS(0) | PMU_FIXED_USR(0))))
		s->acct_insn |= PMU_GLOBAL_FIXED(0);
	/* GLOBAL_CTRL may change without an exit: what the fast paths go by (pmu_exit_quiet). */
	s->acct_any = (s->acct_insn | s->acct_branch) != 0;
	s->acct_insn &= s->global_ctrl;
	s->acct_branch &= s->global_ctrl;
	s->acct_needed = (s->acct_insn | s->acct_branch) != 0;

	/*
	 * Counters whose overflow interrupts: INT (GP) or PMI (fixed) set
	 * (pmu.h).  Not filtered by GLOBAL_CTRL: the PMI belongs to the
	 * moment of the overflow, and a guest may disable the counter before
	 * mhv looks (kvm-unit-tests' pmu.flat does).
	 */
	s->pmi_armed = 0;
	for (i = 0; i < s->nr_gp; i++)
		if ((s->eventsel[i] & (PMU_EVTSEL_EN | PMU_EVTSEL_INT)) ==
		    (PMU_EVTSEL_EN | PMU_EVTSEL_INT))
			s->pmi_armed |= BIT(i);
	for (i = 0; i < s->nr_fixed; i++)
		if (s->fixed_ctr_ctrl & PMU_FIXED_PMI(i))
			s->pmi_armed |= PMU_GLOBAL_FIXED(i);
	/*
	 * Nor does disarming forget a counter before the next overflow check:
	 * the PMI may come a few instructions after the overflow (skid), and
	 * pmu.flat's WRMSR that clears EN exits first.
	 */
	s->pmi_mask |= s->pmi_armed;
}

void pmu_allow_tsx_qualifiers(struct pmu_state *s)
{
	if (s->vendor != PMU_INTEL)
		return;
	s->eventsel_rsvd &= ~PMU_INTEL_EVTSEL_IN_TX;
	s->eventsel_rsvd_txcp &= ~(PMU_INTEL_EVTSEL_IN_TX | PMU_INTEL_EVTSEL_IN_TXCP);
}

/* The filters (pmu_init) keep every value that reaches a PMU register one the CPU takes. */
bool pmu_set_eventsel(struct pmu_state *s, unsigned i, u64 guest_value)
{
	u64 v = guest_value & s->eventsel_kept, hw = v;
	u64 rsvd = i == PMU_INTEL_IN_TXCP_COUNTER ? s->eventsel_rsvd_txcp : s->eventsel_rsvd;

	if (i >= s->nr_gp || (guest_value & rsvd))
		return false;
	/*
	 * AMD has no atomic GLOBAL_CTL switch at VMRUN/#VMEXIT, so guest
	 * counters are made GuestOnly: they freeze when the CPU leaves guest
	 * mode (APM Vol 2 §13.2.1, Host/Guest Only bits).  Intel relies on the
	 * VMCS GLOBAL_CTRL loads.  A zero select stays zero: EN = 0 counts in
	 * no mode, and put skips the selector WRMSR for it (sw_put).
	 * Mode hw needs neither: #VMEXIT resets the guest's selects (swap
	 * type C, APM Vol 2 §15.39), as KVM's PMC virtualization loads the
	 * guest's value (eventsel_hw = data).  The guest's own H/G bits
	 * never get here (init_filters drops them); clearing them again keeps
	 * a HostOnly, which the CPU would honour in guest mode, out for sure.
	 */
	if (s->vendor == PMU_AMD && s->hw_switched)
		hw = v & ~(PMU_AMD_HOSTONLY | PMU_AMD_GUESTONLY);
	else if (s->vendor == PMU_AMD && v)
		hw = (v & ~PMU_AMD_HOSTONLY) | PMU_AMD_GUESTONLY;
	s->eventsel[i] = v;
	s->eventsel_hw[i] = hw;
	pmu_recalc_accounting(s);
	return true;
}

bool pmu_set_fixed_ctr_ctrl(struct pmu_state *s, u64 guest_value)
{
	if (guest_value & s->fixed_ctr_ctrl_rsvd)
		return false;
	s->fixed_ctr_ctrl = guest_value & s->fixed_ctr_ctrl_kept;
	s->fixed_ctr_ctrl_hw = s->fixed_ctr_ctrl;
	pmu_recalc_accounting(s);
	return true;
}

/* Enable bits of counters the guest lacks are #GP (SDM Vol 3 §21.2.2; as KVM on AMD). */
bool pmu_set_global_ctrl(struct pmu_state *s, u64 guest_value)
{
	if (guest_value & ~s->global_valid)
		return false;
	s->global_ctrl = guest_value;
	pmu_recalc_accounting(s);
	return true;
}

static u32 ctr_ecx(unsigned fixed, unsigned i)
{
	return fixed ? PMU_RDPMC_FIXED | i : i;
}

static u32 counter_msr(const struct pmu_state *s, unsigned fixed, unsigned i)
{
	if (fixed)
		return MSR_INTEL_FIXED_CTR(i);
	return s->vendor == PMU_AMD ? MSR_AMD_PERF_CTR(i) : MSR_INTEL_A_PMC(i);
}

static u32 status_write_msr(const struct pmu_state *s, enum pmu_reg r)
{
	if (s->vendor == PMU_AMD)
		return r == REG_STATUS_SET ? MSR_AMD_GLOBAL_STATUS_SET : MSR_AMD_GLOBAL_STATUS_CLR;
	return r == REG_STATUS_SET ? MSR_INTEL_GLOBAL_STATUS_SET : MSR_INTEL_GLOBAL_OVF_CTRL;
}

static u64 *soft_ctr(struct pmu_state *s, enum pmu_mode mode, unsigned fixed, unsigned i)
{
	if (fixed)
		return &s->fixed[i];
	return in_vmcb(s, mode) ? &s->vmcb_pmc[i].ctr : &s->counter[i];
}

static u64 read_ctr(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, unsigned fixed,
		    unsigned i)
{
	if (s->loaded)
		return hw->ops->rdpmc(hw->ctx, ctr_ecx(fixed, i)) & pmu_mask(s);
	return *soft_ctr(s, mode, fixed, i);
}

static void write_ctr(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, unsigned fixed,
		      unsigned i, u64 v)
{
	v &= pmu_mask(s);
	if (s->loaded)
		hw->ops->wrmsr(hw->ctx, counter_msr(s, fixed, i), v);
	else
		*soft_ctr(s, mode, fixed, i) = v;
}

/* STATUS_CLR/OVF_CTRL (clear) or STATUS_SET (set) of counter bits in the guest status. */
static void change_status(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode,
			  enum pmu_reg r, u64 bits)
{
	u64 *status = in_vmcb(s, mode) ? s->vmcb_global_status : &s->global_status;

	if (s->loaded)
		hw->ops->wrmsr(hw->ctx, status_write_msr(s, r), bits);
	else if (r == REG_STATUS_SET)
		*status |= bits;
	else
		*status &= ~bits;
}

bool pmu_get_msr(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, u32 msr, u64 *v)
{
	unsigned i = 0;
	enum pmu_reg r = decode(s, msr, &i);

	if (mode == PMU_OFF)
		return false;
	switch (r) {
	case REG_CTL:
		*v = s->eventsel[i];
		return true;
	case REG_CTR:
	case REG_FIXED:
		*v = read_ctr(s, hw, mode, r == REG_FIXED, i);
		return true;
	case REG_FIXED_CTRL:
		*v = s->fixed_ctr_ctrl;
		return true;
	case REG_CTRL:
		pmu_sync_global_ctrl(s, hw, mode);
		*v = s->global_ctrl;
		return true;
	case REG_STATUS:
		if (s->loaded)
			*v = hw->ops->rdmsr(hw->ctx, msr);
		else
			*v = in_vmcb(s, mode) ? *s->vmcb_global_status : s->global_status;
		return true;
	case REG_STATUS_CLR:
	case REG_STATUS_SET:
		*v = 0;
		return true;
	case REG_NONE:
		break;
	}
	return false;
}

bool pmu_set_msr(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, u32 msr, u64 v)
{
	unsigned i = 0;
	enum pmu_reg r = decode(s, msr, &i);

	if (mode == PMU_OFF)
		return false;
	switch (r) {
	case REG_CTL:
		if (!pmu_set_eventsel(s, i, v))
			return false;
		if (in_vmcb(s, mode))
			s->vmcb_pmc[i].ctl = s->eventsel_hw[i];
		else if (s->loaded) {
			hw->ops->wrmsr(hw->ctx, msr, s->eventsel_hw[i]);
			s->hw_eventsel[i] = s->eventsel_hw[i]; /* what sw_load compares with */
		}
		return true;
	case REG_CTR:
	case REG_FIXED:
		write_ctr(s, hw, mode, r == REG_FIXED, i, v);
		return true;
	case REG_FIXED_CTRL:
		if (!pmu_set_fixed_ctr_ctrl(s, v))
			return false;
		if (s->loaded) {
			hw->ops->wrmsr(hw->ctx, msr, s->fixed_ctr_ctrl_hw);
			s->hw_fixed_ctr_ctrl = s->fixed_ctr_ctrl_hw;
		}
		return true;
	case REG_CTRL:
		if (!pmu_set_global_ctrl(s, v))
			return false;
		if (in_vmcb(s, mode)) {
			/* A dword slot (APM Vol 2 Table B-2). */
			*s->vmcb_global_ctl = (u32)s->global_ctrl;
		} else if (s->vendor == PMU_INTEL) {
			/* Host GLOBAL_CTRL stays 0; VM-entry loads VMCS 0x2808 (SDM Vol 3 §25.8.1). */
			s->vmcs_global_ctrl = s->global_ctrl;
		} else if (s->loaded) {
			hw->ops->wrmsr(hw->ctx, msr, s->global_ctrl);
		}
		return true;
	case REG_STATUS:
		return false; /* read-only (APM Vol 2 §13.2.1; SDM Vol 4 Table 2-2) */
	case REG_STATUS_CLR:
	case REG_STATUS_SET:
		/*
		 * Passed through in every mode (pmu_vcpu.c): here for the MSR
		 * table and an intercepted write.  AMD's StatusClr/StatusSet
		 * ignore bits of no status flag: hardware takes all-ones (a
		 * WRMSR of -1 on Turin, kvm@vger July 2025) and Linux writes
		 * LbrFreeze (bit 58) to StatusClr on every PerfMonV2 CPU
		 * (commit 23d2626b841c), so they are masked, as KVM masks
		 * them.  Intel's reserved OVF_CTRL/STATUS_SET bits are #GP
		 * (SDM Vol 4 Table 2-2; KVM's intel_pmu_set_msr).
		 */
		if (s->vendor == PMU_AMD)
			v &= s->global_valid;
		else if (v & ~s->global_valid)
			return false;
		change_status(s, hw, mode, r, v);
		return true;
	case REG_NONE:
		break;
	}
	return false;
}

/*
 * One emulated event on counter i (GP) or fixed counter i; the increment
 * wraps at the width and an overflow sets the GLOBAL_STATUS bit, as a
 * hardware overflow would (SDM Vol 3 §21.2.2; APM Vol 2 §13.2.1).
 */
static bool bump(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, unsigned fixed,
		 unsigned i)
{
	u64 v = (read_ctr(s, hw, mode, fixed, i) + 1) & pmu_mask(s);

	write_ctr(s, hw, mode, fixed, i, v);
	if (v)
		return false;
	change_status(s, hw, mode, REG_STATUS_SET, fixed ? PMU_GLOBAL_FIXED(i) : BIT(i));
	return true;
}

bool pmu_account_emulated(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode,
			  unsigned events, unsigned cpl)
{
	u64 m = 0;
	bool pmi = false;
	unsigned i;

	if (mode == PMU_OFF || !s->acct_any)
		return false;
	pmu_sync_global_ctrl(s, hw, mode);
	if (!s->acct_needed)
		return false;
	if (events & PMU_EV_INSTRUCTIONS)
		m |= s->acct_insn;
	if (events & PMU_EV_BRANCHES)
		m |= s->acct_branch;

	/* OS counts at CPL 0, USR at CPL > 0 (APM Vol 2 §13.2.1; SDM Vol 3 §21.2.1). */
	for (i = 0; i < s->nr_gp; i++) {
		u64 sel = s->eventsel[i];

		if (!(m & BIT(i)) || !(sel & (cpl ? PMU_EVTSEL_USR : PMU_EVTSEL_OS)))
			continue;
		if (bump(s, hw, mode, 0, i) && (sel & PMU_EVTSEL_INT))
			pmi = true;
	}
	for (i = 0; i < s->nr_fixed; i++) {
		u64 ctrl = s->fixed_ctr_ctrl;

		if (!(m & PMU_GLOBAL_FIXED(i)) ||
		    !(ctrl & (cpl ? PMU_FIXED_USR(i) : PMU_FIXED_OS(i))))
			continue;
		if (bump(s, hw, mode, 1, i) && (ctrl & PMU_FIXED_PMI(i)))
			pmi = true;
	}
	if (pmi)
		s->pmi_pending = true;
	return pmi;
}

/* Out of line, as when it was pmu_switch.c's: the intercepted reads and
 * the accounting call it, pmu_switch.c's put inlines it. */
__attribute__((noinline)) void pmu_sync_global_ctrl(struct pmu_state *s, struct pmu_hw *hw,
						    enum pmu_mode mode)
{
	pmu_global_ctrl_sync(s, hw, mode);
}
