/* SPDX-License-Identifier: MIT */
/*
 * A minimal virtual x2APIC (SDM Vol 3 Chapter 11): the MSR interface for
 * TPR, EOI, SELF IPI, ICR self-IPIs, and the LVT timer in TSC-deadline
 * mode; delivery through the backend's event injection.
 */
#ifndef MHV_APIC_H
#define MHV_APIC_H

#include "types.h"

struct vcpu;

struct vapic {
	u32 irr[8], isr[8]; /* 256 vectors each */
	u32 tpr;
	u32 svr;
	u32 lvt_timer;
	u32 lvt_pmc; /* LVT performance monitoring counters (LVTPC) */
	u64 tsc_deadline;
	u64 icr;
};

/* x2APIC MSRs: 0x800 + (xAPIC offset >> 4) (SDM Vol 3 §11.12.1.2) */
#define X2APIC_MSR_BASE 0x800
#define X2APIC_MSR_LAST 0x8ff
#define MSR_TSC_DEADLINE 0x6e0

void apic_reset(struct vapic *apic);
/* false: #GP (a reserved register, a read-only one written, or a bad value) */
bool apic_msr_read(struct vcpu *vcpu, u32 msr, u64 *val);
bool apic_msr_write(struct vcpu *vcpu, u32 msr, u64 val);
/* Deliver what is deliverable, or ask for an interrupt window. */
void apic_update_interrupts(struct vcpu *vcpu);
/* After a host timer interrupt: fire the guest's timer if its deadline passed. */
void apic_poll_timer(struct vcpu *vcpu);
/* HLT with several vCPUs: wait for a deliverable interrupt, the timer or the end. */
void apic_halt(struct vcpu *vcpu);
/* A halted vCPU waits for its armed TSC deadline; true if it expired. */
bool apic_wait_for_timer(struct vcpu *vcpu);
/* A guest PMI through the LVTPC; false when the LVTPC is masked. */
bool apic_raise_pmi(struct vcpu *vcpu);
/* The highest vector the APIC would deliver now, or -1 (pure, for tests). */
int apic_deliverable_vector(const struct vapic *apic);

#endif
