/* SPDX-License-Identifier: MIT */
/* Shared by vapic.c (registers, IPIs) and vapic_timer.c (the LVT timer). */
#ifndef MHV_VAPIC_PRIV_H
#define MHV_VAPIC_PRIV_H

#include "vapic.h"
#include "platform/host_timer.h"
#include "core/vm.h"
#include "arch/apic.h"
#include "arch/x86.h"

/* IRR: another vCPU's CPU may set a bit at any time (an IPI), so one
 * locked bit instruction each (LOCK BTS/BTR, SDM Vol 2A). */
static inline void irr_set(u32 *irr, u8 v)
{
	asm volatile("lock btsl %1, %0" : "+m"(irr[v / 32]) : "r"((u32)(v % 32)) : "memory");
}

/*
 * Acceptance into IRR sets the vector's TMR bit for a level-triggered
 * interrupt, clears it for an edge one (SDM Vol 3 §11.8.4).  Only the
 * I/O APIC sends level interrupts: until it has, the TMR is clear and an
 * edge acceptance (IPIs, the LVT timer) costs one test of tmr_used.
 */
static inline void tmr_update(struct vapic *apic, u8 v, bool level)
{
	if (level) {
		apic->tmr_used = true;
		asm volatile("lock btsl %1, %0"
			     : "+m"(apic->tmr[v / 32])
			     : "r"((u32)(v % 32))
			     : "memory");
	} else if (unlikely(apic->tmr_used)) {
		asm volatile("lock btrl %1, %0"
			     : "+m"(apic->tmr[v / 32])
			     : "r"((u32)(v % 32))
			     : "memory");
	}
}

/* Inlined: it is the self-IPI and timer path of the benchmarks. */
static inline __attribute__((always_inline)) void apic_accept(struct vcpu *vcpu, u8 vector)
{
	/* Vectors 0-15 are illegal for fixed delivery (§11.5.3): ignored. */
	if (vector < 16)
		return;
	tmr_update(&vcpu->apic, vector, false);
	irr_set(vcpu->apic.irr, vector);
	apic_update_interrupts(vcpu);
}

/*
 * vapic_x2apic.c: the x2APIC MSRs 0x800-0x83F by (MSR - 0x800), that is
 * xAPIC offset >> 4; 0x840-0x8FF are all reserved (SDM Vol 3 §11.12.1.2).
 */
#define X2APIC_NR_REGS 0x40
struct x2apic_rule {
	u64 rsvd; /* WRMSR with any of these set: #GP */
	bool read, write;
};
extern const struct x2apic_rule x2apic_rules[X2APIC_NR_REGS];

/* vapic_ipi.c: ICR delivery; @dest is the ICR's destination field */
void apic_send_ipi(struct vcpu *vcpu, u64 icr, u32 dest, bool x2);

/* The LVT timer (SDM Vol 3 §11.5.4): one-shot and periodic in vapic_timer.c. */
void apic_count_timer_check(struct vcpu *vcpu);

/*
 * Fire what expired: the interrupt when the LVT entry is unmasked (a
 * masked timer still expires, §11.5.4); a TSC deadline disarms itself
 * (§11.5.4.1).  A future expiry arms the host timer.  Inlined: the
 * TSC-deadline mode is the timer path of the benchmarks.
 */
static inline __attribute__((always_inline)) void apic_timer_check(struct vcpu *vcpu)
{
	struct vapic *apic = &vcpu->apic;
	u64 due = apic->tsc_deadline;

	if (unlikely((apic->lvt_timer & LVT_TIMER_MODE_MASK) != LVT_TIMER_TSC_DEADLINE)) {
		apic_count_timer_check(vcpu);
		return;
	}
	if (!due) {
		host_timer_disarm(vcpu->timer, TIMER_GUEST_APIC);
		return;
	}
	/* the deadline is in the guest's TSC (msr.c), the host timer in the host's */
	if (rdtsc() + vcpu->tsc_offset >= due) {
		apic->tsc_deadline = 0;
		host_timer_disarm(vcpu->timer, TIMER_GUEST_APIC);
		if (!(apic->lvt_timer & LVT_MASKED))
			apic_accept(vcpu, apic->lvt_timer & 0xff);
		return;
	}
	if (apic->lvt_timer & LVT_MASKED)
		host_timer_disarm(vcpu->timer, TIMER_GUEST_APIC); /* nothing to deliver */
	else
		host_timer_arm(vcpu->timer, TIMER_GUEST_APIC, due - vcpu->tsc_offset);
}

bool apic_timer_read(const struct vapic *apic, u32 reg, u32 *val);
bool apic_timer_write(struct vcpu *vcpu, u32 reg, u32 val);
void apic_timer_reset(struct vapic *apic);

#endif
