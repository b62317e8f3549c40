// SPDX-License-Identifier: MIT
/*
 * A halted vCPU's wait: scheduling, so the core's.  The devices answer
 * questions only: the APIC which vector is deliverable
 * (apic_deliverable_vector) and when its timer is due (apic_timer_due),
 * and each timer fires what expired when polled (apic_poll_timer, the
 * board's timer on the bus: bus_poll_timer).  Every vCPU has a CPU of
 * its own, so a wait spins or sleeps on that CPU; there is nothing else
 * to run.
 */
#include "vcpu_halt.h"
#include "backend.h"
#include "vm.h"
#include "platform/host_timer.h"
#include "arch/x86.h"

static bool past_time_limit(const struct vm *vm)
{
	return vm->deadline_tsc && rdtsc() >= vm->deadline_tsc;
}

/* The guest's timers fire what has expired: the APIC's, then the board's
 * (the PIT's IRQ0). */
static void poll_guest_timers(struct vcpu *vcpu)
{
	apic_poll_timer(vcpu);
	bus_poll_timer(&vcpu->vm->bus, vcpu, vcpu->timer->deadlines[TIMER_GUEST_DEVICE]);
}

/*
 * What ends a HLT: a deliverable vector or a pending NMI, or an event
 * already queued for entry.  The timer checks in halt_until_event's loop
 * deliver what fires at once (apic_accept, the I/O APIC's message): the
 * vector moves from IRR to ISR and waits in the backend, and the IRR may
 * then hold nothing deliverable, or only what that vector's class now
 * holds back (an IPI queued this way left the timer's vector behind it:
 * issue 28, Linux with two vCPUs).
 */
static bool halt_ends(struct vcpu *vcpu)
{
	return apic_deliverable_vector(&vcpu->apic) >= 0 ||
	       __atomic_load_n(&vcpu->nmi_pending, __ATOMIC_RELAXED) || backend->event_queued(vcpu);
}

/*
 * HLT in a VM with several vCPUs: sleep until halt_ends (another vCPU's
 * IPI kicks this CPU awake, the guest's timer fires), or the VM stops or
 * runs out of time.
 */
static void halt_until_event(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;

	while (!halt_ends(vcpu) && vm->stop == VM_RUNNING) {
		if (past_time_limit(vm)) {
			vm_stop(vm, VM_STOP_TIME_LIMIT,
				"vCPU %u halted past the VM's time limit of %llu ms", vcpu->index,
				vm->time_limit_ms);
			return;
		}
		backend->idle_wait();
		poll_guest_timers(vcpu);
	}
}

/*
 * HLT of a VM's only vCPU: nothing but its own timers can end it, so spin
 * to the earlier of the APIC's and the board's expiry (host TSC), then let
 * them fire; with neither armed the HLT completes at once.  The VM's stop
 * or time limit ends the spin; handle_host_event stops the VM then.
 */
static void halt_until_timer(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;
	u64 due = apic_timer_due(vcpu), board_due = vcpu->timer->deadlines[TIMER_GUEST_DEVICE];

	if (board_due && (!due || board_due < due))
		due = board_due;
	if (!due)
		return;
	while (rdtsc() < due && vm->stop == VM_RUNNING && !past_time_limit(vm))
		cpu_relax();
	poll_guest_timers(vcpu);
}

void vcpu_halt(struct vcpu *vcpu)
{
	if (vcpu->vm->nr_vcpus > 1)
		halt_until_event(vcpu); /* another vCPU may send an IPI */
	else
		halt_until_timer(vcpu);
}
