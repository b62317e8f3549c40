// SPDX-License-Identifier: MIT
/*
 * The guest PMU world switch, in the order of Linux KVM's mediated PMU
 * (arch/x86/kvm/pmu.c, kvm_mediated_pmu_load/put), with its RDPMC-compare
 * WRMSR elision; and AMD PMC virtualization (APM Vol 2 §15.39).
 *
 * Where the hooks sit, per mode:
 *   #VMEXIT -> pmu_put (PMU_SW*) or pmu_put_if_needed (PMU_SW_LAZY)
 *   handler (may call pmu_account_emulated, pmu_get_msr, pmu_set_msr)
 *   pmu_load -> the entry code (pmu_entry_zeroed_msr) -> VMRUN/VMLAUNCH/VMRESUME
 * with IRQs off from pmu_load to VMRUN (KVM loads with IRQs disabled too).
 * The guest's unintercepted GLOBAL_CTRL is read where it matters (put,
 * accounting, an intercepted read: pmu_global_ctrl.h), not at every
 * exit; exits that pmu_exit_quiet lets through run no hook at all.
 * mhv runs no host perf events, so KVM's perf-context and LVTPC steps are
 * not here; the LVTPC switch belongs to the APIC code.
 */
#include "pmu_global_ctrl.h"

static const char *const mode_names[PMU_MODE_COUNT] = PMU_MODE_WORDS;

const char *pmu_mode_name(enum pmu_mode mode)
{
	return (unsigned)mode < PMU_MODE_COUNT ? mode_names[mode] : "?";
}

bool pmu_mode_supported(enum pmu_vendor vendor, enum pmu_mode mode)
{
	/* Only AMD has a hardware-switched PMU (PMC virtualization, APM Vol 2 §15.39). */
	if (mode == PMU_HW)
		return vendor == PMU_AMD;
	return (unsigned)mode < PMU_MODE_COUNT;
}

static u64 ops_rdpmc(struct pmu_hw *hw, u32 ecx)
{
	return hw->ops->rdpmc(hw->ctx, ecx);
}

static u64 ops_rdmsr(struct pmu_hw *hw, u32 msr)
{
	return hw->ops->rdmsr(hw->ctx, msr);
}

static void ops_wrmsr(struct pmu_hw *hw, u32 msr, u64 v)
{
	hw->ops->wrmsr(hw->ctx, msr, v);
}

static u32 ctl_msr(const struct pmu_state *s, unsigned i)
{
	return s->vendor == PMU_AMD ? MSR_AMD_PERF_CTL(i) : MSR_INTEL_PERFEVTSEL(i);
}

static u32 gp_ctr_msr(const struct pmu_state *s, unsigned i)
{
	return s->vendor == PMU_AMD ? MSR_AMD_PERF_CTR(i) : MSR_INTEL_A_PMC(i);
}

static u32 global_ctrl_msr(const struct pmu_state *s)
{
	return s->vendor == PMU_AMD ? MSR_AMD_GLOBAL_CTL : MSR_INTEL_GLOBAL_CTRL;
}

static u32 global_status_msr(const struct pmu_state *s)
{
	return s->vendor == PMU_AMD ? MSR_AMD_GLOBAL_STATUS : MSR_INTEL_GLOBAL_STATUS;
}

/*
 * The guest's write filters, once per vCPU.  Intel's reserved bits are
 * #GP; AMD CPUs raise no #GP for an event select's reserved bits (the APM
 * leaves it open; KVM drops them for that reason), so they are dropped.
 * AnyThread is refused, and the guest's CPUID says it is deprecated
 * (pmu_adjust_guest_cpuid): it would count the sibling hyperthread, which
 * another VM or mhv runs on, and dropping it silently would leave the
 * guest believing it counts both.  PC is dropped: it is not writeable
 * since Sandy Bridge, and mhv switches version 4 PMUs only.
 * AMD's HostOnly and GuestOnly are dropped as well, as KVM drops them (its
 * reserved mask is bits 63:36): the guest has no SVM, and with EFER.SVME
 * = 0 the PPRs count a select with one of them only "if SVME == 1" (Linux
 * finds such a counter counts nothing, amd_pmu_disable_virt).
 */
static void init_filters(struct pmu_state *s)
{
	unsigned i;

	s->global_valid = s->nr_gp ? BIT(s->nr_gp) - 1 : 0;
	if (s->nr_fixed)
		s->global_valid |= (BIT(s->nr_fixed) - 1) << 32;
	s->fixed_ctr_ctrl_rsvd = ~0ull;
	if (s->vendor == PMU_AMD) {
		s->eventsel_rsvd = s->eventsel_rsvd_txcp = 0;
		s->eventsel_kept = ~(PMU_AMD_EVTSEL_RSVD | PMU_AMD_HOSTONLY | PMU_AMD_GUESTONLY);
		return;
	}
	s->eventsel_rsvd = PMU_INTEL_EVTSEL_RSVD | PMU_INTEL_EVTSEL_ANYTHREAD;
	s->eventsel_rsvd_txcp = s->eventsel_rsvd;
	s->eventsel_kept = ~PMU_INTEL_EVTSEL_PC;
	for (i = 0; i < s->nr_fixed; i++) /* each counter's nibble, AnyThread excepted */
		s->fixed_ctr_ctrl_rsvd &= ~(0xfull << 4 * i) | PMU_FIXED_ANYTHREAD(i);
}

void pmu_init(struct pmu_state *s, enum pmu_vendor vendor, unsigned nr_gp, unsigned nr_fixed,
	      enum pmu_mode mode)
{
	unsigned max_gp = vendor == PMU_AMD ? PMU_AMD_MAX_GP : PMU_MAX_GP;

	*s = (struct pmu_state){ 0 };
	s->vendor = vendor;
	s->nr_gp = nr_gp < max_gp ? nr_gp : max_gp;
	/* AMD has no fixed counters, only PERF_CTL/PERF_CTR pairs (APM Vol 2 §13.2.1). */
	s->nr_fixed = vendor == PMU_AMD ? 0 : (nr_fixed < PMU_MAX_FIXED ? nr_fixed : PMU_MAX_FIXED);
	s->width = PMU_DEFAULT_WIDTH;
	s->hw_switched = mode == PMU_HW;
	init_filters(s);
	/*
	 * RESET sets the GP enable bits of GLOBAL_CTRL so v1-style software
	 * that only writes event selects still counts (SDM Vol 3 Table 10-1;
	 * KVM gives AMD's PerfCntrGlobalCtl the same RESET value).
	 */
	s->global_ctrl = s->nr_gp ? BIT(s->nr_gp) - 1 : 0;
	s->vmcs_global_ctrl = s->global_ctrl;
	if (mode == PMU_OFF)
		s->global_ctrl = s->vmcs_global_ctrl = 0;
	s->vmcb_pmc = s->vmcb_home.pmc;
	s->vmcb_global_status = &s->vmcb_home.global_status;
	s->vmcb_global_ctl = &s->vmcb_home.global_ctl;
	/* GLOBAL_CTL is a dword in the VMCB (APM Vol 2 Table B-2). */
	*s->vmcb_global_ctl = (u32)s->global_ctrl;
	pmu_recalc_accounting(s);
}

void pmu_attach_vmcb(struct pmu_state *s, struct pmu_vmcb_pmc *pmc, u64 *global_status,
		     u32 *global_ctl)
{
	unsigned i;

	for (i = 0; i < PMU_AMD_MAX_GP; i++)
		pmc[i] = s->vmcb_pmc[i];
	*global_status = *s->vmcb_global_status;
	*global_ctl = *s->vmcb_global_ctl;
	s->vmcb_pmc = pmc;
	s->vmcb_global_status = global_status;
	s->vmcb_global_ctl = global_ctl;
}

/*
 * LOAD: with the PMU globally off, counters and selects, then status and
 * the global enable.  Only what differs from the PMU is written: a
 * counter whose RDPMC reads the guest's value (unless NOELIDE), a select
 * or FIXED_CTR_CTRL the guest did not change since the last load (mhv
 * intercepts their writes, so hw_eventsel[] knows what the PMU holds), a
 * status bit already right.  With the guest changing nothing, AMD writes
 * its GLOBAL_CTL alone and Intel nothing (the VM entry loads GLOBAL_CTRL).
 */
static void sw_load(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode)
{
	bool elide = mode != PMU_SW_NOELIDE;
	bool known = s->hw_known;
	u64 hw_status, clear, set;
	unsigned i;

	/*
	 * Selectors and counters are written with the PMU globally off.  The
	 * put left it off (AMD: its WRMSR; Intel: the VM exit loaded 0, SDM
	 * Vol 3 §25.7.1), unless something else had the PMU since.
	 */
	if (!known)
		ops_wrmsr(hw, global_ctrl_msr(s), 0);

	/* RDPMC returns exactly width bits and counter[] is masked: an exact compare. */
	for (i = 0; i < s->nr_gp; i++) {
		if (!elide || s->counter[i] != ops_rdpmc(hw, i))
			ops_wrmsr(hw, gp_ctr_msr(s, i), s->counter[i]);
		if (!known || s->hw_eventsel[i] != s->eventsel_hw[i]) {
			ops_wrmsr(hw, ctl_msr(s, i), s->eventsel_hw[i]);
			s->hw_eventsel[i] = s->eventsel_hw[i];
		}
	}
	for (i = 0; i < s->nr_fixed; i++) {
		if (!elide || s->fixed[i] != ops_rdpmc(hw, PMU_RDPMC_FIXED | i))
			ops_wrmsr(hw, MSR_INTEL_FIXED_CTR(i), s->fixed[i]);
	}

	/* The vendor's status: clear what the guest's lacks, set what it adds. */
	hw_status = ops_rdmsr(hw, global_status_msr(s));
	clear = hw_status & ~s->global_status;
	set = s->global_status & ~hw_status;
	if (s->vendor == PMU_INTEL) {
		if (clear)
			ops_wrmsr(hw, MSR_INTEL_GLOBAL_OVF_CTRL, clear);
		if (set)
			ops_wrmsr(hw, MSR_INTEL_GLOBAL_STATUS_SET, set);
		if (!known || s->hw_fixed_ctr_ctrl != s->fixed_ctr_ctrl_hw) {
			ops_wrmsr(hw, MSR_INTEL_FIXED_CTR_CTRL, s->fixed_ctr_ctrl_hw);
			s->hw_fixed_ctr_ctrl = s->fixed_ctr_ctrl_hw;
		}
		/* GLOBAL_CTRL itself is loaded by VM-entry from VMCS 0x2808 (SDM Vol 3 §25.8.1). */
		s->vmcs_global_ctrl = s->global_ctrl;
	} else {
		if (clear)
			ops_wrmsr(hw, MSR_AMD_GLOBAL_STATUS_CLR, clear);
		if (set)
			ops_wrmsr(hw, MSR_AMD_GLOBAL_STATUS_SET, set);
		/* Safe to enable now: eventsel_hw has GuestOnly set (APM Vol 2 §13.2.1). */
		if (s->global_ctrl)
			ops_wrmsr(hw, MSR_AMD_GLOBAL_CTL, s->global_ctrl);
	}
	s->hw_known = true;
}

/*
 * PUT, LOAD's reverse: stop the counters, then read status and counters.
 * Stopping is the global control alone (AMD: GLOBAL_CTL = 0; Intel: the
 * VM exit loaded GLOBAL_CTRL = 0, SDM Vol 3 §25.7.1): a counter counts only
 * with its global enable bit set as well as its own (APM Vol 2 §13.2.2,
 * PerfMonV2, which the sw modes need on AMD; SDM Vol 3 §21.2.2).  So the
 * selects, FIXED_CTR_CTRL, the counters and the status stay in the PMU,
 * stopped: mhv runs no host events that would want them (KVM's put
 * clears them for host perf), and the next load finds them right and
 * writes nothing.  pmu_release clears them when the VM stops.
 */
static void sw_put(struct pmu_state *s, struct pmu_hw *hw)
{
	u64 mask = pmu_mask(s);
	unsigned i;

	/* AMD: the guest's own, read back as KVM does (#VMEXIT does not switch
	 * it); Intel: VMCS 0x2808's. */
	pmu_global_ctrl_sync(s, hw, PMU_SW);
	if (s->vendor == PMU_AMD && s->global_ctrl)
		ops_wrmsr(hw, MSR_AMD_GLOBAL_CTL, 0);
	/* Stopped counters set no status bit: what is set stays for the load. */
	s->global_status = ops_rdmsr(hw, global_status_msr(s));

	for (i = 0; i < s->nr_gp; i++)
		s->counter[i] = ops_rdpmc(hw, i) & mask;
	for (i = 0; i < s->nr_fixed; i++)
		s->fixed[i] = ops_rdpmc(hw, PMU_RDPMC_FIXED | i) & mask;
}

void pmu_load(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode)
{
	/* PMU_HW: VMRUN loads the guest state; PMU_SW_LAZY: usually still loaded. */
	if (!pmu_mode_is_sw(mode) || s->loaded)
		return;
	sw_load(s, hw, mode);
	s->loaded = true;
}

void pmu_put(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode)
{
	if (!pmu_mode_is_sw(mode) || !s->loaded)
		return;
	sw_put(s, hw);
	s->loaded = false;
}

/*
 * The VM stopped: the host (and the next VM on this CPU) gets a PMU
 * with nothing of this guest's, as KVM's put leaves it: selects,
 * FIXED_CTR_CTRL, counters and status 0, the PMU off.  Once per run, not per exit.
 */
void pmu_release(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode)
{
	unsigned i;

	if (!pmu_mode_is_sw(mode) || !s->loaded)
		return;
	sw_put(s, hw);
	s->loaded = false;
	if (s->global_status)
		ops_wrmsr(hw,
			  s->vendor == PMU_AMD ? MSR_AMD_GLOBAL_STATUS_CLR
					       : MSR_INTEL_GLOBAL_OVF_CTRL,
			  s->global_status);
	for (i = 0; i < s->nr_gp; i++) {
		if (s->hw_eventsel[i])
			ops_wrmsr(hw, ctl_msr(s, i), 0);
		if (s->counter[i])
			ops_wrmsr(hw, gp_ctr_msr(s, i), 0);
	}
	if (s->hw_fixed_ctr_ctrl)
		ops_wrmsr(hw, MSR_INTEL_FIXED_CTR_CTRL, 0);
	for (i = 0; i < s->nr_fixed; i++) {
		if (s->fixed[i])
			ops_wrmsr(hw, MSR_INTEL_FIXED_CTR(i), 0);
	}
	s->hw_known = false;
}

/*
 * PMU_SW_LAZY keeps the guest PMU loaded across exits handled in mhv.  That
 * is safe because no guest counter counts in host mode: on AMD every
 * eventsel_hw has GuestOnly=1/HostOnly=0 (APM Vol 2 §13.2.1), on Intel the
 * VM-exit loads GLOBAL_CTRL = 0 (SDM Vol 3 §25.7.1).  Only a host user of the PMU (or a
 * vCPU migrating away) needs the registers back.
 */
void pmu_put_if_needed(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, bool host_needs)
{
	if (mode == PMU_SW_LAZY && !host_needs)
		return;
	pmu_put(s, hw, mode);
}
