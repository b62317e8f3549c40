/* SPDX-License-Identifier: MIT */
/*
 * A small virtual local APIC (SDM Vol 3 Chapter 11): xAPIC MMIO and x2APIC
 * MSRs over one register file; APIC_BASE modes (enabled, disabled,
 * x2APIC); TPR, EOI, ISR/IRR; ICR fixed, INIT and SIPI delivery with the
 * shorthands; the LVT timer (one-shot, periodic, TSC deadline) and LVTPC.
 * Delivery goes through the backend's event injection.
 */
#ifndef MHV_VAPIC_H
#define MHV_VAPIC_H

#include "lib/types.h"
#include "arch/apic.h"

struct vcpu;

struct vapic {
	u32 irr[8], isr[8]; /* 256 vectors each */
	u32 tmr[8];	    /* level-triggered vectors accepted (SDM Vol 3 §11.8.4) */
	bool tmr_used;	    /* a level vector was accepted: TMR bits may be set */
	u64 base;	    /* IA32_APIC_BASE as the guest reads it */
	/*
	 * The TPR is the guest's CR8 (SDM Vol 3 §11.8.6), which the guest
	 * writes without an exit: it lives where the backend keeps CR8, the
	 * byte at cr8 holding TPR >> cr8_shift (VMX virtual TPR: shift 0;
	 * SVM V_TPR, TPR bits 7:4: shift 4).  Set by the backend's vCPU
	 * setup, kept across resets.  @tpr: the TPR as last written through
	 * the APIC, for the bits 3:0 a 4-bit CR8 does not keep.
	 */
	u8 *cr8;
	u8 cr8_shift;
	u32 tpr;
	u32 svr;
	u32 ldr, dfr; /* xAPIC logical destination (x2APIC derives LDR from the ID) */
	u32 icr_high; /* xAPIC ICR bits 63:32: the destination in 31:24 */
	u64 icr;
	u32 lvt_timer;
	u32 lvt_pmc;	  /* LVT performance monitoring counters (LVTPC) */
	u32 lvt_other[4]; /* thermal, LINT0, LINT1, error: stored, never fire */
	u32 timer_initial, timer_divide_cfg;
	u64 timer_start; /* TSC when the initial count was written */
	u64 timer_next;	 /* one-shot / periodic: TSC of the next expiry, 0 if none */
	u64 tsc_deadline;
};

/* The backend's vCPU setup: where the guest's CR8 keeps the TPR (see
 * struct vapic); the TPR is 0 there. */
static inline void apic_set_cr8_home(struct vapic *apic, u8 *cr8, u8 shift)
{
	apic->cr8 = cr8;
	apic->cr8_shift = shift;
}
/* Reset; @x2apic: start in x2APIC mode (mhv's own guests), else xAPIC as
 * after power-up (external guests). */
void apic_reset(struct vapic *apic, bool bsp, bool x2apic);
/* WRMSR to IA32_APIC_BASE: false for #GP (an invalid mode transition). */
bool apic_base_write(struct vcpu *vcpu, u64 val);
static inline bool apic_enabled(const struct vapic *apic)
{
	return apic->base & APIC_BASE_EN;
}
static inline bool apic_x2apic_mode(const struct vapic *apic)
{
	return apic->base & APIC_BASE_EXTD;
}
/* false: #GP (not in x2APIC mode, a reserved register, a read-only one
 * written, or a bad value) */
bool apic_msr_read(struct vcpu *vcpu, u32 msr, u64 *val);
bool apic_msr_write(struct vcpu *vcpu, u32 msr, u64 val);
/* IA32_TSC_DEADLINE (MSR 0x6E0), in either APIC mode */
bool apic_tsc_deadline_read(struct vcpu *vcpu, u64 *val);
bool apic_tsc_deadline_write(struct vcpu *vcpu, u64 val);
void apic_tsc_changed(struct vcpu *vcpu);
/* xAPIC MMIO, 32-bit registers at @offset into the APIC page; false when
 * the page is not decoded (APIC disabled or in x2APIC mode). */
bool apic_mmio_read(struct vcpu *vcpu, u32 offset, u32 *val);
bool apic_mmio_write(struct vcpu *vcpu, u32 offset, u32 val);
/* Deliver what is deliverable, or ask for an interrupt window. */
void apic_update_interrupts(struct vcpu *vcpu);
/* An injected interrupt the guest did not take after all: pending again
 * (the caller re-evaluates). */
void apic_requeue(struct vcpu *vcpu, u8 vector);
/* After a host timer interrupt: fire the guest's timer if it expired. */
void apic_poll_timer(struct vcpu *vcpu);
/* When the LVT timer fires next, in the host's TSC; 0 when it is masked or
 * not armed (a halted vCPU's wait, core/vcpu_halt.c). */
u64 apic_timer_due(const struct vcpu *vcpu);
/* An AP of an external guest: wait for INIT then SIPI; false if the VM ended. */
bool apic_wait_for_sipi(struct vcpu *vcpu);
/* A guest PMI through the LVTPC, fixed or NMI delivery; false when the LVTPC
 * is masked or has another mode.  mask_on_delivery: Intel's rule (pmu code). */
bool apic_raise_pmi(struct vcpu *vcpu, bool mask_on_delivery);
/* The highest vector the APIC would deliver now, or -1 (pure, for tests). */
int apic_deliverable_vector(const struct vapic *apic);

#endif
