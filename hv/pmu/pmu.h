/* SPDX-License-Identifier: MIT */
/*
 * Vendor-neutral guest PMU: the software world switch (in the order of
 * Linux KVM's mediated PMU), its WRMSR elision, a lazy variant, AMD PMC
 * virtualization (APM Vol 2 §15.39) and emulated-instruction accounting.
 * Hardware is reached only through struct pmu_hw so host tests can run this
 * code against a PMU model.
 */
#ifndef MHV_PMU_H
#define MHV_PMU_H

#include "lib/types.h"
#include "arch/perfmon.h"
#include "lib/pmu_modes.h"

/* One per row of lib/pmu_modes.h (what each does: there), numbered as HV_PMU_*. */
#define PMU_MODE_ENUM_OF(id, word, guest_pmu, sw_switch) PMU_##id,
enum pmu_mode {
	PMU_MODES(PMU_MODE_ENUM_OF) PMU_MODE_COUNT,
};

enum pmu_vendor {
	PMU_AMD,
	PMU_INTEL,
};

#define PMU_MAX_GP 8
#define PMU_MAX_FIXED 4
#define PMU_AMD_MAX_GP 6 /* extended PERF_CTL/CTR pairs (APM Vol 2 §13.2.1), VMCB Table B-2 slots */
/* AMD's PERF_CTR is 48 bits (the PPRs; APM Vol 2 §13.2.1 leaves the width to
 * the implementation); Intel's comes from CPUID.0AH EAX[23:16] */
#define PMU_DEFAULT_WIDTH 48

/* Events for pmu_account_emulated(). */
#define PMU_EV_INSTRUCTIONS BIT(0)
#define PMU_EV_BRANCHES BIT(1)

/* Hardware access; in mhv thin wrappers around RDPMC/RDMSR/WRMSR. */
struct pmu_hw_ops {
	u64 (*rdpmc)(void *ctx, u32 ecx);
	u64 (*rdmsr)(void *ctx, u32 msr);
	void (*wrmsr)(void *ctx, u32 msr, u64 v);
};

struct pmu_hw {
	const struct pmu_hw_ops *ops;
	void *ctx;
};

/*
 * The vCPU's interrupt line for the guest's PMI, set by the core at vCPU
 * setup (the APIC's LVTPC delivery), so that nothing here names the APIC.
 * @mask_on_delivery: Intel's APIC masks the LVTPC when it delivers a
 * PMI (SDM Vol 3 §11.5.1); AMD's does not (vapic.c, apic_raise_pmi).  Returns false when the
 * line raised nothing (masked, or a delivery mode that is not fixed/NMI).
 */
struct pmu_pmi_line {
	bool (*raise)(void *ctx, bool mask_on_delivery);
	void *ctx;
};

/* One PERF_CTL/PERF_CTR pair of the VMCB save area (APM Vol 2 Table B-2). */
struct pmu_vmcb_pmc {
	u64 ctl, ctr;
};

/*
 * One vCPU's guest PMU.  Where the authoritative copy lives depends on the
 * mode: PMU_SW*: the fields below while !loaded, the hardware while loaded;
 * PMU_HW: the VMCB's slots (vmcb_*) for counters, status and global control,
 * read only where a handler needs them.  The event selects and
 * FIXED_CTR_CTRL are always intercepted, so eventsel[] and fixed_ctr_ctrl
 * are always current.
 */
struct pmu_state {
	enum pmu_vendor vendor;
	u8 nr_gp, nr_fixed;
	u8 width;
	u64 eventsel[PMU_MAX_GP];    /* as the guest wrote it */
	u64 eventsel_hw[PMU_MAX_GP]; /* what goes into hardware */
	u64 counter[PMU_MAX_GP];     /* masked to width */
	u64 fixed_ctr_ctrl, fixed_ctr_ctrl_hw;
	u64 fixed[PMU_MAX_FIXED];
	u64 global_ctrl, global_status;
	/* VMCS GUEST_IA32_PERF_GLOBAL_CTRL (0x2808), loaded at VM-entry (SDM Vol 3 §25.8.1). */
	u64 vmcs_global_ctrl;
	/*
	 * PMC virtualization's slots (APM Vol 2 Table B-2): the VMCB's own
	 * once the backend attached it (pmu_attach_vmcb), vmcb_home before.
	 */
	struct pmu_vmcb_pmc *vmcb_pmc;
	u64 *vmcb_global_status;
	u32 *vmcb_global_ctl; /* a dword in the VMCB */
	struct {
		struct pmu_vmcb_pmc pmc[PMU_AMD_MAX_GP];
		u64 global_status;
		u32 global_ctl;
	} vmcb_home;
	/* Counters that count emulated instructions / branches, GLOBAL_CTRL layout. */
	u64 acct_insn, acct_branch;
	bool acct_needed;
	/* Some enabled select counts such events, whatever GLOBAL_CTRL says. */
	bool acct_any;
	/* Enabled counters with their overflow interrupt on, GLOBAL_CTRL layout. */
	u64 pmi_armed;
	/* pmi_armed, and what it held since the last overflow check (pmu_pmi.c). */
	u64 pmi_mask;
	/* Overflow bits already turned into a guest PMI. */
	u64 pmi_signalled;
	/* The CPU's host PMI count at the last overflow check (pmu_pmi.c). */
	u64 host_pmis_seen;
	bool hw_switched; /* PMU_HW: VMRUN/#VMEXIT switch the PMU (APM Vol 2 §15.39) */
	bool loaded;	  /* guest values are in the PMU registers (PMU_SW*) */
	/*
	 * PMU_SW*: the PMU holds hw_eventsel[] and hw_fixed_ctr_ctrl, and a
	 * global control of 0 while !loaded.  The per-exit put leaves the
	 * selects where they are (the global control stops them), so a load
	 * writes only the ones the guest changed since.  Set by the load;
	 * cleared where something else may have had the PMU
	 * (pmu_forget_hw, pmu_release).
	 */
	bool hw_known;
	u64 hw_eventsel[PMU_MAX_GP];
	u64 hw_fixed_ctr_ctrl;
	bool pmi_pending; /* an accounted overflow wants a PMI injected */
	/*
	 * What guest writes may hold, fixed by pmu_init from the geometry:
	 * a write with a bit of a *_rsvd mask is #GP, as on the CPU; event
	 * select bits outside eventsel_kept are dropped, as the CPU drops
	 * them.  Only what passes reaches a PMU register (pmu_account.c).
	 */
	u64 eventsel_rsvd, eventsel_kept;
	u64 eventsel_rsvd_txcp; /* eventsel_rsvd of the counter that may hold IN_TXCP */
	u64 fixed_ctr_ctrl_rsvd;
	u64 global_valid;	      /* the counters, GLOBAL_CTRL/STATUS layout */
	struct pmu_pmi_line pmi_line; /* pmu_set_pmi_line, after pmu_init */
};

const char *pmu_mode_name(enum pmu_mode mode);
bool pmu_mode_supported(enum pmu_vendor vendor, enum pmu_mode mode);

/* RESET state; nr_gp/nr_fixed are clamped to what the vendor can have. */
void pmu_init(struct pmu_state *s, enum pmu_vendor vendor, unsigned nr_gp, unsigned nr_fixed,
	      enum pmu_mode mode);

/* The modes whose world switch is mhv's (pmu_load/pmu_put): the table's
 * sw_switch column, folded by the compiler into the compares it had. */
#define PMU_MODE_IS_SW_OF(id, word, guest_pmu, sw_switch) || (sw_switch && mode == PMU_##id)
static inline bool pmu_mode_is_sw(enum pmu_mode mode)
{
	return false PMU_MODES(PMU_MODE_IS_SW_OF);
}

/* The modes that show the guest a PMU: the table's guest_pmu column. */
#define PMU_MODE_HAS_PMU_OF(id, word, guest_pmu, sw_switch) || (guest_pmu && mode == PMU_##id)
static inline bool pmu_mode_guest_pmu(enum pmu_mode mode)
{
	return false PMU_MODES(PMU_MODE_HAS_PMU_OF);
}

static inline u64 pmu_mask(const struct pmu_state *s)
{
	return s->width >= 64 ? ~0ull : BIT(s->width) - 1;
}

static inline void pmu_set_pmi_line(struct pmu_state *s,
				    bool (*raise)(void *ctx, bool mask_on_delivery), void *ctx)
{
	s->pmi_line.raise = raise;
	s->pmi_line.ctx = ctx;
}

/*
 * Before entry, while pmi_mask is set: each fresh overflow of an armed
 * counter raises one PMI through pmi_line (pmu_pmi.c).  @host_pmis: the
 * host PMIs this CPU has taken, a running count.
 */
void pmu_check_overflow(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, u64 host_pmis);

/* PMU_HW: the guest state moves into the VMCB's slots, its home from now on. */
void pmu_attach_vmcb(struct pmu_state *s, struct pmu_vmcb_pmc *pmc, u64 *global_status,
		     u32 *global_ctl);

/* World switch; see pmu_switch.c for where each hook sits. */
void pmu_load(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode);
void pmu_put(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode);
void pmu_put_if_needed(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, bool host_needs);
/* The VM stopped: put, and leave nothing of the guest in the PMU registers. */
void pmu_release(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode);
/* The vCPU starts on a CPU: its PMU holds whatever ran there before. */
static inline void pmu_forget_hw(struct pmu_state *s)
{
	s->hw_known = false;
}
/* Reads the guest's GLOBAL_CTRL where it lives into global_ctrl (it changes
 * without an exit), and the accounting that follows from it (pmu_account.c). */
void pmu_sync_global_ctrl(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode);

/* Intel TSX in the guest's CPUID: IN_TX and IN_TXCP become legal where the
 * CPU has them (pmu_init refuses them as reserved). */
void pmu_allow_tsx_qualifiers(struct pmu_state *s);

/* Guest register writes seen by the intercept handlers; false: #GP, nothing changed. */
bool pmu_set_eventsel(struct pmu_state *s, unsigned i, u64 guest_value);
bool pmu_set_fixed_ctr_ctrl(struct pmu_state *s, u64 guest_value);
bool pmu_set_global_ctrl(struct pmu_state *s, u64 guest_value);

/*
 * Intercepted guest RDMSR/WRMSR of a PMU MSR, wherever its state lives.
 * Returns false if msr is not a PMU MSR of this guest, or the value is
 * one the CPU refuses (the caller raises #GP).
 */
bool pmu_get_msr(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, u32 msr, u64 *v);
bool pmu_set_msr(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode, u32 msr, u64 v);

/* Emulated-instruction accounting: the instructions mhv completes for the
 * guest never retire in hardware, so counters counting them are bumped here
 * (as KVM's kvm_pmu_instruction_retired); returns true if a PMI is due. */
bool pmu_account_emulated(struct pmu_state *s, struct pmu_hw *hw, enum pmu_mode mode,
			  unsigned events, unsigned cpl);
void pmu_recalc_accounting(struct pmu_state *s);

static inline bool pmu_accounting_needed(const struct pmu_state *s)
{
	return s->acct_needed;
}

/*
 * True when an exit that mhv handles without touching a PMU register needs
 * no hook at all: nothing to switch (the guest PMU stays loaded, PMU_SW_LAZY,
 * or the CPU switches it, PMU_HW), nothing to account (no select counts an
 * accounted event, whatever the unintercepted GLOBAL_CTRL says) and no
 * overflow to look for (no select with INT; PMU_HW: the CPU delivers its
 * own).  Such exits may skip every hook from pmu_put_if_needed to pmu_load;
 * any other handler runs them (the backends' fast paths, pmu_switch.c).
 */
static inline bool pmu_exit_quiet(const struct pmu_state *s, enum pmu_mode mode)
{
	if (s->acct_any || s->pmi_pending)
		return false;
	if (mode == PMU_HW)
		return true;
	return mode == PMU_SW_LAZY && s->loaded && !s->pmi_mask;
}

/*
 * The MSR to write 0 right before every VMRUN, or 0: PMU_HW's host
 * GLOBAL_CTL, which VMRUN refuses unless 0 (VMEXIT_INVALID_PMC) and each
 * #VMEXIT leaves at its reset value, every counter on (APM Vol 2 §15.39).
 * The backend's entry code does it, after every hook.
 */
static inline u32 pmu_entry_zeroed_msr(const struct pmu_state *s, enum pmu_mode mode)
{
	return mode == PMU_HW && s->vendor == PMU_AMD ? MSR_AMD_GLOBAL_CTL : 0;
}

#endif
