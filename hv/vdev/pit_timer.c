// SPDX-License-Identifier: MIT
/*
 * PIT channel 0's OUT to IRQ0 (see pit_timer.h).  The host timer is a
 * CPU's own, so the PIT's deadline lives on one vCPU's: the one that last
 * wrote the PIT (an OS programs it from its boot CPU).  Periods missed
 * while the host did not run the guest coalesce into one edge
 * (pit_irq0), as interrupts a PIC saw while blocked would; mode 0 after
 * its terminal count, or no count, leave the host timer quiet.
 */
#include "pit_timer.h"
#include "board.h"
#include "core/vm.h"
#include "lib/guest_abi.h"
#include "platform/host_timer.h"
#include "platform/tsc.h"
#include "arch/x86.h"

void pit_timer_claim(struct vcpu *vcpu)
{
	struct board *b = vcpu->vm->board;

	__atomic_store_n(&b->pit_vcpu, vcpu->index, __ATOMIC_RELAXED);
	pit_timer_poll(b, vcpu);
}

void pit_timer_poll(void *dev, struct vcpu *vcpu)
{
	struct board *b = dev;
	u64 next, now_tsc, now;
	bool fired;

	if (__atomic_load_n(&b->pit_vcpu, __ATOMIC_RELAXED) != vcpu->index) {
		host_timer_disarm(vcpu->timer, TIMER_GUEST_DEVICE); /* another vCPU's now */
		return;
	}
	now_tsc = rdtsc();
	now = tsc_to_pit_ticks(now_tsc);
	spin_lock(&b->pit_lock);
	fired = pit_irq0(&b->pit, now, &next);
	spin_unlock(&b->pit_lock);
	if (fired) { /* an edge: the line rises and falls (82093AA edge entries) */
		ioapic_set_line(vcpu, GUEST_PIT_GSI, true);
		ioapic_set_line(vcpu, GUEST_PIT_GSI, false);
	}
	if (next)
		host_timer_arm(vcpu->timer, TIMER_GUEST_DEVICE,
			       now_tsc + pit_ticks_to_tsc(next - now));
	else
		host_timer_disarm(vcpu->timer, TIMER_GUEST_DEVICE);
}
