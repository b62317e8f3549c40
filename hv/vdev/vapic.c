// SPDX-License-Identifier: MIT
/*
 * The virtual local APIC's registers behind the xAPIC page and the x2APIC
 * MSRs, its IA32_APIC_BASE modes and interrupt delivery (see vapic.h).
 */
#include "vapic_priv.h"
#include "ioapic.h"
#include "core/backend.h"
#include "platform/host_timer.h"
#include "arch/x86.h"
#include "lib/nospec.h"

#define APIC_VERSION_VALUE 0x50014 /* version 0x14, max LVT entry 5 */

/* ISR: only this vCPU's CPU touches it. */
static void set_bit256(u32 *map, u8 v)
{
	map[v / 32] |= 1u << (v % 32);
}

static void clear_bit256(u32 *map, u8 v)
{
	map[v / 32] &= ~(1u << (v % 32));
}

static void irr_clear(u32 *irr, u8 v)
{
	asm volatile("lock btrl %1, %0" : "+m"(irr[v / 32]) : "r"((u32)(v % 32)) : "memory");
}

static int highest_bit256(const u32 *map)
{
	int i;

	for (i = 7; i >= 0; i--)
		if (map[i])
			return i * 32 + 31 - __builtin_clz(map[i]);
	return -1;
}

/* The register state after power-up or INIT (SDM Vol 3 §11.4.7.1). */
static void registers_reset(struct vapic *apic)
{
	u64 base = apic->base;
	u8 *cr8 = apic->cr8, cr8_shift = apic->cr8_shift;

	__builtin_memset(apic, 0, sizeof(*apic));
	apic->base = base;
	apic->cr8 = cr8;
	apic->cr8_shift = cr8_shift;
	if (cr8)
		*cr8 = 0; /* the TPR, and with it CR8 */
	apic->svr = 0xff;
	apic->dfr = 0xffffffff;
	apic->lvt_pmc = LVT_MASKED;
	for (unsigned i = 0; i < ARRAY_SIZE(apic->lvt_other); i++)
		apic->lvt_other[i] = LVT_MASKED;
	apic_timer_reset(apic);
}

void apic_reset(struct vapic *apic, bool bsp, bool x2apic)
{
	apic->base = APIC_DEFAULT_BASE | APIC_BASE_EN | (bsp ? APIC_BASE_BSP : 0) |
		     (x2apic ? APIC_BASE_EXTD : 0);
	registers_reset(apic);
}

/*
 * Mode changes through IA32_APIC_BASE (SDM Vol 3 §11.12.5, Figure 11-27):
 * EXTD without EN is invalid, and so are x2APIC -> xAPIC and disabled ->
 * x2APIC.  Disabling loses the APIC's state (§11.4.3).  The base stays
 * at 0xFEE00000: moving the page is not offered.  BSP is read-only.
 * EXTD is reserved where CPUID.1:ECX[21] has no x2APIC (§11.12.1): a VM
 * without one never enters x2APIC mode, so its x2APIC MSRs #GP.
 */
bool apic_base_write(struct vcpu *vcpu, u64 val)
{
	struct vapic *apic = &vcpu->apic;
	u64 old = apic->base;
	bool en = val & APIC_BASE_EN, extd = val & APIC_BASE_EXTD;

	if ((val & ~(APIC_BASE_BSP | APIC_BASE_EN | APIC_BASE_EXTD)) != APIC_DEFAULT_BASE ||
	    (val & APIC_BASE_BSP) != (old & APIC_BASE_BSP) || (extd && !en) ||
	    (extd && !vcpu_has_x2apic(vcpu)))
		return false;
	if ((old & APIC_BASE_EXTD) && en && !extd)
		return false;
	if (!(old & APIC_BASE_EN) && extd)
		return false;
	apic->base = val;
	if (!en && (old & APIC_BASE_EN)) {
		registers_reset(apic);
		host_timer_disarm(vcpu->timer, TIMER_GUEST_APIC);
		backend->request_interrupt_window(vcpu, false);
	}
	return true;
}

/* The TPR's bits 7:4 (its priority class), read where CR8 keeps them:
 * inline, it is on the self-IPI and timer paths. */
static inline __attribute__((always_inline)) u32 tpr_class(const struct vapic *apic)
{
	return ((u32)*apic->cr8 << apic->cr8_shift) & 0xf0;
}

/* The whole TPR.  A 4-bit CR8 (SVM) keeps only the class: bits 3:0
 * are those written through the APIC while the class is unchanged, as a
 * MOV to CR8 would have cleared them (SDM Vol 3 §11.8.6). */
static u32 tpr_read(const struct vapic *apic)
{
	u32 t = ((u32)*apic->cr8 << apic->cr8_shift) & 0xff;

	return apic->cr8_shift && t == (apic->tpr & 0xf0) ? apic->tpr : t;
}

static inline __attribute__((always_inline)) void tpr_write(struct vapic *apic, u8 val)
{
	apic->tpr = val;
	*apic->cr8 = val >> apic->cr8_shift;
}

static u32 isr_class(const struct vapic *apic)
{
	int isr = highest_bit256(apic->isr);

	return isr < 0 ? 0 : (u32)isr & 0xf0;
}

/* Processor priority: the higher of TPR and the in-service class (§11.8.3.1) */
static u32 ppr(const struct vapic *apic)
{
	u32 tpr = tpr_read(apic), isr = isr_class(apic);

	return (tpr & 0xf0) >= isr ? tpr : isr;
}

/*
 * Pending vector @v's class is above the PPR's (§11.8.3.1).  Only the ISR
 * words from @v's up can hold a class as high as its: an in-service
 * vector below @v's 32-vector word is of a lower class, so the scan stops
 * there.
 */
static inline __attribute__((always_inline)) bool above_ppr(const struct vapic *apic, int v)
{
	u32 tpr = tpr_class(apic), isr = 0;
	int i;

	for (i = 7; i >= v / 32; i--) {
		if (apic->isr[i]) {
			isr = (u32)(i * 32 + 31 - __builtin_clz(apic->isr[i])) & 0xf0;
			break;
		}
	}
	return ((u32)v & 0xf0) > (tpr >= isr ? tpr : isr);
}

int apic_deliverable_vector(const struct vapic *apic)
{
	int v = highest_bit256(apic->irr);

	return v >= 0 && above_ppr(apic, v) ? v : -1;
}

/*
 * An NMI is taken before interrupts (SDM Vol 3 §6.9, Table 6-2); the
 * guest blocks further ones until its handler's IRET (§6.7.1).  An
 * interrupt queued for entry, not yet delivered, goes back to the IRR for
 * it (backend.h, take_back_interrupt), and is put back in the queue when
 * something else (a shadow, an earlier NMI's handler) holds the NMI.
 */
static __attribute__((noinline)) void deliver_nmi(struct vcpu *vcpu)
{
	if (!backend->nmi_allowed(vcpu)) {
		int v = backend->take_back_interrupt ? backend->take_back_interrupt(vcpu) : -1;

		if (v >= 0 && backend->nmi_allowed(vcpu)) {
			apic_requeue(vcpu, (u8)v);
		} else {
			if (v >= 0)
				backend->inject_interrupt(vcpu, (u8)v);
			backend->request_nmi_window(vcpu);
			return;
		}
	}
	__atomic_store_n(&vcpu->nmi_pending, 0, __ATOMIC_RELAXED);
	backend->inject_nmi(vcpu);
}

/* Inlined into this file's timer and x2APIC paths, as it was before the
 * NMI check grew it: no call on those benchmarked paths. */
__attribute__((always_inline)) inline void apic_update_interrupts(struct vcpu *vcpu)
{
	int v;

	if (unlikely(vcpu->nmi_pending)) /* set by other vCPUs: read once per call */
		deliver_nmi(vcpu);
	v = highest_bit256(vcpu->apic.irr);

	/* Nothing pending: no window is open either, as one opens only for a
	 * pending vector and closes when that is delivered (or the APIC is
	 * disabled).  An EOI or TPR write with nothing pending stops here. */
	if (v < 0)
		return;
	if (!above_ppr(&vcpu->apic, v)) {
		backend->request_interrupt_window(vcpu, false);
		return;
	}
	if (!backend->interrupt_allowed(vcpu)) {
		backend->request_interrupt_window(vcpu, true);
		return;
	}
	backend->request_interrupt_window(vcpu, false);
	irr_clear(vcpu->apic.irr, v);
	set_bit256(vcpu->apic.isr, v);
	backend->inject_interrupt(vcpu, v);
}

void apic_requeue(struct vcpu *vcpu, u8 vector)
{
	clear_bit256(vcpu->apic.isr, vector);
	irr_set(vcpu->apic.irr, vector);
}

void apic_poll_timer(struct vcpu *vcpu)
{
	apic_timer_check(vcpu);
}

u64 apic_timer_due(const struct vcpu *vcpu)
{
	const struct vapic *apic = &vcpu->apic;
	bool deadline_mode = (apic->lvt_timer & LVT_TIMER_MODE_MASK) == LVT_TIMER_TSC_DEADLINE;
	u64 due = deadline_mode ? apic->tsc_deadline : apic->timer_next;
	u64 offset = deadline_mode ? vcpu->tsc_offset : 0; /* the guest's TSC (msr.c) */

	return (apic->lvt_timer & LVT_MASKED) || !due ? 0 : due - offset;
}

/* A level-triggered vector's EOI goes to the I/O APIC (§11.8.4). */
static __attribute__((noinline, cold)) void level_eoi(struct vcpu *vcpu, u8 v)
{
	if (vcpu->apic.tmr[v / 32] & (1u << (v % 32)))
		ioapic_eoi(vcpu, v);
}

/* One register file behind both interfaces; @x2 picks the x2APIC forms. */
/* Inlined into each interface, so that @x2 is a constant there. */
static inline __attribute__((always_inline)) bool reg_read(struct vcpu *vcpu, u32 reg, u64 *val,
							   bool x2)
{
	const struct vapic *apic = &vcpu->apic;
	u32 v32;

	if (reg >= APIC_ISR && reg < APIC_ISR + 0x80) {
		*val = apic->isr[(reg - APIC_ISR) >> 4];
		return true;
	}
	if (reg >= APIC_IRR && reg < APIC_IRR + 0x80) {
		*val = apic->irr[(reg - APIC_IRR) >> 4];
		return true;
	}
	if (reg >= APIC_TMR && reg < APIC_TMR + 0x80) {
		*val = apic->tmr[(reg - APIC_TMR) >> 4];
		return true;
	}
	switch (reg) {
	case APIC_LVT_TIMER:
	case APIC_TIMER_INITIAL:
	case APIC_TIMER_CURRENT:
	case APIC_TIMER_DIVIDE:
		apic_timer_read(apic, reg, &v32);
		*val = v32;
		return true;
	case APIC_ID:
		/* x2APIC ID = vCPU number; xAPIC keeps it in bits 31:24 (§11.4.6) */
		*val = x2 ? vcpu->index : vcpu->index << 24;
		return true;
	case APIC_VERSION:
		*val = APIC_VERSION_VALUE;
		return true;
	case APIC_TPR:
		*val = tpr_read(apic);
		return true;
	case APIC_PPR:
		*val = ppr(apic);
		return true;
	case APIC_LDR:
		/* x2APIC: cluster ID << 16 | 1 << (ID & 15) (§11.12.10.2) */
		*val = x2 ? (vcpu->index >> 4) << 16 | 1u << (vcpu->index & 15) : apic->ldr;
		return true;
	case APIC_SVR:
		*val = apic->svr;
		return true;
	case APIC_ESR:
	case APIC_APR:
		*val = 0;
		return true;
	case APIC_ICR:
		*val = x2 ? apic->icr : (u32)apic->icr; /* delivery status: always idle */
		return true;
	case APIC_LVT_PMC:
		*val = apic->lvt_pmc;
		return true;
	case APIC_LVT_THERMAL:
	case APIC_LVT_LINT0:
	case APIC_LVT_LINT0 + 0x10:
	case APIC_LVT_ERROR:
		*val =
		    apic->lvt_other[reg == APIC_LVT_THERMAL ? 0 : (reg - APIC_LVT_LINT0) / 16 + 1];
		return true;
	}
	if (x2)
		return false; /* includes write-only EOI and SELF IPI (§11.12.1.2) */
	switch (reg) {
	case APIC_DFR:
		*val = apic->dfr;
		return true;
	case APIC_ICR_HIGH:
		*val = apic->icr_high;
		return true;
	}
	return false;
}

static inline __attribute__((always_inline)) bool reg_write(struct vcpu *vcpu, u32 reg, u64 val,
							    bool x2)
{
	struct vapic *apic = &vcpu->apic;

	/* the exits the benchmarks take, before the switch's search */
	if (reg == APIC_SELF_IPI && x2) {
		apic_accept(vcpu, val & 0xff);
		return true;
	}
	switch (reg) {
	case APIC_LVT_TIMER:
	case APIC_TIMER_INITIAL:
	case APIC_TIMER_DIVIDE:
		return apic_timer_write(vcpu, reg, (u32)val);
	case APIC_TPR:
		tpr_write(apic, (u8)val);
		break;
	case APIC_EOI: {
		int v = highest_bit256(apic->isr);

		if (v >= 0) {
			clear_bit256(apic->isr, v);
			if (unlikely(apic->tmr_used))
				level_eoi(vcpu, (u8)v);
		}
		break;
	}
	case APIC_SVR:
		apic->svr = val & 0x1ff;
		return true;
	case APIC_ESR:
		return true; /* x2APIC: only 0 gets here (x2apic_rules) */
	case APIC_ICR:
		if (x2) {
			apic->icr = val;
			apic_send_ipi(vcpu, val, val >> 32, true);
		} else {
			apic->icr = (u32)val;
			apic_send_ipi(vcpu, (u32)val, apic->icr_high >> 24, false);
		}
		return true;
	case APIC_LVT_PMC:
		/* vector, delivery mode (fixed or NMI), mask (SDM Vol 3 Figure 11-8) */
		apic->lvt_pmc = val & (0xff | LVT_DELIVERY_MODE_MASK | LVT_MASKED);
		return true;
	case APIC_LVT_THERMAL:
	case APIC_LVT_LINT0:
	case APIC_LVT_LINT0 + 0x10:
	case APIC_LVT_ERROR:
		apic->lvt_other[reg == APIC_LVT_THERMAL ? 0 : (reg - APIC_LVT_LINT0) / 16 + 1] =
		    val & 0x1f7ff;
		return true;
	case APIC_SELF_IPI:
		return false; /* x2APIC only, taken above */
	case APIC_LDR:
		if (x2)
			return false; /* read-only in x2APIC mode */
		apic->ldr = val & 0xff000000u;
		return true;
	case APIC_DFR:
		if (x2)
			return false;
		apic->dfr = val | 0x0fffffffu;
		return true;
	case APIC_ICR_HIGH:
		if (x2)
			return false;
		apic->icr_high = val & 0xff000000u;
		return true;
	default:
		return false;
	}
	/* TPR and EOI change what is deliverable */
	apic_update_interrupts(vcpu);
	return true;
}

bool apic_tsc_deadline_read(struct vcpu *vcpu, u64 *val)
{
	*val = vcpu->apic.tsc_deadline; /* 0 in other modes: cleared on mode change */
	return true;
}

/*
 * The x2APIC MSRs #GP outside x2APIC mode (SDM Vol 3 §11.12.2), and in
 * it as x2apic_rules says (§11.12.1.2, §11.12.1.3).
 */
bool apic_msr_read(struct vcpu *vcpu, u32 msr, u64 *val)
{
	u32 i = msr - X2APIC_MSR_BASE;

	if (!apic_x2apic_mode(&vcpu->apic) || i >= X2APIC_NR_REGS ||
	    !x2apic_rules[array_index_nospec(i, X2APIC_NR_REGS)].read)
		return false;
	return reg_read(vcpu, i << 4, val, true);
}

bool apic_msr_write(struct vcpu *vcpu, u32 msr, u64 val)
{
	u32 i = msr - X2APIC_MSR_BASE;

	if (unlikely(!apic_x2apic_mode(&vcpu->apic)))
		return false;
	/*
	 * The benchmarks' exits (self-IPI, EOI, TPR) before the table, each
	 * with its rule of x2apic_rules in one compare: the table's look-up
	 * cost them a tenth more instructions.
	 */
	switch (i) {
	case APIC_SELF_IPI >> 4:
		return likely(val <= 0xff) && reg_write(vcpu, APIC_SELF_IPI, val, true);
	case APIC_EOI >> 4:
		return likely(!val) && reg_write(vcpu, APIC_EOI, 0, true);
	case APIC_TPR >> 4:
		return likely(val <= 0xff) && reg_write(vcpu, APIC_TPR, val, true);
	}
	if (unlikely(i >= X2APIC_NR_REGS))
		return false;
	i = array_index_nospec(i, X2APIC_NR_REGS);
	if (unlikely(!x2apic_rules[i].write || (val & x2apic_rules[i].rsvd)))
		return false;
	return reg_write(vcpu, i << 4, val, true);
}

/* The guest's TSC moved: its deadline, in the guest's TSC, now falls at another host TSC. */
void apic_tsc_changed(struct vcpu *vcpu)
{
	apic_timer_check(vcpu);
}

/* IA32_TSC_DEADLINE is not an x2APIC register: any enabled mode; ignored
 * while the LVT timer is in another mode (§11.5.4.1). */
bool apic_tsc_deadline_write(struct vcpu *vcpu, u64 val)
{
	struct vapic *apic = &vcpu->apic;

	if (unlikely(!apic_enabled(apic)) ||
	    unlikely((apic->lvt_timer & LVT_TIMER_MODE_MASK) != LVT_TIMER_TSC_DEADLINE))
		return true;
	apic->tsc_deadline = val;
	apic_timer_check(vcpu);
	return true;
}

/* The xAPIC page answers only when enabled and not in x2APIC mode
 * (§11.12.1.2); reserved registers read 0 and ignore writes here. */
bool apic_mmio_read(struct vcpu *vcpu, u32 offset, u32 *val)
{
	u64 v = 0;

	if (!apic_enabled(&vcpu->apic) || apic_x2apic_mode(&vcpu->apic))
		return false;
	reg_read(vcpu, offset & 0xff0, &v, false);
	*val = (u32)v;
	return true;
}

bool apic_mmio_write(struct vcpu *vcpu, u32 offset, u32 val)
{
	if (!apic_enabled(&vcpu->apic) || apic_x2apic_mode(&vcpu->apic))
		return false;
	reg_write(vcpu, offset & 0xff0, val, false);
	return true;
}

/*
 * A counter overflow with its interrupt enabled, through the LVTPC as
 * programmed: fixed delivery raises its vector, NMI delivery an NMI (Linux
 * programs the LVTPC that way, SDM Vol 3 §11.5.1).  Intel's APIC sets the
 * LVTPC mask when it handles a PMI, so the handler unmasks it (SDM Vol 3
 * §11.5.1); AMD's does not (Linux's
 * amd_pmu_v2_handle_irq relies on it; KVM masks only for Intel-compatible
 * guests), hence mask_on_delivery from the caller.  Other modes (SMI,
 * INIT, ExtINT) mhv does not offer: no PMI, as masked.
 */
bool apic_raise_pmi(struct vcpu *vcpu, bool mask_on_delivery)
{
	struct vapic *apic = &vcpu->apic;
	u32 lvt = apic->lvt_pmc, mode = lvt & LVT_DELIVERY_MODE_MASK;

	if ((lvt & LVT_MASKED) || (mode != LVT_DELIVERY_FIXED && mode != LVT_DELIVERY_NMI))
		return false;
	if (mask_on_delivery)
		apic->lvt_pmc |= LVT_MASKED;
	if (mode == LVT_DELIVERY_NMI) {
		__atomic_store_n(&vcpu->nmi_pending, 1, __ATOMIC_RELAXED);
		apic_update_interrupts(vcpu);
	} else {
		apic_accept(vcpu, lvt & 0xff);
	}
	return true;
}
