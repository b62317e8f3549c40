// SPDX-License-Identifier: MIT
/*
 * The virtual LVT timer (SDM Vol 3 §11.5.4): one-shot and periodic modes
 * counting down from the initial count, and TSC-deadline mode.  The
 * count runs at the TSC's rate divided by the divide configuration, so
 * a guest that checks "count x divisor <= elapsed TSC" holds.  A future
 * expiry is handed to the host timer, whose interrupt makes the guest
 * exit in time.
 */
#include "vapic_priv.h"
#include "platform/host_timer.h"
#include "arch/x86.h"

/* Divide configuration bits 3, 1:0 -> 2, 4, ... 128, then 1 (Figure 11-10). */
static u32 timer_divisor(const struct vapic *apic)
{
	u32 code = ((apic->timer_divide_cfg >> 1) & 4) | (apic->timer_divide_cfg & 3);

	return code == 7 ? 1 : 2u << code;
}

/* A guest's tiny periodic count must not turn into an exit storm. */
#define MIN_PERIOD_TSC 2000ull

static u64 timer_period(const struct vapic *apic)
{
	u64 p = (u64)apic->timer_initial * timer_divisor(apic);

	return p < MIN_PERIOD_TSC ? MIN_PERIOD_TSC : p;
}

static u32 timer_mode(const struct vapic *apic)
{
	return apic->lvt_timer & LVT_TIMER_MODE_MASK;
}

/* One-shot and periodic: count expiry, reload, and the host timer. */
void apic_count_timer_check(struct vcpu *vcpu)
{
	struct vapic *apic = &vcpu->apic;
	u64 due = apic->timer_next, now;

	if (!due) {
		host_timer_disarm(vcpu->timer, TIMER_GUEST_APIC);
		return;
	}
	now = rdtsc();
	if (now >= due) {
		if (timer_mode(apic) == LVT_TIMER_PERIODIC) {
			u64 period = timer_period(apic);

			/* periods missed while the vCPU did not run coalesce into one */
			apic->timer_next = now + period - (now - due) % period;
		} else {
			apic->timer_next = 0;
		}
		if (!(apic->lvt_timer & LVT_MASKED))
			apic_accept(vcpu, apic->lvt_timer & 0xff);
		due = apic->timer_next;
		if (!due) {
			host_timer_disarm(vcpu->timer, TIMER_GUEST_APIC);
			return;
		}
	}
	if (apic->lvt_timer & LVT_MASKED)
		host_timer_disarm(vcpu->timer, TIMER_GUEST_APIC);
	else
		host_timer_arm(vcpu->timer, TIMER_GUEST_APIC, due);
}

void apic_timer_reset(struct vapic *apic)
{
	apic->lvt_timer = LVT_MASKED;
	apic->timer_initial = 0;
	apic->timer_divide_cfg = 0;
	apic->timer_next = 0;
	apic->tsc_deadline = 0;
}

static u32 current_count(const struct vapic *apic)
{
	u64 elapsed;

	/* no count under way: TSC-deadline mode, or a one-shot count that
	 * reached 0 (it stays there when the mode turns periodic) */
	if (timer_mode(apic) == LVT_TIMER_TSC_DEADLINE || !apic->timer_initial || !apic->timer_next)
		return 0;
	elapsed = (rdtsc() - apic->timer_start) / timer_divisor(apic);
	if (timer_mode(apic) == LVT_TIMER_PERIODIC)
		return apic->timer_initial - (u32)(elapsed % apic->timer_initial);
	return elapsed >= apic->timer_initial ? 0 : apic->timer_initial - (u32)elapsed;
}

bool apic_timer_read(const struct vapic *apic, u32 reg, u32 *val)
{
	switch (reg) {
	case APIC_LVT_TIMER:
		*val = apic->lvt_timer;
		return true;
	case APIC_TIMER_INITIAL:
		*val = apic->timer_initial;
		return true;
	case APIC_TIMER_CURRENT:
		*val = current_count(apic);
		return true;
	case APIC_TIMER_DIVIDE:
		*val = apic->timer_divide_cfg;
		return true;
	}
	return false;
}

/* Timer registers; false for a register that is not the timer's. */
bool apic_timer_write(struct vcpu *vcpu, u32 reg, u32 val)
{
	struct vapic *apic = &vcpu->apic;
	u32 old_mode = timer_mode(apic);

	switch (reg) {
	case APIC_LVT_TIMER:
		/* mode 3 is reserved: taken as one-shot */
		if ((val & LVT_TIMER_MODE_MASK) == LVT_TIMER_MODE_MASK)
			val &= ~LVT_TIMER_MODE_MASK;
		apic->lvt_timer = val & (0xff | LVT_MASKED | LVT_TIMER_MODE_MASK);
		if (timer_mode(apic) == old_mode)
			break;
		/*
		 * Into or out of TSC-deadline mode disarms the timer
		 * (§11.5.4.1).  Between one-shot and periodic the count goes
		 * on (as KVM found on hardware, and kvm-unit-tests' apic.flat
		 * checks): the mode decides only what happens at 0, and the
		 * period under way becomes a one-shot count.
		 */
		if (old_mode == LVT_TIMER_TSC_DEADLINE ||
		    timer_mode(apic) == LVT_TIMER_TSC_DEADLINE) {
			apic->timer_initial = 0;
			apic->timer_next = 0;
			apic->tsc_deadline = 0;
		} else if (timer_mode(apic) == LVT_TIMER_ONE_SHOT && apic->timer_next) {
			apic->timer_start =
			    apic->timer_next - (u64)apic->timer_initial * timer_divisor(apic);
		}
		break;
	case APIC_TIMER_INITIAL:
		/* ignored in TSC-deadline mode (§11.5.4.1) */
		if (old_mode == LVT_TIMER_TSC_DEADLINE)
			return true;
		apic->timer_initial = val;
		apic->timer_start = rdtsc();
		apic->timer_next = val ? apic->timer_start + (u64)val * timer_divisor(apic) : 0;
		break;
	case APIC_TIMER_DIVIDE:
		/* takes effect from the next initial count */
		apic->timer_divide_cfg = val & 0xb;
		return true;
	default:
		return false;
	}
	apic_timer_check(vcpu);
	return true;
}
