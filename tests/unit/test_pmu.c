// SPDX-License-Identifier: MIT
/*
 * The PMU world switch against a PMU model (APM Vol 2 §13.2, §15.39; SDM
 * Vol 3 ch. 21): a
 * register file per vendor with GuestOnly/HostOnly, global control and
 * status, RDPMC, the VMCS GLOBAL_CTRL loads and the PerfCtrVirt VMRUN /
 * #VMEXIT swap, plus an oracle: the guest's PMU as it would be on bare
 * metal, which only ever sees guest-mode events.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pmu/pmu.h"
#include "pmu/pmu_vcpu.h"

#define MASK48 (BIT(48) - 1)

struct model {
	enum pmu_vendor vendor;
	unsigned nr_gp, nr_fixed;
	bool tsx; /* Intel TSX: IN_TX (bit 32) everywhere, IN_TXCP (33) on PERFEVTSEL2 */
	u64 ctl[PMU_MAX_GP], ctr[PMU_MAX_GP], fixed[PMU_MAX_FIXED], fixed_ctrl;
	u64 global_ctrl, global_status, host_status;
	bool guest_mode;
	unsigned n_rdpmc, n_rdmsr, n_wrmsr;
	unsigned ctr_writes[PMU_MAX_GP], fixed_writes[PMU_MAX_FIXED], global_ctl_zero_writes;
	u32 written[64]; /* the MSRs of the first WRMSRs since reset_ops, in order */
};

static u64 valid_bits(const struct model *m)
{
	return (BIT(m->nr_gp) - 1) | ((BIT(m->nr_fixed) - 1) << 32);
}

/*
 * The CPU's answer to a WRMSR mhv executes, restated here rather than
 * taken from perfmon.h.  Intel raises #GP for a reserved bit (SDM Vol 3
 * §21.2, Vol 4 Table 2-2): PERFEVTSELx 63:32 and PC (not writeable since
 * Sandy Bridge), FIXED_CTR_CTRL outside the nibbles of its counters, the
 * global registers outside the counters, counters beyond their width.
 * With TSX, IN_TX (bit 32) is legal, and IN_TXCP (bit 33) on PERFEVTSEL2
 * only (SDM Vol 3 ch. 21, TSX performance monitoring).
 * AMD raises none for PerfEvtSeln, but its reserved bits 19, 21, 39:36
 * and 63:42 (APM Vol 2 §13.2.1) must not reach it either.  AnyThread
 * (Intel bit 21, FIXED_CTR_CTRL bit 2 + 4i) is legal but counts the
 * sibling hyperthread: mhv must never write it.  Any of these fails the
 * test as the host #GP would end mhv's run.
 */
static void m_check_ctl(const struct model *m, u32 msr, u64 v)
{
	u64 amd_rsvd = BIT(19) | BIT(21) | (0xfull << 36) | (~0ull << 42);

	if (m->vendor == PMU_AMD) {
		if (v & amd_rsvd)
			fail_msg("reserved PerfEvtSel bits reach WRMSR 0x%x <- 0x%llx", msr,
				 (unsigned long long)v);
		return;
	}
	if (v & BIT(21))
		fail_msg("AnyThread reaches WRMSR 0x%x <- 0x%llx", msr, (unsigned long long)v);
	if (m->tsx)
		v &= ~(BIT(32) | (msr == 0x188 ? BIT(33) : 0));
	if (v & ((~0ull << 32) | BIT(19)))
		fail_msg("host #GP: WRMSR 0x%x <- 0x%llx", msr, (unsigned long long)v);
}

static void m_check_fixed_ctrl(const struct model *m, u64 v)
{
	u64 legal = 0;
	unsigned i;

	for (i = 0; i < m->nr_fixed; i++)
		legal |= 0xfull << (4 * i);
	if (v & 0x4444444444444444ull & legal)
		fail_msg("AnyThread reaches FIXED_CTR_CTRL <- 0x%llx", (unsigned long long)v);
	if (v & ~legal)
		fail_msg("host #GP: FIXED_CTR_CTRL <- 0x%llx", (unsigned long long)v);
}

static void m_check_bits(u32 msr, u64 v, u64 legal)
{
	if (v & ~legal)
		fail_msg("host #GP: WRMSR 0x%x <- 0x%llx", msr, (unsigned long long)v);
}

static u64 m_rdpmc(void *ctx, u32 ecx)
{
	struct model *m = ctx;

	m->n_rdpmc++;
	if (m->vendor == PMU_INTEL && (ecx & PMU_RDPMC_FIXED)) {
		assert_true((ecx & ~PMU_RDPMC_FIXED) < m->nr_fixed);
		return m->fixed[ecx & ~PMU_RDPMC_FIXED];
	}
	assert_true(ecx < m->nr_gp); /* else #GP (SDM Vol 2B, APM Vol 3: RDPMC) */
	return m->ctr[ecx];
}

/* Returns the register an MSR names, or NULL for the global/special ones. */
static u64 *m_reg(struct model *m, u32 msr, unsigned **writes)
{
	unsigned i;

	*writes = NULL;
	for (i = 0; i < m->nr_gp; i++) {
		if (msr == (m->vendor == PMU_AMD ? MSR_AMD_PERF_CTL(i) : MSR_INTEL_PERFEVTSEL(i)))
			return &m->ctl[i];
		if (msr == (m->vendor == PMU_AMD ? MSR_AMD_PERF_CTR(i) : MSR_INTEL_A_PMC(i))) {
			*writes = &m->ctr_writes[i];
			return &m->ctr[i];
		}
	}
	for (i = 0; i < m->nr_fixed; i++) {
		if (msr == MSR_INTEL_FIXED_CTR(i)) {
			*writes = &m->fixed_writes[i];
			return &m->fixed[i];
		}
	}
	if (m->vendor == PMU_INTEL && msr == MSR_INTEL_FIXED_CTR_CTRL)
		return &m->fixed_ctrl;
	if (msr == (m->vendor == PMU_AMD ? MSR_AMD_GLOBAL_CTL : MSR_INTEL_GLOBAL_CTRL))
		return &m->global_ctrl;
	return NULL;
}

static u64 m_rdmsr(void *ctx, u32 msr)
{
	struct model *m = ctx;
	unsigned *w;
	u64 *r = m_reg(m, msr, &w);

	m->n_rdmsr++;
	if (msr == (m->vendor == PMU_AMD ? MSR_AMD_GLOBAL_STATUS : MSR_INTEL_GLOBAL_STATUS))
		return m->global_status;
	assert_non_null(r);
	return *r;
}

static void m_wrmsr(void *ctx, u32 msr, u64 v)
{
	struct model *m = ctx;
	bool amd = m->vendor == PMU_AMD;
	unsigned *w;
	u64 *r = m_reg(m, msr, &w);

	if (m->n_wrmsr < ARRAY_SIZE(m->written))
		m->written[m->n_wrmsr] = msr;
	m->n_wrmsr++;
	if (msr == (amd ? MSR_AMD_GLOBAL_STATUS_CLR : MSR_INTEL_GLOBAL_OVF_CTRL)) {
		m_check_bits(msr, v, valid_bits(m));
		m->global_status &= ~v;
		return;
	}
	if (msr == (amd ? MSR_AMD_GLOBAL_STATUS_SET : MSR_INTEL_GLOBAL_STATUS_SET)) {
		m_check_bits(msr, v, valid_bits(m));
		m->global_status |= v;
		return;
	}
	assert_non_null(r); /* GLOBAL_STATUS itself is read-only */
	if (w) {
		(*w)++;
		m_check_bits(msr, v, MASK48);
	} else if (r == &m->global_ctrl) {
		m_check_bits(msr, v, valid_bits(m));
		if (v == 0)
			m->global_ctl_zero_writes++;
	} else if (r == &m->fixed_ctrl) {
		m_check_fixed_ctrl(m, v);
	} else {
		m_check_ctl(m, msr, v);
	}
	*r = v;
}

static const struct pmu_hw_ops model_ops = {
	.rdpmc = m_rdpmc,
	.rdmsr = m_rdmsr,
	.wrmsr = m_wrmsr,
};

/* Does counter i (fixed: 32 + i) count now?  EN, global enable, and H/G (APM Vol 2 §13.2.1). */
static bool m_counts(const struct model *m, unsigned bit, bool guest)
{
	u64 sel, hg;

	if (!(m->global_ctrl & BIT(bit)))
		return false;
	if (bit >= 32)
		return (m->fixed_ctrl >> (4 * (bit - 32))) & 3;
	sel = m->ctl[bit];
	if (!(sel & PMU_EVTSEL_EN))
		return false;
	if (m->vendor == PMU_INTEL)
		return true;
	hg = sel & (PMU_AMD_GUESTONLY | PMU_AMD_HOSTONLY);
	if (hg == PMU_AMD_GUESTONLY)
		return guest;
	if (hg == PMU_AMD_HOSTONLY)
		return !guest;
	return true;
}

static void add_wrap(u64 *ctr, u64 n, u64 *status, u64 bit)
{
	u64 v = *ctr + n;

	if (v > MASK48)
		*status |= bit;
	*ctr = v & MASK48;
}

static void m_tick(struct model *m, bool guest, u64 n)
{
	unsigned i;

	for (i = 0; i < m->nr_gp; i++)
		if (m_counts(m, i, guest))
			add_wrap(&m->ctr[i], n, &m->global_status, BIT(i));
	for (i = 0; i < m->nr_fixed; i++)
		if (m_counts(m, 32 + i, guest))
			add_wrap(&m->fixed[i], n, &m->global_status, PMU_GLOBAL_FIXED(i));
}

/* The guest's PMU on bare metal, with KVM's answer to AMD's H/G bits: a guest
 * without SVM has none (they are dropped, see handler_step). */
struct ref {
	enum pmu_vendor vendor;
	unsigned nr_gp, nr_fixed;
	u64 sel[PMU_MAX_GP], ctr[PMU_MAX_GP], fixed[PMU_MAX_FIXED], fixed_ctrl;
	u64 global_ctrl, global_status;
};

static void ref_tick(struct ref *r, u64 n)
{
	unsigned i;

	for (i = 0; i < r->nr_gp; i++)
		if ((r->sel[i] & PMU_EVTSEL_EN) && (r->global_ctrl & BIT(i)))
			add_wrap(&r->ctr[i], n, &r->global_status, BIT(i));
	for (i = 0; i < r->nr_fixed; i++)
		if (((r->fixed_ctrl >> (4 * i)) & 3) && (r->global_ctrl & PMU_GLOBAL_FIXED(i)))
			add_wrap(&r->fixed[i], n, &r->global_status, PMU_GLOBAL_FIXED(i));
}

/* Independent restatement of emulated-instruction accounting for the oracle. */
static bool ref_account(struct ref *r, unsigned events, unsigned cpl)
{
	u64 br = r->vendor == PMU_AMD ? 0xc2 : 0xc4;
	bool pmi = false;
	unsigned i;

	for (i = 0; i < r->nr_gp; i++) {
		u64 sel = r->sel[i], ev = sel & 0xffff;
		bool match = ((events & PMU_EV_INSTRUCTIONS) && ev == 0xc0) ||
			     ((events & PMU_EV_BRANCHES) && ev == br);

		if (r->vendor == PMU_AMD && (sel & (0xfull << 32)))
			match = false;
		if (!match || !(sel & BIT(22)) || !(r->global_ctrl & BIT(i)) ||
		    !(sel & (cpl ? BIT(16) : BIT(17))))
			continue;
		add_wrap(&r->ctr[i], 1, &r->global_status, BIT(i));
		if (r->ctr[i] == 0 && (sel & BIT(20)))
			pmi = true;
	}
	if (r->nr_fixed && (events & PMU_EV_INSTRUCTIONS) && (r->global_ctrl & BIT(32)) &&
	    (r->fixed_ctrl & (cpl ? 2 : 1))) {
		u64 before = r->fixed[0];

		add_wrap(&r->fixed[0], 1, &r->global_status, BIT(32));
		if (before == MASK48 && (r->fixed_ctrl & 8))
			pmi = true;
	}
	return pmi;
}

/* The PerfCtrVirt slots of a VMCB save area (APM Vol 2 Table B-2). */
struct vmcb_slots {
	struct pmu_vmcb_pmc pmc[PMU_AMD_MAX_GP];
	u64 global_status;
	u32 global_ctl;
};

struct harness {
	struct model m;
	struct pmu_state s;
	struct pmu_hw hw;
	struct ref r;
	enum pmu_mode mode;
	u64 rng;
	struct vmcb_slots vmcb; /* mode hw: where the CPU loads and saves the guest's PMU */
};

static u64 rnd(struct harness *h)
{
	h->rng ^= h->rng << 13;
	h->rng ^= h->rng >> 7;
	h->rng ^= h->rng << 17;
	return h->rng;
}

static void h_init(struct harness *h, enum pmu_vendor v, enum pmu_mode mode, u64 seed)
{
	unsigned i;

	memset(h, 0, sizeof(*h));
	h->mode = mode;
	h->rng = seed * 0x9e3779b97f4a7c15ull + 1;
	h->m.vendor = h->r.vendor = v;
	h->m.nr_gp = h->r.nr_gp = v == PMU_AMD ? 6 : 8;
	h->m.nr_fixed = h->r.nr_fixed = v == PMU_AMD ? 0 : 3;
	/* Host leftovers: stale counts, nothing enabled; PerfMonV2 resets GLOBAL_CTL to all-on. */
	for (i = 0; i < h->m.nr_gp; i++)
		h->m.ctr[i] = (i & 1) ? 0 : 1000 + i;
	h->m.global_ctrl = v == PMU_AMD ? valid_bits(&h->m) : 0;
	h->hw.ops = &model_ops;
	h->hw.ctx = &h->m;
	pmu_init(&h->s, v, h->m.nr_gp, h->m.nr_fixed, mode);
	/* As the backend does at vCPU creation: the VMCB becomes the home. */
	if (mode == PMU_HW)
		pmu_attach_vmcb(&h->s, h->vmcb.pmc, &h->vmcb.global_status, &h->vmcb.global_ctl);
	h->r.global_ctrl = h->s.global_ctrl;
}

static void reset_ops(struct model *m)
{
	m->n_rdpmc = m->n_rdmsr = m->n_wrmsr = 0;
	memset(m->ctr_writes, 0, sizeof(m->ctr_writes));
	memset(m->fixed_writes, 0, sizeof(m->fixed_writes));
	m->global_ctl_zero_writes = 0;
}

static bool sw_mode(enum pmu_mode mode)
{
	return mode == PMU_SW || mode == PMU_SW_NOELIDE || mode == PMU_SW_LAZY;
}

/* Hardware side of VMRUN/VMLAUNCH; false is VMEXIT_INVALID_PMC (APM Vol 2 §15.39). */
static bool hw_vmentry(struct harness *h)
{
	struct model *m = &h->m;
	struct pmu_state *s = &h->s;
	struct vmcb_slots *vmcb = &h->vmcb;
	unsigned i;

	if (h->mode == PMU_HW && m->vendor == PMU_AMD) {
		if (m->global_ctrl)
			return false;
		m->host_status = m->global_status;
		for (i = 0; i < m->nr_gp; i++) {
			m_check_ctl(m, MSR_AMD_PERF_CTL(i), vmcb->pmc[i].ctl);
			m->ctl[i] = vmcb->pmc[i].ctl;
			m->ctr[i] = vmcb->pmc[i].ctr;
		}
		m->global_status = vmcb->global_status;
		m->global_ctrl = vmcb->global_ctl;
	} else if (m->vendor == PMU_INTEL && sw_mode(h->mode)) {
		/* Entry "load GLOBAL_CTRL"; a reserved bit fails the VM entry (SDM Vol 3 §27.3.1.1). */
		m_check_bits(MSR_INTEL_GLOBAL_CTRL, s->vmcs_global_ctrl, valid_bits(m));
		m->global_ctrl = s->vmcs_global_ctrl;
	}
	m->guest_mode = true;
	return true;
}

static void hw_vmexit(struct harness *h)
{
	struct model *m = &h->m;
	struct pmu_state *s = &h->s;
	struct vmcb_slots *vmcb = &h->vmcb;
	unsigned i;

	if (h->mode == PMU_HW && m->vendor == PMU_AMD) {
		/* Guest state saved; type C reset, type A restored (APM Vol 2 Table B-3 swap types). */
		for (i = 0; i < m->nr_gp; i++) {
			vmcb->pmc[i].ctl = m->ctl[i];
			vmcb->pmc[i].ctr = m->ctr[i];
			m->ctl[i] = m->ctr[i] = 0;
		}
		vmcb->global_status = m->global_status;
		vmcb->global_ctl = (u32)m->global_ctrl;
		m->global_ctrl = valid_bits(m);
		m->global_status = m->host_status;
	} else if (m->vendor == PMU_INTEL && sw_mode(h->mode)) {
		s->vmcs_global_ctrl = m->global_ctrl; /* exit "save", then load host 0 */
		m->global_ctrl = 0;
	}
	m->guest_mode = false;
}

static void do_exit(struct harness *h, bool host_needs)
{
	hw_vmexit(h);
	if (h->mode == PMU_SW_LAZY)
		pmu_put_if_needed(&h->s, &h->hw, h->mode, host_needs);
	else
		pmu_put(&h->s, &h->hw, h->mode);
}

/* The backend's entry code after the hooks: the MSR the mode has zeroed before each VMRUN. */
static void entry_code(struct harness *h)
{
	u32 msr = pmu_entry_zeroed_msr(&h->s, h->mode);

	if (msr)
		h->hw.ops->wrmsr(h->hw.ctx, msr, 0);
	assert_true(hw_vmentry(h));
}

static void do_entry(struct harness *h)
{
	pmu_load(&h->s, &h->hw, h->mode);
	entry_code(h);
}

/* Host-mode time: no guest counter may count it, nor overflow. */
static void host_time_counts_nothing(struct harness *h, u64 n)
{
	u64 before[PMU_MAX_GP + PMU_MAX_FIXED + 1];
	unsigned i;

	for (i = 0; i < h->m.nr_gp; i++)
		before[i] = h->m.ctr[i];
	for (i = 0; i < h->m.nr_fixed; i++)
		before[PMU_MAX_GP + i] = h->m.fixed[i];
	before[PMU_MAX_GP + PMU_MAX_FIXED] = h->m.global_status;
	m_tick(&h->m, false, n);
	for (i = 0; i < h->m.nr_gp; i++)
		assert_int_equal(before[i], h->m.ctr[i]);
	for (i = 0; i < h->m.nr_fixed; i++)
		assert_int_equal(before[PMU_MAX_GP + i], h->m.fixed[i]);
	assert_int_equal(before[PMU_MAX_GP + PMU_MAX_FIXED], h->m.global_status);
}

/*
 * An exit a fast handler completes (CPUID, a hypercall): in the backends'
 * fast-path loops the hooks run only when pmu_exit_quiet says the PMU
 * needs them, else the exit goes the general way.
 */
static void fast_exit(struct harness *h)
{
	bool quiet = pmu_exit_quiet(&h->s, h->mode);
	bool pmi = ref_account(&h->r, PMU_EV_INSTRUCTIONS, 0);

	if (!quiet) {
		do_exit(h, false);
		host_time_counts_nothing(h, 100);
		assert_int_equal(
		    pmu_account_emulated(&h->s, &h->hw, h->mode, PMU_EV_INSTRUCTIONS, 0), pmi);
		do_entry(h);
		return;
	}
	/* Quiet: no guest counter counts what mhv completes, so skipping is exact. */
	assert_false(pmi);
	hw_vmexit(h);
	host_time_counts_nothing(h, 100);
	entry_code(h);
}

static u32 sel_msr(enum pmu_vendor v, unsigned i)
{
	return v == PMU_AMD ? MSR_AMD_PERF_CTL(i) : MSR_INTEL_PERFEVTSEL(i);
}

static u32 cnt_msr(enum pmu_vendor v, unsigned i)
{
	return v == PMU_AMD ? MSR_AMD_PERF_CTR(i) : MSR_INTEL_A_PMC(i);
}

static u32 gctl_msr(enum pmu_vendor v)
{
	return v == PMU_AMD ? MSR_AMD_GLOBAL_CTL : MSR_INTEL_GLOBAL_CTRL;
}

static u32 gsts_msr(enum pmu_vendor v)
{
	return v == PMU_AMD ? MSR_AMD_GLOBAL_STATUS : MSR_INTEL_GLOBAL_STATUS;
}

static u32 gclr_msr(enum pmu_vendor v)
{
	return v == PMU_AMD ? MSR_AMD_GLOBAL_STATUS_CLR : MSR_INTEL_GLOBAL_OVF_CTRL;
}

static u32 gset_msr(enum pmu_vendor v)
{
	return v == PMU_AMD ? MSR_AMD_GLOBAL_STATUS_SET : MSR_INTEL_GLOBAL_STATUS_SET;
}

static u64 get(struct harness *h, u32 msr)
{
	u64 v = ~0ull;

	assert_true(pmu_get_msr(&h->s, &h->hw, h->mode, msr, &v));
	return v;
}

static void set(struct harness *h, u32 msr, u64 v)
{
	assert_true(pmu_set_msr(&h->s, &h->hw, h->mode, msr, v));
}

/* In guest mode the passed-through registers are the guest's. */
static void check_guest_view(struct harness *h)
{
	unsigned i;

	for (i = 0; i < h->r.nr_gp; i++) {
		assert_int_equal(h->m.ctr[i], h->r.ctr[i]);
		assert_int_equal(h->s.eventsel[i], h->r.sel[i]);
	}
	for (i = 0; i < h->r.nr_fixed; i++)
		assert_int_equal(h->m.fixed[i], h->r.fixed[i]);
	assert_int_equal(h->m.global_ctrl, h->r.global_ctrl);
	assert_int_equal(h->m.global_status, h->r.global_status);
}

/* In host mode: the handlers' view equals the oracle, and nothing counts. */
static u64 check_host_view(struct harness *h)
{
	enum pmu_vendor v = h->r.vendor;
	u64 hash = 1469598103934665603ull;
	unsigned i;

#define MIX(x) (hash = (hash ^ (x)) * 1099511628211ull)
	for (i = 0; i < h->r.nr_gp; i++) {
		assert_int_equal(get(h, sel_msr(v, i)), h->r.sel[i]);
		assert_int_equal(get(h, cnt_msr(v, i)), h->r.ctr[i]);
		MIX(h->r.ctr[i]);
		assert_false(h->m.guest_mode || m_counts(&h->m, i, false));
	}
	for (i = 0; i < h->r.nr_fixed; i++) {
		assert_int_equal(get(h, MSR_INTEL_FIXED_CTR(i)), h->r.fixed[i]);
		MIX(h->r.fixed[i]);
		assert_false(m_counts(&h->m, 32 + i, false));
	}
	if (v == PMU_INTEL)
		assert_int_equal(get(h, MSR_INTEL_FIXED_CTR_CTRL), h->r.fixed_ctrl);
	assert_int_equal(get(h, gctl_msr(v)), h->r.global_ctrl);
	assert_int_equal(get(h, gsts_msr(v)), h->r.global_status);
	MIX(h->r.global_status);
#undef MIX
	return hash;
}

static u64 rnd_count(struct harness *h)
{
	switch (rnd(h) % 4) {
	case 0:
		return 0;
	case 1:
		return MASK48 - rnd(h) % 8; /* about to wrap */
	case 2:
		return rnd(h) % 1000;
	}
	return rnd(h) & MASK48;
}

static u64 rnd_sel(struct harness *h)
{
	static const u64 ev[] = { 0xc0, 0xc2, 0xc4, 0x3c, 0x76 };
	u64 x = rnd(h), sel = ev[x % 5];

	if (x & BIT(8))
		sel = (x >> 24) & 0xff;
	if ((x & (3ull << 9)) == 0)
		sel |= ((x >> 32) & 0xff) << 8;
	sel |= x & (PMU_EVTSEL_USR | PMU_EVTSEL_OS | PMU_EVTSEL_INT);
	if (x & (3ull << 22))
		sel |= PMU_EVTSEL_EN;
	if (h->r.vendor == PMU_AMD) {
		/* The guest's own H/G bits and EventSelect[11:8] (APM Vol 2 §13.2.1). */
		sel |= x & (PMU_AMD_GUESTONLY | PMU_AMD_HOSTONLY);
		if ((x & (7ull << 33)) == 0)
			sel |= 1ull << 32;
	}
	return sel;
}

/* A guest-mode step: run, or touch a passed-through register. */
static void guest_step(struct harness *h)
{
	u64 valid = valid_bits(&h->m), v;
	unsigned i;

	switch (rnd(h) % 6) {
	case 0:
	case 1:
		v = rnd(h) % 64;
		m_tick(&h->m, true, v);
		ref_tick(&h->r, v);
		break;
	case 2:
		i = rnd(h) % h->r.nr_gp;
		h->m.ctr[i] = h->r.ctr[i] = rnd_count(h);
		break;
	case 3:
		if (h->r.nr_fixed) {
			i = rnd(h) % h->r.nr_fixed;
			h->m.fixed[i] = h->r.fixed[i] = rnd_count(h);
		}
		break;
	case 4:
		h->m.global_ctrl = h->r.global_ctrl = rnd(h) & valid;
		break;
	case 5:
		v = rnd(h) & valid;
		h->m.global_status &= ~v;
		h->r.global_status &= ~v;
		break;
	}
	check_guest_view(h);
}

/* A host-mode step inside an exit handler. */
static void handler_step(struct harness *h)
{
	enum pmu_vendor vd = h->r.vendor;
	u64 valid = valid_bits(&h->m), v;
	unsigned i, ev, cpl;

	switch (rnd(h) % 8) {
	case 0:
		i = rnd(h) % h->r.nr_gp;
		v = rnd_sel(h);
		set(h, sel_msr(vd, i), v);
		h->r.sel[i] = vd == PMU_AMD ? v & ~(PMU_AMD_HOSTONLY | PMU_AMD_GUESTONLY) : v;
		break;
	case 1:
		if (h->r.nr_fixed) {
			h->r.fixed_ctrl = rnd(h) & 0xbbb; /* OS/USR/PMI of three counters */
			set(h, MSR_INTEL_FIXED_CTR_CTRL, h->r.fixed_ctrl);
		}
		break;
	case 2:
		h->r.global_ctrl = rnd(h) & valid;
		set(h, gctl_msr(vd), h->r.global_ctrl);
		break;
	case 3:
		i = rnd(h) % h->r.nr_gp;
		h->r.ctr[i] = rnd_count(h);
		set(h, cnt_msr(vd, i), h->r.ctr[i]);
		break;
	case 4:
		v = rnd(h) & valid;
		if (rnd(h) & 1) {
			h->r.global_status |= v;
			set(h, gset_msr(vd), v);
		} else {
			h->r.global_status &= ~v;
			set(h, gclr_msr(vd), v);
		}
		break;
	case 5:
	case 6:
		ev = 1 + rnd(h) % 3;
		cpl = (rnd(h) & 1) ? 3 : 0;
		assert_int_equal(pmu_account_emulated(&h->s, &h->hw, h->mode, ev, cpl),
				 ref_account(&h->r, ev, cpl));
		break;
	case 7:
		/* Host-mode events must not reach any guest counter. */
		host_time_counts_nothing(h, 1 + rnd(h) % 1000);
		break;
	}
}

/* Runs a seeded sequence; trace[] gets the guest-visible state at each exit. */
static void run_seq(struct harness *h, unsigned steps, u64 *trace)
{
	unsigned n = 0, k;

	do_entry(h);
	while (n < steps) {
		guest_step(h);
		if (rnd(h) % 3)
			continue;
		if (rnd(h) % 2) {
			fast_exit(h);
			check_guest_view(h);
			continue;
		}
		do_exit(h, (rnd(h) % 4) == 0);
		for (k = rnd(h) % 4; k; k--) {
			handler_step(h);
			check_host_view(h);
		}
		trace[n++] = check_host_view(h);
		do_entry(h);
		check_guest_view(h);
	}
	do_exit(h, true);
	check_host_view(h);
}

#define STEPS 300
#define SEEDS 25

static const enum pmu_mode live_modes[] = { PMU_SW, PMU_SW_NOELIDE, PMU_SW_LAZY, PMU_HW };

static void test_random_sequences(void **state)
{
	static u64 trace[ARRAY_SIZE(live_modes)][STEPS];
	struct harness h;
	unsigned vd, mi, seed;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		for (seed = 1; seed <= SEEDS; seed++) {
			for (mi = 0; mi < ARRAY_SIZE(live_modes); mi++) {
				if (!pmu_mode_supported(vd, live_modes[mi]))
					continue;
				h_init(&h, vd, live_modes[mi], seed);
				run_seq(&h, STEPS, trace[mi]);
			}
			/* Same guest-visible history in every mode, lazy included. */
			for (mi = 1; mi < ARRAY_SIZE(live_modes); mi++) {
				if (pmu_mode_supported(vd, live_modes[mi]))
					assert_memory_equal(trace[0], trace[mi], sizeof(trace[0]));
			}
		}
	}
}

/* The elision: a counter WRMSR on load only where RDPMC differs; noelide writes all. */
static void test_elision(void **state)
{
	struct harness h;
	unsigned vd, i, elide;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		for (elide = 0; elide <= 1; elide++) {
			h_init(&h, vd, elide ? PMU_SW : PMU_SW_NOELIDE, 1);
			for (i = 0; i < h.m.nr_gp; i++) {
				h.s.counter[i] = i % 3 ? 0 : 77 + i;
				h.m.ctr[i] = i % 2 ? h.s.counter[i] : 5;
			}
			for (i = 0; i < h.m.nr_fixed; i++) {
				h.s.fixed[i] = i;
				h.m.fixed[i] = i == 1 ? 1 : 9;
			}
			reset_ops(&h.m);
			pmu_load(&h.s, &h.hw, h.mode);
			for (i = 0; i < h.m.nr_gp; i++) {
				bool differ = h.s.counter[i] != (i % 2 ? h.s.counter[i] : 5);

				assert_int_equal(h.m.ctr_writes[i], elide ? differ : 1);
				assert_int_equal(h.m.ctr[i], h.s.counter[i]);
			}
			for (i = 0; i < h.m.nr_fixed; i++)
				assert_int_equal(h.m.fixed_writes[i], elide ? i != 1 : 1);
			assert_int_equal(h.m.n_rdpmc, elide ? h.m.nr_gp + h.m.nr_fixed : 0);

			/* Idle guest: counters 0 at the put, so the load writes none. */
			memset(h.s.counter, 0, sizeof(h.s.counter));
			memset(h.s.fixed, 0, sizeof(h.s.fixed));
			for (i = 0; i < h.m.nr_gp; i++)
				set(&h, cnt_msr(vd, i), 0);
			for (i = 0; i < h.m.nr_fixed; i++)
				set(&h, MSR_INTEL_FIXED_CTR(i), 0);
			pmu_put(&h.s, &h.hw, h.mode);
			reset_ops(&h.m);
			pmu_load(&h.s, &h.hw, h.mode);
			for (i = 0; i < h.m.nr_gp; i++)
				assert_int_equal(h.m.ctr_writes[i], !elide);
			for (i = 0; i < h.m.nr_fixed; i++)
				assert_int_equal(h.m.fixed_writes[i], !elide);
		}
	}
}

/*
 * The floor of each mode (docs/pmu.md, "The floors"): the WRMSRs of one
 * exit round trip when the guest changed nothing mhv intercepts.  sw:
 * AMD stops the counters at exit and starts them at entry (GLOBAL_CTL),
 * Intel nothing (the VMCS loads GLOBAL_CTRL both ways); sw-noelide adds
 * one WRMSR per counter; sw-lazy nothing; hw the host GLOBAL_CTL = 0 that
 * VMRUN demands after each #VMEXIT reset it (APM Vol 2 §15.39).  Exactly:
 * one write more is cost the floor says is not needed, one fewer a duty
 * left out.  With an idle guest (RESET state) and a busy one (counters 0
 * and 1 counting in guest mode, one of them with its overflow bit set).
 */
static unsigned floor_wrmsrs(const struct harness *h)
{
	unsigned counters = h->m.nr_gp + h->m.nr_fixed;
	bool amd = h->m.vendor == PMU_AMD;

	switch (h->mode) {
	case PMU_SW:
		return amd ? 2 : 0;
	case PMU_SW_NOELIDE:
		return (amd ? 2 : 0) + counters;
	case PMU_HW:
		return 1;
	default:
		return 0;
	}
}

static void test_floors(void **state)
{
	struct harness h;
	unsigned vd, mode, busy, round;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		for (mode = PMU_OFF; mode < PMU_MODE_COUNT; mode++) {
			if (!pmu_mode_supported(vd, mode))
				continue;
			for (busy = 0; busy <= (mode != PMU_OFF); busy++) {
				h_init(&h, vd, mode, 13);
				if (busy) {
					set(&h, sel_msr(vd, 0),
					    0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_OS | PMU_EVTSEL_USR);
					set(&h, sel_msr(vd, 1),
					    0x76 | PMU_EVTSEL_EN | PMU_EVTSEL_USR);
					if (h.r.nr_fixed)
						set(&h, MSR_INTEL_FIXED_CTR_CTRL, 0x22);
					set(&h, gset_msr(vd), BIT(1));
				}
				/* The first load writes what the PMU lacks. */
				do_entry(&h);
				for (round = 0; round < 4; round++) {
					if (busy)
						m_tick(&h.m, true, 1000);
					reset_ops(&h.m);
					do_exit(&h, false);
					do_entry(&h);
					assert_int_equal(h.m.n_wrmsr, floor_wrmsrs(&h));
				}
			}
		}
	}
}

/* After a floor round trip, the next round trip with one guest change
 * made in the handler writes that register, once, and nothing else. */
static void floor_then_change(struct harness *h, u32 msr, u64 v)
{
	unsigned floor = floor_wrmsrs(h), i;

	do_exit(h, false);
	do_entry(h);
	m_tick(&h->m, true, 100);
	reset_ops(&h->m);
	do_exit(h, false);
	set(h, msr, v);
	do_entry(h);
	assert_int_equal(h->m.n_wrmsr, floor + 1);
	for (i = 0; i < floor + 1; i++) {
		if (h->m.written[i] == msr)
			break;
	}
	assert_true(i < floor + 1);
}

/* The floor still writes what the guest changed, and all of it after
 * something else had the PMU (another VM on this CPU: pmu_forget_hw). */
static void test_floor_writes_changes(void **state)
{
	static const enum pmu_mode sw_modes[] = { PMU_SW, PMU_SW_NOELIDE };
	u64 sel = 0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_OS;
	struct harness h;
	unsigned vd, mi, i;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		for (mi = 0; mi < ARRAY_SIZE(sw_modes); mi++) {
			h_init(&h, vd, sw_modes[mi], 17);
			set(&h, sel_msr(vd, 0), sel);
			do_entry(&h);

			/* An event select: the PMU holds it at entry (AMD with GuestOnly). */
			floor_then_change(&h, sel_msr(vd, 3), sel);
			assert_int_equal(h.m.ctl[3] & ~PMU_AMD_GUESTONLY, sel);
			/* Written back to what it was: written again. */
			floor_then_change(&h, sel_msr(vd, 3), 0);
			assert_int_equal(h.m.ctl[3], 0);
			/* A counter (noelide writes every counter anyway). */
			if (sw_modes[mi] == PMU_SW) {
				floor_then_change(&h, cnt_msr(vd, 2), 12345);
				assert_int_equal(h.m.ctr[2], 12345);
			}
			/* Intel's FIXED_CTR_CTRL and GLOBAL_CTRL (the latter through the VMCS). */
			if (vd == PMU_INTEL) {
				floor_then_change(&h, MSR_INTEL_FIXED_CTR_CTRL, 0x3);
				assert_int_equal(h.m.fixed_ctrl, 0x3);
				do_exit(&h, false);
				set(&h, gctl_msr(vd), 0x1);
				reset_ops(&h.m);
				do_entry(&h);
				assert_int_equal(h.m.n_wrmsr, floor_wrmsrs(&h));
				assert_int_equal(h.m.global_ctrl, 0x1);
			} else {
				/* AMD's GLOBAL_CTL, which the guest writes without an exit. */
				h.m.global_ctrl = h.r.global_ctrl = 0x9;
				do_exit(&h, false);
				do_entry(&h);
				assert_int_equal(h.m.global_ctrl, 0x9);
			}
			/* A status bit set in the handler. */
			floor_then_change(&h, gset_msr(vd), BIT(0));
			assert_int_equal(h.m.global_status, BIT(0));

			/*
			 * Another VM had the PMU and left it counting in host
			 * mode: the load stops it before anything else, writes
			 * every select again, and the guest's global control
			 * (now 0) is what runs.
			 */
			do_exit(&h, false);
			set(&h, gctl_msr(vd), 0);
			h.r.global_ctrl = 0;
			for (i = 0; i < h.m.nr_gp; i++)
				h.m.ctl[i] = 0x76 | PMU_EVTSEL_EN;
			h.m.fixed_ctrl = 0x333 & (BIT(4 * h.m.nr_fixed) - 1);
			h.m.global_ctrl = valid_bits(&h.m);
			pmu_forget_hw(&h.s);
			pmu_load(&h.s, &h.hw, h.mode);
			host_time_counts_nothing(&h, 100);
			entry_code(&h);
			assert_int_equal(h.m.ctl[0] & ~PMU_AMD_GUESTONLY, sel);
			for (i = 1; i < h.m.nr_gp; i++)
				assert_int_equal(h.m.ctl[i], 0);
			assert_int_equal(h.m.fixed_ctrl, vd == PMU_INTEL ? 0x3 : 0);
			assert_int_equal(h.m.global_ctrl, 0);

			/* The VM stops: nothing of the guest is left in the PMU. */
			m_tick(&h.m, true, 100);
			hw_vmexit(&h);
			pmu_release(&h.s, &h.hw, h.mode);
			for (i = 0; i < h.m.nr_gp; i++)
				assert_int_equal(h.m.ctl[i] | h.m.ctr[i], 0);
			for (i = 0; i < h.m.nr_fixed; i++)
				assert_int_equal(h.m.fixed[i], 0);
			assert_int_equal(h.m.fixed_ctrl | h.m.global_ctrl | h.m.global_status, 0);
			assert_false(h.s.hw_known);
		}
	}
}

/* Guest counters never count in host mode, also between load and VMRUN. */
static void test_host_never_counts(void **state)
{
	struct harness h;
	unsigned vd, mi, i, round;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		for (mi = 0; mi < ARRAY_SIZE(live_modes); mi++) {
			if (!pmu_mode_supported(vd, live_modes[mi]))
				continue;
			h_init(&h, vd, live_modes[mi], 3);
			for (i = 0; i < h.r.nr_gp; i++)
				set(&h, sel_msr(vd, i), 0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_OS);
			if (h.r.nr_fixed)
				set(&h, MSR_INTEL_FIXED_CTR_CTRL, 0x333);
			set(&h, gctl_msr(vd), valid_bits(&h.m));
			for (round = 0; round < 4; round++) {
				pmu_load(&h.s, &h.hw, h.mode);
				for (i = 0; i < h.m.nr_gp; i++)
					assert_false(m_counts(&h.m, i, false));
				for (i = 0; i < h.m.nr_fixed; i++)
					assert_false(m_counts(&h.m, 32 + i, false));
				entry_code(&h);
				/* ...and they do count in guest mode. */
				for (i = 0; i < h.m.nr_gp; i++)
					assert_true(m_counts(&h.m, i, true));
				for (i = 0; i < h.m.nr_fixed; i++)
					assert_true(m_counts(&h.m, 32 + i, true));
				do_exit(&h, round & 1);
				for (i = 0; i < h.m.nr_gp; i++)
					assert_false(m_counts(&h.m, i, false));
				for (i = 0; i < h.m.nr_fixed; i++)
					assert_false(m_counts(&h.m, 32 + i, false));
			}
		}
	}
}

/* Puts h in the state where handlers run for its mode: put, loaded or VMCB. */
static void to_handler(struct harness *h)
{
	do_entry(h);
	do_exit(h, false);
}

/* GLOBAL_CTL = 0 before every VMRUN, or VMRUN fails (APM Vol 2 §15.39). */
static void test_hw_clears_global_ctl(void **state)
{
	struct harness h;
	unsigned i;

	h_init(&h, PMU_AMD, PMU_HW, 5);
	set(&h, sel_msr(PMU_AMD, 0), 0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_OS | PMU_EVTSEL_USR);
	set(&h, gctl_msr(PMU_AMD), 1);
	reset_ops(&h.m);
	for (i = 0; i < 50; i++) {
		do_entry(&h);
		m_tick(&h.m, true, 10);
		do_exit(&h, true);
		assert_int_equal(h.m.global_ctrl, valid_bits(&h.m)); /* #VMEXIT reset value */
	}
	assert_int_equal(h.m.global_ctl_zero_writes, 50);
	assert_int_equal(h.m.n_wrmsr, 50);
	assert_int_equal(h.m.n_rdmsr + h.m.n_rdpmc, 0);
	assert_int_equal(get(&h, cnt_msr(PMU_AMD, 0)), 500);
	assert_int_equal(h.vmcb.pmc[0].ctl & PMU_AMD_HOSTONLY, 0);
	/* Skipping the entry code's WRMSR: the model's VMRUN fails with VMEXIT_INVALID_PMC. */
	assert_false(hw_vmentry(&h));
	/* Only mode hw on AMD has one; the exits that skip the hooks get it too (fast_exit). */
	assert_int_equal(pmu_entry_zeroed_msr(&h.s, PMU_HW), MSR_AMD_GLOBAL_CTL);
	assert_int_equal(pmu_entry_zeroed_msr(&h.s, PMU_SW_LAZY), 0);
	h_init(&h, PMU_INTEL, PMU_SW, 5);
	assert_int_equal(pmu_entry_zeroed_msr(&h.s, PMU_SW), 0);
}

/* The VMCB is the home of mode hw's state: attach moves it there, then reads go there. */
static void test_hw_vmcb_home(void **state)
{
	struct pmu_state s;
	struct vmcb_slots vmcb;
	u64 v = 0;

	pmu_init(&s, PMU_AMD, 6, 0, PMU_HW);
	assert_true(pmu_set_msr(&s, NULL, PMU_HW, MSR_AMD_PERF_CTL(2), 0xc0 | PMU_EVTSEL_EN));
	assert_true(pmu_set_msr(&s, NULL, PMU_HW, MSR_AMD_PERF_CTR(2), 1234));
	assert_true(pmu_set_msr(&s, NULL, PMU_HW, MSR_AMD_GLOBAL_CTL, 0x5));
	memset(&vmcb, 0xa5, sizeof(vmcb));
	pmu_attach_vmcb(&s, vmcb.pmc, &vmcb.global_status, &vmcb.global_ctl);
	assert_int_equal(vmcb.pmc[2].ctl, 0xc0 | PMU_EVTSEL_EN);
	assert_int_equal(vmcb.pmc[2].ctr, 1234);
	assert_int_equal(vmcb.pmc[0].ctl, 0);
	assert_int_equal(vmcb.global_status, 0);
	assert_int_equal(vmcb.global_ctl, 0x5);
	/* What #VMEXIT stores is what the handlers read. */
	vmcb.pmc[2].ctr = 99;
	vmcb.global_status = BIT(2);
	vmcb.global_ctl = 0x4;
	assert_true(pmu_get_msr(&s, NULL, PMU_HW, MSR_AMD_PERF_CTR(2), &v));
	assert_int_equal(v, 99);
	assert_true(pmu_get_msr(&s, NULL, PMU_HW, MSR_AMD_GLOBAL_STATUS, &v));
	assert_int_equal(v, BIT(2));
	assert_true(pmu_get_msr(&s, NULL, PMU_HW, MSR_AMD_GLOBAL_CTL, &v));
	assert_int_equal(v, 0x4);
}

/* Which exits may skip the hooks: what the fast-path loops go by. */
static void test_quiet_exits(void **state)
{
	static const u64 en = PMU_EVTSEL_EN | PMU_EVTSEL_OS | PMU_EVTSEL_USR;
	struct harness h;
	unsigned vd, mi;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		u64 cycles = vd == PMU_AMD ? 0x76 : 0x3c;

		for (mi = 0; mi < ARRAY_SIZE(live_modes); mi++) {
			enum pmu_mode mode = live_modes[mi];
			bool lazy = mode == PMU_SW_LAZY, hw = mode == PMU_HW;

			if (!pmu_mode_supported(vd, mode))
				continue;
			h_init(&h, vd, mode, 21);
			/* sw-lazy: only once loaded; sw, sw-noelide: never */
			assert_int_equal(pmu_exit_quiet(&h.s, mode), hw);
			to_handler(&h);
			assert_int_equal(pmu_exit_quiet(&h.s, mode), lazy || hw);
			set(&h, sel_msr(vd, 1), cycles | en);
			assert_int_equal(pmu_exit_quiet(&h.s, mode), lazy || hw);
			/* counts instructions: not quiet, even while GLOBAL_CTRL has it off */
			set(&h, sel_msr(vd, 0), 0xc0 | en);
			set(&h, gctl_msr(vd), 0);
			assert_false(pmu_exit_quiet(&h.s, mode));
			set(&h, sel_msr(vd, 0), 0);
			set(&h, gctl_msr(vd), 0x3);
			assert_int_equal(pmu_exit_quiet(&h.s, mode), lazy || hw);
			/* an interrupting counter: mhv looks for its overflows, hw's CPU delivers them */
			set(&h, sel_msr(vd, 1), cycles | en | PMU_EVTSEL_INT);
			assert_int_equal(pmu_exit_quiet(&h.s, mode), hw);
			set(&h, sel_msr(vd, 1), cycles | en);
			h.s.pmi_pending = true;
			assert_false(pmu_exit_quiet(&h.s, mode));
			h.s.pmi_pending = false;
			/* the host took the PMU back */
			do_entry(&h);
			do_exit(&h, true);
			assert_int_equal(pmu_exit_quiet(&h.s, mode), hw);
			do_entry(&h);
			do_exit(&h, true);
		}
	}
}

/*
 * Host/Guest-only: mode sw makes the hardware select GuestOnly (counters
 * must stop at #VMEXIT, which does not switch them); mode hw has #VMEXIT
 * reset them (APM Vol 2 §15.39): neither reaches the VMCB.  The guest,
 * which has no SVM, has no H/G bits: they are dropped in both, as KVM
 * drops them (its AMD reserved mask is bits 63:36).
 */
static void test_host_guest_only_per_mode(void **state)
{
	const u64 sel = 0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_OS;
	const u64 hg[] = { 0, PMU_AMD_HOSTONLY, PMU_AMD_GUESTONLY,
			   PMU_AMD_HOSTONLY | PMU_AMD_GUESTONLY };
	struct harness h;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(hg); i++) {
		h_init(&h, PMU_AMD, PMU_SW, 7);
		set(&h, sel_msr(PMU_AMD, 0), sel | hg[i]);
		assert_int_equal(get(&h, sel_msr(PMU_AMD, 0)), sel); /* dropped, as KVM */
		assert_int_equal(h.s.eventsel_hw[0], sel | PMU_AMD_GUESTONLY);

		h_init(&h, PMU_AMD, PMU_HW, 7);
		to_handler(&h);
		set(&h, sel_msr(PMU_AMD, 0), sel | hg[i]);
		assert_int_equal(get(&h, sel_msr(PMU_AMD, 0)), sel);
		assert_int_equal(h.vmcb.pmc[0].ctl, sel);
	}
}

static void test_accounting(void **state)
{
	static const u64 en = PMU_EVTSEL_EN | PMU_EVTSEL_OS | PMU_EVTSEL_USR;
	struct harness h;
	unsigned vd, mi;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		u64 br = vd == PMU_AMD ? 0xc2 : 0xc4, other_br = vd == PMU_AMD ? 0xc4 : 0xc2;

		for (mi = 0; mi < ARRAY_SIZE(live_modes); mi++) {
			if (!pmu_mode_supported(vd, live_modes[mi]))
				continue;
			h_init(&h, vd, live_modes[mi], 7);
			assert_false(pmu_accounting_needed(&h.s));
			set(&h, sel_msr(vd, 0), 0xc0 | en);
			assert_true(pmu_accounting_needed(&h.s));
			set(&h, sel_msr(vd, 1), br | en | PMU_EVTSEL_INT);
			set(&h, sel_msr(vd, 2), 0xc0 | PMU_EVTSEL_OS | PMU_EVTSEL_USR); /* EN = 0 */
			set(&h, sel_msr(vd, 3), 0x1c0 | en);	/* umask 1 */
			set(&h, sel_msr(vd, 4), other_br | en); /* the other vendor's branches */
			set(&h, sel_msr(vd, 5), 0xc0 | en);	/* not in GLOBAL_CTRL */
			set(&h, gctl_msr(vd), 0x1f | (vd == PMU_INTEL ? 0x3ull << 32 : 0));
			if (vd == PMU_INTEL)
				set(&h, MSR_INTEL_FIXED_CTR_CTRL, 0x33); /* fixed 0 and 1 */
			set(&h, cnt_msr(vd, 1), MASK48);
			to_handler(&h);

			assert_false(
			    pmu_account_emulated(&h.s, &h.hw, h.mode, PMU_EV_INSTRUCTIONS, 0));
			assert_int_equal(get(&h, cnt_msr(vd, 0)), 1);
			assert_int_equal(get(&h, cnt_msr(vd, 1)), MASK48);
			assert_int_equal(get(&h, cnt_msr(vd, 2)), 0);
			assert_int_equal(get(&h, cnt_msr(vd, 3)), 0);
			assert_int_equal(get(&h, cnt_msr(vd, 5)), 0);
			if (vd == PMU_INTEL) {
				assert_int_equal(get(&h, MSR_INTEL_FIXED_CTR(0)), 1);
				assert_int_equal(get(&h, MSR_INTEL_FIXED_CTR(1)), 0);
			}
			assert_int_equal(get(&h, gsts_msr(vd)), 0);

			/* The branch counter wraps, sets its status bit and wants a PMI. */
			assert_true(pmu_account_emulated(&h.s, &h.hw, h.mode, PMU_EV_BRANCHES, 3));
			assert_int_equal(get(&h, cnt_msr(vd, 0)), 1);
			assert_int_equal(get(&h, cnt_msr(vd, 1)), 0);
			assert_int_equal(get(&h, cnt_msr(vd, 4)), 0);
			assert_int_equal(get(&h, gsts_msr(vd)), BIT(1));
			assert_true(h.s.pmi_pending);

			pmu_account_emulated(&h.s, &h.hw, h.mode,
					     PMU_EV_INSTRUCTIONS | PMU_EV_BRANCHES, 3);
			assert_int_equal(get(&h, cnt_msr(vd, 0)), 2);
			assert_int_equal(get(&h, cnt_msr(vd, 1)), 1);

			/* Wrap without INT: status, no PMI. */
			set(&h, cnt_msr(vd, 0), MASK48);
			assert_false(
			    pmu_account_emulated(&h.s, &h.hw, h.mode, PMU_EV_INSTRUCTIONS, 0));
			assert_int_equal(get(&h, cnt_msr(vd, 0)), 0);
			assert_int_equal(get(&h, gsts_msr(vd)), BIT(0) | BIT(1));

			/* The guest turns everything off: nothing left to account. */
			set(&h, gctl_msr(vd), 0);
			assert_false(pmu_accounting_needed(&h.s));
			do_entry(&h);
			do_exit(&h, true);
		}
	}
}

static void test_cpl_filter(void **state)
{
	struct harness h;
	unsigned vd, mi, cpl;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		for (mi = 0; mi < ARRAY_SIZE(live_modes); mi++) {
			if (!pmu_mode_supported(vd, live_modes[mi]))
				continue;
			h_init(&h, vd, live_modes[mi], 9);
			set(&h, sel_msr(vd, 0), 0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_OS);
			set(&h, sel_msr(vd, 1), 0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_USR);
			set(&h, sel_msr(vd, 2),
			    0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_OS | PMU_EVTSEL_USR);
			set(&h, gctl_msr(vd), 0x7 | (vd == PMU_INTEL ? BIT(32) : 0));
			if (vd == PMU_INTEL)
				set(&h, MSR_INTEL_FIXED_CTR_CTRL, PMU_FIXED_USR(0));
			to_handler(&h);
			for (cpl = 0; cpl <= 3; cpl++)
				pmu_account_emulated(&h.s, &h.hw, h.mode, PMU_EV_INSTRUCTIONS, cpl);
			/* OS: CPL 0 only; USR: CPL 1-3. */
			assert_int_equal(get(&h, cnt_msr(vd, 0)), 1);
			assert_int_equal(get(&h, cnt_msr(vd, 1)), 3);
			assert_int_equal(get(&h, cnt_msr(vd, 2)), 4);
			if (vd == PMU_INTEL)
				assert_int_equal(get(&h, MSR_INTEL_FIXED_CTR(0)), 3);
			do_entry(&h);
			do_exit(&h, true);
		}
	}
}

static void test_off(void **state)
{
	struct harness h;
	unsigned vd;
	u64 v;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		h_init(&h, vd, PMU_OFF, 1);
		reset_ops(&h.m);
		do_entry(&h);
		do_exit(&h, true);
		pmu_account_emulated(&h.s, &h.hw, PMU_OFF, PMU_EV_INSTRUCTIONS, 0);
		assert_int_equal(h.m.n_rdpmc + h.m.n_rdmsr + h.m.n_wrmsr, 0);
		assert_false(pmu_get_msr(&h.s, &h.hw, PMU_OFF, sel_msr(vd, 0), &v));
		assert_false(pmu_set_msr(&h.s, &h.hw, PMU_OFF, gctl_msr(vd), 1));
		assert_false(pmu_accounting_needed(&h.s));
	}
}

/* The counters whose overflow needs a guest PMI: INT (GP) or PMI (fixed), enabled;
 * pmi_mask keeps a disarmed one until the next overflow check. */
static void test_pmi_mask(void **state)
{
	struct harness h;
	unsigned vd;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		h_init(&h, vd, PMU_SW, 1);
		assert_int_equal(h.s.pmi_mask, 0);
		set(&h, sel_msr(vd, 1), PMU_EVENT_INSTRUCTIONS | PMU_EVTSEL_EN | PMU_EVTSEL_INT);
		set(&h, sel_msr(vd, 2), PMU_EVENT_INSTRUCTIONS | PMU_EVTSEL_INT); /* not enabled */
		set(&h, gctl_msr(vd), 0x7);
		if (vd == PMU_INTEL)
			set(&h, MSR_INTEL_FIXED_CTR_CTRL, PMU_FIXED_OS(0) | PMU_FIXED_PMI(0));
		/* GLOBAL_CTRL does not filter: an overflow's PMI stays due after a
		 * guest disables the counter before mhv sees the exit */
		assert_int_equal(h.s.pmi_mask,
				 BIT(1) | (vd == PMU_INTEL ? PMU_GLOBAL_FIXED(0) : 0));
		set(&h, gctl_msr(vd), 0x5); /* counter 1 disabled globally */
		assert_int_equal(h.s.pmi_mask,
				 BIT(1) | (vd == PMU_INTEL ? PMU_GLOBAL_FIXED(0) : 0));
		set(&h, sel_msr(vd, 1), PMU_EVENT_INSTRUCTIONS | PMU_EVTSEL_EN);
		assert_int_equal(h.s.pmi_armed, vd == PMU_INTEL ? PMU_GLOBAL_FIXED(0) : 0);
		/* disarmed, counter 1 stays checked until the next overflow check:
		 * pmu.flat's WRMSR clearing EN exits before the skidded PMI */
		assert_int_equal(h.s.pmi_mask,
				 BIT(1) | (vd == PMU_INTEL ? PMU_GLOBAL_FIXED(0) : 0));
	}
}

/* What the PMU raised on its interrupt line (struct pmu_pmi_line). */
struct line_log {
	unsigned raised;
	bool mask_on_delivery;
	bool masked; /* the line answers as a masked LVTPC */
};

static bool log_raise(void *ctx, bool mask_on_delivery)
{
	struct line_log *l = ctx;

	l->raised++;
	l->mask_on_delivery = mask_on_delivery;
	return !l->masked;
}

/*
 * An accounted overflow of an armed counter becomes one raise of the
 * line, with Intel's mask-on-delivery rule; nothing fresh, nothing raised;
 * a host PMI since the last check makes the still-set status bit fresh;
 * mode hw raises nothing (the CPU delivers its own overflows).
 */
static void test_pmi_through_line(void **state)
{
	struct harness h;
	struct line_log l;
	unsigned vd, mi;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		for (mi = 0; mi < ARRAY_SIZE(live_modes); mi++) {
			if (!pmu_mode_supported(vd, live_modes[mi]))
				continue;
			h_init(&h, vd, live_modes[mi], 5);
			memset(&l, 0, sizeof(l));
			pmu_set_pmi_line(&h.s, log_raise, &l);
			set(&h, sel_msr(vd, 0),
			    0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_OS | PMU_EVTSEL_INT);
			set(&h, gctl_msr(vd), 1);
			set(&h, cnt_msr(vd, 0), MASK48);
			to_handler(&h);
			assert_true(
			    pmu_account_emulated(&h.s, &h.hw, h.mode, PMU_EV_INSTRUCTIONS, 0));
			pmu_check_overflow(&h.s, &h.hw, h.mode, 0);
			if (h.mode == PMU_HW) {
				assert_int_equal(l.raised, 0);
				assert_true(h.s.pmi_pending); /* left for the backend */
				continue;
			}
			assert_int_equal(l.raised, 1);
			assert_int_equal(l.mask_on_delivery, vd == PMU_INTEL);
			assert_false(h.s.pmi_pending);
			/* the status bit is still set, but nothing overflowed again */
			pmu_check_overflow(&h.s, &h.hw, h.mode, 0);
			assert_int_equal(l.raised, 1);
			/* a host PMI on this CPU: the set bit may be a new overflow */
			pmu_check_overflow(&h.s, &h.hw, h.mode, 1);
			assert_int_equal(l.raised, 2);
			/* the guest cleared the status: nothing left to raise */
			set(&h, gclr_msr(vd), 1);
			pmu_check_overflow(&h.s, &h.hw, h.mode, 2);
			assert_int_equal(l.raised, 2);
			do_entry(&h);
			do_exit(&h, true);
		}
	}
}

/* The outcome the CPU gives a guest WRMSR of base | BIT(b), restated per register. */
enum outcome {
	KEPT,
	DROPPED,
	REFUSED
};

static enum outcome sel_outcome(enum pmu_vendor v, unsigned b)
{
	if (v == PMU_AMD)
		/* reserved, and HostOnly/GuestOnly, which KVM drops for a guest without SVM */
		return b == 19 || b == 21 || (b >= 36 && b <= 39) || b >= 40 ? DROPPED : KEPT;
	if (b == 19 || b == 21)
		return DROPPED; /* PC: not writeable; AnyThread: never written (issue 41) */
	return b >= 32 ? REFUSED : KEPT;
}

static enum outcome counter_bit_outcome(const struct harness *h, unsigned b)
{
	return b < h->m.nr_gp || (b >= 32 && b < 32 + h->m.nr_fixed) ? KEPT : REFUSED;
}

/* One guest write: false (#GP) leaves the register as it was. */
static void try_write(struct harness *h, u32 msr, u64 base, u64 bit, enum outcome want)
{
	bool ok;

	set(h, msr, base);
	ok = pmu_set_msr(&h->s, &h->hw, h->mode, msr, base | bit);
	assert_int_equal(ok, want != REFUSED);
	assert_int_equal(get(h, msr), want == KEPT ? base | bit : base);
}

/*
 * STATUS_SET and STATUS_CLR/OVF_CTRL read 0: the bit shows in GLOBAL_STATUS.
 * AMD ignores the bits of no counter in both (Linux writes bit 58 to
 * StatusClr on every PerfMonV2 CPU); Intel refuses them.
 */
static void try_status(struct harness *h, unsigned b)
{
	enum pmu_vendor vd = h->r.vendor;
	enum outcome want = counter_bit_outcome(h, b);

	if (want == REFUSED && vd == PMU_AMD)
		want = DROPPED;
	u64 before = get(h, gsts_msr(vd));

	assert_int_equal(pmu_set_msr(&h->s, &h->hw, h->mode, gset_msr(vd), BIT(b)),
			 want != REFUSED);
	assert_int_equal(get(h, gsts_msr(vd)), want == KEPT ? before | BIT(b) : before);
	assert_int_equal(pmu_set_msr(&h->s, &h->hw, h->mode, gclr_msr(vd), BIT(b)),
			 want != REFUSED);
	assert_int_equal(get(h, gsts_msr(vd)), want == KEPT ? before & ~BIT(b) : before);
}

/*
 * Every bit of every intercepted control: kept, dropped or #GP as the CPU
 * does, in every mode and wherever the state lives; the model fails on any
 * WRMSR the CPU would refuse and on AnyThread.
 */
static void test_reserved_bits(void **state)
{
	static const u64 sel_base = 0xc0 | PMU_EVTSEL_OS | PMU_EVTSEL_USR | PMU_EVTSEL_EN;
	struct harness h;
	unsigned vd, mi, b, i;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		for (mi = 0; mi < ARRAY_SIZE(live_modes); mi++) {
			if (!pmu_mode_supported(vd, live_modes[mi]))
				continue;
			h_init(&h, vd, live_modes[mi], 13);
			for (b = 0; b < 64; b++) {
				/* put, loaded or in the VMCB: each path filters */
				if (b % 3 == 0)
					to_handler(&h);
				for (i = 0; i < h.r.nr_gp; i += h.r.nr_gp - 1)
					try_write(&h, sel_msr(vd, i), sel_base, BIT(b),
						  sel_outcome(vd, b));
				try_write(&h, gctl_msr(vd), 1, BIT(b), counter_bit_outcome(&h, b));
				try_status(&h, b);
				if (vd == PMU_INTEL)
					try_write(&h, MSR_INTEL_FIXED_CTR_CTRL, PMU_FIXED_OS(0),
						  BIT(b),
						  b >= 4 * h.r.nr_fixed ? REFUSED
						  : b % 4 == 2		? DROPPED
									: KEPT);
				else
					assert_false(pmu_set_msr(&h.s, &h.hw, h.mode,
								 MSR_INTEL_FIXED_CTR_CTRL, 0));
				do_entry(&h);
				do_exit(&h, b & 1);
			}
		}
	}
}

/* Random guest values into every intercepted control: every WRMSR that follows is legal. */
static void test_guest_values_reach_pmu_legal(void **state)
{
	struct harness h;
	unsigned vd, mi, n, i;
	u32 msr;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		for (mi = 0; mi < ARRAY_SIZE(live_modes); mi++) {
			if (!pmu_mode_supported(vd, live_modes[mi]))
				continue;
			h_init(&h, vd, live_modes[mi], 17);
			for (n = 0; n < 3000; n++) {
				u64 v = rnd(&h);

				/* sparse values too, so that some pass */
				if (n & 1)
					v &= rnd(&h) & rnd(&h);
				switch (rnd(&h) % 6) {
				case 0:
				case 1:
					msr = sel_msr(vd, rnd(&h) % h.r.nr_gp);
					break;
				case 2:
					msr = gctl_msr(vd);
					break;
				case 3:
					msr = (n & 2) ? gset_msr(vd) : gclr_msr(vd);
					break;
				case 4:
					msr = vd == PMU_INTEL ? MSR_INTEL_FIXED_CTR_CTRL
							      : gctl_msr(vd);
					break;
				default:
					msr = cnt_msr(vd, rnd(&h) % h.r.nr_gp);
					break;
				}
				pmu_set_msr(&h.s, &h.hw, h.mode, msr, v);
				for (i = 0; i < h.r.nr_gp; i++)
					assert_int_equal(
					    h.s.eventsel[i] & (vd == PMU_INTEL ? BIT(21) : 0), 0);
				if (rnd(&h) % 4 == 0) {
					do_entry(&h);
					m_tick(&h.m, true, rnd(&h) % 64);
					do_exit(&h, rnd(&h) & 1);
					pmu_account_emulated(&h.s, &h.hw, h.mode,
							     PMU_EV_INSTRUCTIONS | PMU_EV_BRANCHES,
							     rnd(&h) & 3);
				}
			}
			do_entry(&h);
			do_exit(&h, true);
		}
	}
}

/*
 * The backends let intercepted MSR accesses skip the switch while the PMU is
 * quiet unless pmu_vcpu_msr_write_needs_switch says the write needs it: no
 * read, and no other write, may change pmu_exit_quiet or what the next VM
 * entry loads (vmcs_global_ctrl); of those it names, GLOBAL_CTRL does not
 * change pmu_exit_quiet either.
 */
static void test_quiet_wake_rule(void **state)
{
	static const enum pmu_mode modes[] = { PMU_SW_LAZY, PMU_HW };
	struct harness h;
	unsigned vd, mi, n, i, woke = 0;

	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		u32 msrs[3 * PMU_MAX_GP + PMU_MAX_FIXED + 8];
		unsigned nr = 0;

		for (i = 0; i < (vd == PMU_AMD ? PMU_AMD_MAX_GP : PMU_MAX_GP); i++) {
			msrs[nr++] = sel_msr(vd, i);
			msrs[nr++] = cnt_msr(vd, i);
		}
		for (i = 0; vd == PMU_INTEL && i < PMU_MAX_FIXED; i++)
			msrs[nr++] = MSR_INTEL_FIXED_CTR(i);
		msrs[nr++] = MSR_INTEL_FIXED_CTR_CTRL;
		msrs[nr++] = gctl_msr(vd);
		msrs[nr++] = gsts_msr(vd);
		msrs[nr++] = gclr_msr(vd);
		msrs[nr++] = gset_msr(vd);
		for (mi = 0; mi < ARRAY_SIZE(modes); mi++) {
			if (!pmu_mode_supported(vd, modes[mi]))
				continue;
			h_init(&h, vd, modes[mi], 23);
			to_handler(&h);
			for (n = 0; n < 4000; n++) {
				u32 msr = msrs[rnd(&h) % nr];
				u64 vmcs_gctl = h.s.vmcs_global_ctrl;
				bool quiet;

				/* now and then the overflow check before an entry
				 * (pmu_vcpu.c), which lets go of disarmed counters */
				if (rnd(&h) % 4 == 0)
					h.s.pmi_mask = h.s.pmi_armed;
				quiet = pmu_exit_quiet(&h.s, h.mode);
				/* zeros too, so that whole quiet spells come back */
				u64 v = rnd(&h) % 3 ? rnd(&h) & rnd(&h) : 0;

				/* mostly values Intel takes: no reserved bit, no AnyThread */
				if (vd == PMU_INTEL && msr == MSR_INTEL_FIXED_CTR_CTRL)
					v &= 0xbbb;
				else if (vd == PMU_INTEL && (n & 1))
					v &= 0x5fffff;

				if (rnd(&h) & 1) {
					pmu_get_msr(&h.s, &h.hw, h.mode, msr, &v);
					assert_int_equal(pmu_exit_quiet(&h.s, h.mode), quiet);
					continue;
				}
				pmu_set_msr(&h.s, &h.hw, h.mode, msr, v);
				if (!pmu_vcpu_msr_write_needs_switch(msr))
					assert_int_equal(h.s.vmcs_global_ctrl, vmcs_gctl);
				if (!pmu_vcpu_msr_write_needs_switch(msr) ||
				    msr == MSR_INTEL_GLOBAL_CTRL)
					assert_int_equal(pmu_exit_quiet(&h.s, h.mode), quiet);
				else if (pmu_exit_quiet(&h.s, h.mode) != quiet)
					woke++;
			}
			do_entry(&h);
			do_exit(&h, true);
		}
	}
	assert_true(woke >= 20); /* the selects do wake it, and quiet it again */
	/* Neither vendor's legacy selects nor the exits the benchmark writes. */
	for (i = 0; i < K7_COUNTERS; i++)
		assert_true(pmu_vcpu_msr_write_needs_switch(MSR_K7_PERF_CTL(i)));
	assert_false(pmu_vcpu_msr_write_needs_switch(0x3b));  /* IA32_TSC_ADJUST */
	assert_false(pmu_vcpu_msr_write_needs_switch(0x830)); /* x2APIC ICR */
	assert_false(pmu_vcpu_msr_write_needs_switch(0x80b)); /* x2APIC EOI */
}

/*
 * Intel TSX in the guest's CPUID: IN_TX is kept on every event select,
 * IN_TXCP on PERFEVTSEL2 alone and refused elsewhere, both reach the
 * model (which refuses them anywhere else) through every path; a select
 * with IN_TX counts no emulated instruction (an exit aborts a transaction).
 */
/*
 * Linux's amd_pmu_cpu_reset writes GLOBAL_STATUS_LBRS_FROZEN (bit 58) with
 * the counter bits to StatusClr on every PerfMonV2 CPU (commit
 * 23d2626b841c): 0x040000000000003f with six counters.  Hardware takes it
 * (issue 28); mhv clears the counter bits, keeps bit 58 out of the PMU
 * (the model fails a reserved bit) and raises no #GP, in every mode and
 * wherever the state lives.
 */
static void test_amd_status_clr_lbr_freeze(void **state)
{
	struct harness h;
	unsigned mi, where;

	for (mi = 0; mi < ARRAY_SIZE(live_modes); mi++) {
		for (where = 0; where < 2; where++) {
			h_init(&h, PMU_AMD, live_modes[mi], 29);
			if (where)
				to_handler(&h);
			set(&h, MSR_AMD_GLOBAL_STATUS_SET, 0x21);
			assert_true(pmu_set_msr(&h.s, &h.hw, h.mode, MSR_AMD_GLOBAL_STATUS_CLR,
						0x040000000000003full));
			assert_int_equal(get(&h, MSR_AMD_GLOBAL_STATUS), 0);
			assert_true(pmu_set_msr(&h.s, &h.hw, h.mode, MSR_AMD_GLOBAL_STATUS_SET,
						BIT(58) | BIT(1)));
			assert_int_equal(get(&h, MSR_AMD_GLOBAL_STATUS), BIT(1));
			do_entry(&h);
			do_exit(&h, false);
			assert_int_equal(get(&h, MSR_AMD_GLOBAL_STATUS), BIT(1));
		}
	}
	/* Intel's OVF_CTRL: a bit of no counter is #GP (SDM Vol 4 Table 2-2) */
	h_init(&h, PMU_INTEL, PMU_SW, 29);
	assert_false(pmu_set_msr(&h.s, &h.hw, h.mode, MSR_INTEL_GLOBAL_OVF_CTRL, BIT(57)));
}

static void test_tsx_qualifiers(void **state)
{
	static const u64 insn = 0xc0 | PMU_EVTSEL_OS | PMU_EVTSEL_USR | PMU_EVTSEL_EN;
	struct harness h;
	unsigned mi, n;

	for (mi = 0; mi < ARRAY_SIZE(live_modes); mi++) {
		if (!pmu_mode_supported(PMU_INTEL, live_modes[mi]))
			continue;
		h_init(&h, PMU_INTEL, live_modes[mi], 23);
		h.m.tsx = true;
		pmu_allow_tsx_qualifiers(&h.s);
		for (n = 0; n < 3; n++) {
			if (n == 1)
				to_handler(&h);
			try_write(&h, sel_msr(PMU_INTEL, 0), insn, BIT(32), KEPT);
			try_write(&h, sel_msr(PMU_INTEL, 1), insn, BIT(33), REFUSED);
			try_write(&h, sel_msr(PMU_INTEL, 2), insn, BIT(32) | BIT(33), KEPT);
			try_write(&h, sel_msr(PMU_INTEL, 3), insn, BIT(34), REFUSED);
			assert_int_equal(h.s.acct_insn & 0x5, 0);
			do_entry(&h);
			do_exit(&h, n & 1);
		}
	}
	/* AMD has neither: its selects' bits 33:32 are EventSelect[9:8]. */
	h_init(&h, PMU_AMD, PMU_SW, 23);
	pmu_allow_tsx_qualifiers(&h.s);
	try_write(&h, sel_msr(PMU_AMD, 0), 0xc0, BIT(32), KEPT);
	try_write(&h, sel_msr(PMU_AMD, 2), 0xc0, BIT(42), DROPPED);
}

static void test_names(void **state)
{
	assert_string_equal(pmu_mode_name(PMU_OFF), "off");
	assert_string_equal(pmu_mode_name(PMU_SW), "sw");
	assert_string_equal(pmu_mode_name(PMU_SW_NOELIDE), "sw-noelide");
	assert_string_equal(pmu_mode_name(PMU_SW_LAZY), "sw-lazy");
	assert_string_equal(pmu_mode_name(PMU_HW), "hw");
	assert_false(pmu_mode_supported(PMU_INTEL, PMU_HW));
	assert_true(pmu_mode_supported(PMU_AMD, PMU_HW));
}

struct ops {
	unsigned rdpmc, rdmsr, wrmsr;
};

static struct ops take_ops(struct model *m)
{
	struct ops o = { m->n_rdpmc, m->n_rdmsr, m->n_wrmsr };

	reset_ops(m);
	return o;
}

/*
 * One exit round trip (exit -> handler -> entry) in steady state, guest with
 * counter 0 on instructions and counter 1 on cycles, the rest zero.  The
 * second column group adds one emulated instruction at CPL 0 (a CPUID exit).
 */
static void test_op_table(void **state)
{
	struct harness h;
	unsigned vd, mode, acct;
	struct ops o[2];

	printf("\nPMU MSR/RDPMC operations per exit round trip (exit -> handler -> "
	       "entry)\n");
	printf("guest: 2 counters enabled (instructions, cycles), others 0; 48-bit "
	       "counters\n");
	printf("%-6s %-11s | %5s %5s %5s %5s | %5s %5s %5s %5s\n", "vendor", "mode", "rdpmc",
	       "rdmsr", "wrmsr", "total", "rdpmc", "rdmsr", "wrmsr", "total");
	printf("%-6s %-11s | %-23s | %-23s\n", "", "", "  plain exit", "  + 1 emulated insn");
	for (vd = PMU_AMD; vd <= PMU_INTEL; vd++) {
		for (mode = 0; mode < PMU_MODE_COUNT; mode++) {
			const char *vn = vd == PMU_AMD ? "amd" : "intel";

			if (!pmu_mode_supported(vd, mode)) {
				printf("%-6s %-11s | %-23s | %-23s\n", vn, pmu_mode_name(mode),
				       "  n/a", "  n/a");
				continue;
			}
			h_init(&h, vd, mode, 11);
			if (mode != PMU_OFF) {
				set(&h, sel_msr(vd, 0),
				    0xc0 | PMU_EVTSEL_EN | PMU_EVTSEL_OS | PMU_EVTSEL_USR);
				set(&h, sel_msr(vd, 1),
				    (vd == PMU_AMD ? 0x76 : 0x3c) | PMU_EVTSEL_EN | PMU_EVTSEL_OS |
					PMU_EVTSEL_USR);
				set(&h, gctl_msr(vd), 0x3);
			}
			do_entry(&h);
			for (acct = 0; acct < 3; acct++) {
				m_tick(&h.m, true, 1000);
				reset_ops(&h.m);
				do_exit(&h, false);
				if (acct)
					pmu_account_emulated(&h.s, &h.hw, h.mode,
							     PMU_EV_INSTRUCTIONS, 0);
				do_entry(&h);
				/* Round 0 warms up (lazy's first load happens there). */
				if (acct)
					o[acct - 1] = take_ops(&h.m);
				else
					take_ops(&h.m);
			}
			/* Rounds 1 and 2 both account; recompute a plain one. */
			m_tick(&h.m, true, 1000);
			reset_ops(&h.m);
			do_exit(&h, false);
			do_entry(&h);
			o[0] = take_ops(&h.m);
			printf("%-6s %-11s | %5u %5u %5u %5u | %5u %5u %5u %5u\n", vn,
			       pmu_mode_name(mode), o[0].rdpmc, o[0].rdmsr, o[0].wrmsr,
			       o[0].rdpmc + o[0].rdmsr + o[0].wrmsr, o[1].rdpmc, o[1].rdmsr,
			       o[1].wrmsr, o[1].rdpmc + o[1].rdmsr + o[1].wrmsr);
		}
	}
	fflush(stdout);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_pmi_mask),
		cmocka_unit_test(test_pmi_through_line),
		cmocka_unit_test(test_host_guest_only_per_mode),
		cmocka_unit_test(test_elision),
		cmocka_unit_test(test_floors),
		cmocka_unit_test(test_floor_writes_changes),
		cmocka_unit_test(test_host_never_counts),
		cmocka_unit_test(test_hw_clears_global_ctl),
		cmocka_unit_test(test_hw_vmcb_home),
		cmocka_unit_test(test_quiet_exits),
		cmocka_unit_test(test_quiet_wake_rule),
		cmocka_unit_test(test_accounting),
		cmocka_unit_test(test_cpl_filter),
		cmocka_unit_test(test_random_sequences),
		cmocka_unit_test(test_reserved_bits),
		cmocka_unit_test(test_amd_status_clr_lbr_freeze),
		cmocka_unit_test(test_tsx_qualifiers),
		cmocka_unit_test(test_guest_values_reach_pmu_legal),
		cmocka_unit_test(test_op_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
