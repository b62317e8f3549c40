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
/* Its users share the one timer: the guest's LAPIC timer, its board's
 * timer (the PIT's next IRQ0: core/bus.h) and the VM's time limit; the
 * earliest armed deadline is programmed. */
enum host_timer_slot {
	TIMER_GUEST_APIC,
	TIMER_GUEST_DEVICE,
	TIMER_VM_LIMIT,
	TIMER_SLOTS
};
/* One per CPU (struct cpu): each programs its own local APIC, from the
 * CPU it belongs to. */
struct host_timer {
	u64 deadlines[TIMER_SLOTS];
	u64 reach_tsc; /* a test's shortened reach (host_timer_set_reach), 0: none */
};

/*
 * One-shot mode at @rate_q32 APIC ticks per TSC tick (32.32 fixed point):
 * the count register holds 32 bits (SDM Vol 3 §11.5.4), so one programming
 * reaches 2^32-1 APIC ticks, this many TSC ticks.  Computed once.
 */
static inline u64 host_timer_one_shot_reach(u64 rate_q32)
{
	return rate_q32 ? (0xffffffffull << 32) / rate_q32 : ~0ull;
}

/*
 * The count that ends @delta_tsc TSC ticks from now; @reach_tsc is
 * host_timer_one_shot_reach(@rate_q32).  A wait beyond the reach is cut
 * at 2^32-1 ticks (and re-armed when they end): multiplied out, it would
 * pass 64 bits (an hour at 4 GHz is 2^44 TSC ticks, a rate of 1 is 2^32)
 * and wrap to an early count.  Within it the product fits.  Never 0,
 * which would stop the timer instead of firing it.
 */
static inline u32 host_timer_ticks(u64 delta_tsc, u64 rate_q32, u64 reach_tsc)
{
	u64 ticks;

	if (delta_tsc > reach_tsc)
		return 0xffffffffu;
	ticks = (delta_tsc * rate_q32) >> 32;
	return ticks ? (u32)ticks : 1;
}

void host_timer_arm(struct host_timer *t, enum host_timer_slot slot, u64 tsc_deadline);
void host_timer_disarm(struct host_timer *t, enum host_timer_slot slot);
/*
 * A test knob: the timer is set at most @reach_tsc TSC ticks ahead when it
 * is re-armed after an interrupt and now (0: as far as the hardware
 * reaches), as if the hardware could not reach further, so that a deadline
 * beyond it holds only by being re-armed.  Arming is not slowed by it.
 */
void host_timer_set_reach(struct host_timer *t, u64 reach_tsc);
/* The end of a host interrupt (isr_dispatch). */
void host_apic_eoi(void);
/* HOST_TIMER_VECTOR arrived on this CPU (isr_dispatch): when it came
 * before the earliest deadline, the rest is programmed, so that every
 * deadline holds however far away it is. */
void host_timer_interrupt(void);
const char *host_timer_describe(void);
/* How far ahead one programming of the timer reaches, in TSC ticks: 0
 * when any deadline can be set at once (TSC-deadline mode). */
u64 host_timer_reach_tsc(void);

#endif
