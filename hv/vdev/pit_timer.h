/* SPDX-License-Identifier: MIT */
/*
 * The VM's PIT channel 0 as the PC's timer interrupt: its OUT's rising
 * edges raise ISA IRQ0, I/O APIC pin GUEST_PIT_GSI (the MADT's interrupt
 * source override), at their time while the guest runs or halts, through
 * the host timer of the vCPU that last programmed the PIT.
 */
#ifndef MHV_PIT_TIMER_H
#define MHV_PIT_TIMER_H

#include "lib/types.h"

struct vcpu;

/* After @vcpu wrote the PIT: it carries the PIT's host timer from now on. */
void pit_timer_claim(struct vcpu *vcpu);
/* The board's timer on the bus (@dev: struct board): raise IRQ0 for an
 * edge that came, arm the host timer for the next one. */
void pit_timer_poll(void *dev, struct vcpu *vcpu);

#endif
