/* SPDX-License-Identifier: MIT */
#ifndef MHV_HOST_TIMER_H
#define MHV_HOST_TIMER_H

#include "lib/types.h"

#define HOST_TIMER_VECTOR 0xef

/*
 * The host's local APIC timer, used to end a guest's run at a TSC value
 * (its virtual TSC-deadline timer): TSC-deadline mode where the CPU has
 * it, else one-shot mode with the APIC-to-TSC rate calibrated at init.
 * The interrupt makes the guest exit (SVM INTR intercept, VMX external-
 * interrupt exiting); the host takes it in its interrupt window.
 */
void host_timer_init(void);
/* On each AP: its LAPIC timer like the BSP's (one rate for all CPUs). */
void host_timer_init_ap(void);
/* false when there is no usable timer; why says so */
bool host_timer_available(const char **why);
/* Two users share the one timer: the guest's TSC deadline and the VM's
 * time limit; the earlier armed deadline is programmed. */
enum host_timer_slot {
	TIMER_GUEST_APIC,
	TIMER_VM_LIMIT,
	TIMER_SLOTS
};
/* One per CPU (struct cpu): each programs its own local APIC, from the
 * CPU it belongs to. */
struct host_timer {
	u64 deadlines[TIMER_SLOTS];
};

void host_timer_arm(struct host_timer *t, enum host_timer_slot slot, u64 tsc_deadline);
void host_timer_disarm(struct host_timer *t, enum host_timer_slot slot);
/* The end of a host interrupt (isr_dispatch). */
void host_apic_eoi(void);
const char *host_timer_describe(void);

#endif
