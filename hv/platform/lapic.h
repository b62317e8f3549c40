/* SPDX-License-Identifier: MIT */
/*
 * The host's local APIC, in whichever mode the firmware left it (xAPIC
 * MMIO or x2APIC MSRs; SDM Vol 3 §11.4, §11.12): register access, EOI,
 * IPIs to other CPUs, and the per-CPU set-up an AP needs.
 */
#ifndef MHV_LAPIC_H
#define MHV_LAPIC_H

#include "lib/types.h"
#include "arch/apic.h"

/* The host's APIC mode (mhv.cfg "apic"): auto, as the firmware left it
 * unless an APIC ID needs x2APIC (smp_init); x2apic, x2APIC in any case
 * (the path of IDs above 254 on machines whose IDs are small). */
enum host_apic_mode {
	HOST_APIC_AUTO,
	HOST_APIC_X2APIC,
};

/* false when the APIC is disabled (no timer, no IPIs) */
bool lapic_init(void);
bool lapic_present(void);
bool lapic_is_x2apic(void);
/* This CPU's APIC to x2APIC mode (the APs follow in lapic_init_ap); false
 * when the CPU has no x2APIC or its APIC is off. */
bool lapic_enable_x2apic(void);

/* Inline: the host timer writes these on the exit path (tscdeadline). */
extern bool lapic_x2apic;
extern volatile u32 *lapic_mmio;

static inline void lapic_write(u32 reg, u32 val)
{
	if (lapic_x2apic)
		asm volatile("wrmsr" ::"c"(X2APIC_MSR(reg)), "a"(val), "d"(0) : "memory");
	else
		lapic_mmio[reg / 4] = val;
}

static inline u32 lapic_read(u32 reg)
{
	u32 lo, hi;

	if (!lapic_x2apic)
		return lapic_mmio[reg / 4];
	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(X2APIC_MSR(reg)));
	return lo;
}

void lapic_eoi(void);
/* This CPU's APIC ID (x2APIC: 32 bits; xAPIC: bits 31:24 of the ID register). */
u32 lapic_id(void);
/* An IPI: ICR low word (vector | delivery mode | level) to one APIC ID. */
void lapic_send_ipi(u32 apic_id, u32 icr_low);
/*
 * The host LVTPC: a private vector, unmasked.  mhv runs no host counters,
 * so a PMI is a guest counter that overflowed in guest mode (counters are
 * GuestOnly, APM Vol 2 §13.2.1; Intel's VM-exit clears GLOBAL_CTRL): the
 * interrupt forces the exit at the overflow, where the guest PMU code finds
 * it in GLOBAL_STATUS and raises the guest's own LVTPC (as KVM's mediated
 * PMI vector).  The host handler only EOIs it (isr_dispatch).
 */
#define HOST_PMI_VECTOR 0xed
void lapic_host_lvtpc(void);
/* On an AP: the BSP's APIC mode, software-enabled, timer masked, host LVTPC. */
void lapic_init_ap(void);

#endif
