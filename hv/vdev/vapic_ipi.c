// SPDX-License-Identifier: MIT
/*
 * Inter-processor interrupts of the virtual APIC: the ICR's fixed, INIT
 * and SIPI delivery to the VM's vCPUs (SDM Vol 3 §11.6), and an AP's wait
 * for its start-up IPI.
 */
#include "vapic_priv.h"
#include "ioapic.h"
#include "host/smp.h"
#include "core/backend.h"
#include "arch/apic.h"

/* A fixed IPI to another vCPU: pending in its IRR, and its CPU kicked so
 * that it leaves guest mode (or HLT) and delivers it. */
static void accept_remote(struct vcpu *target, u8 vector)
{
	if (vector < 16)
		return;
	tmr_update(&target->apic, vector, false);
	irr_set(target->apic.irr, vector);
	if (target->cpu)
		smp_kick(target->cpu);
}

/* NMI delivery ignores the vector (§11.6.1): pending on the target, which
 * injects it when its guest can take one. */
static void accept_nmi(struct vcpu *target, bool self)
{
	__atomic_store_n(&target->nmi_pending, 1, __ATOMIC_RELAXED);
	if (self)
		apic_update_interrupts(target);
	else if (target->cpu)
		smp_kick(target->cpu);
}

/*
 * INIT and SIPI to an AP that waits to be started (§8.4.4.1, "MP
 * initialization"): INIT arms it, the first SIPI after it starts it in
 * real mode at the vector's page.  INIT to a running vCPU, or to itself,
 * is not offered and dropped, as is a SIPI without INIT.
 */
static void start_ap(struct vcpu *target, u32 mode, u8 vector)
{
	if (!target->wait_sipi)
		return;
	if (mode == ICR_DM_INIT) {
		__atomic_store_n(&target->sipi_state, SIPI_INIT_SEEN, __ATOMIC_RELEASE);
		return;
	}
	if (__atomic_load_n(&target->sipi_state, __ATOMIC_ACQUIRE) != SIPI_INIT_SEEN)
		return;
	target->sipi_vector = vector;
	__atomic_store_n(&target->sipi_state, SIPI_STARTED, __ATOMIC_RELEASE);
	if (target->cpu)
		smp_kick(target->cpu);
}

/* Does @t answer destination @dest (§11.6.2: physical ID or broadcast,
 * logical flat model in xAPIC, cluster model in x2APIC, §11.12.10.2)? */
static bool apic_matches(const struct vcpu *t, u32 dest, bool logical, bool x2)
{
	if (!logical)
		return dest == t->index || dest == (x2 ? 0xffffffffu : 0xffu);
	if (x2)
		return (dest >> 16) == (t->index >> 4) && (dest & (1u << (t->index & 15)));
	return (t->apic.ldr >> 24) & dest;
}

/* ICR: fixed, INIT and SIPI delivery, a destination or a shorthand (§11.6.1). */
void apic_send_ipi(struct vcpu *vcpu, u64 icr, u32 dest, bool x2)
{
	struct vm *vm = vcpu->vm;
	u32 shorthand = (icr >> 18) & 3, mode = (icr >> 8) & 7, i;
	bool logical = icr & ICR_DEST_LOGICAL;
	u8 vector = icr & 0xff;

	if (mode != ICR_DM_FIXED && mode != ICR_DM_NMI && mode != ICR_DM_INIT &&
	    mode != ICR_DM_STARTUP)
		return; /* SMI, lowest priority: not offered, dropped */
	/* INIT level de-assert (trigger level, level 0) only syncs arbitration IDs */
	if (mode == ICR_DM_INIT && (icr & ICR_TRIGGER_LEVEL) && !(icr & ICR_LEVEL_ASSERT))
		return;
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *t = &vm->vcpus[i];
		bool self = t == vcpu;

		if ((shorthand == ICR_TO_DEST && !apic_matches(t, dest, logical, x2)) ||
		    (shorthand == ICR_TO_SELF && !self) || (shorthand == ICR_TO_OTHERS && self))
			continue;
		if (mode == ICR_DM_NMI)
			accept_nmi(t, self);
		else if (mode != ICR_DM_FIXED)
			start_ap(t, mode, vector);
		else if (self)
			apic_accept(vcpu, vector);
		else
			accept_remote(t, vector);
	}
}

/*
 * An interrupt message from the I/O APIC: an 8-bit destination, physical
 * (0xFF broadcast) or logical as each APIC's mode reads it (§11.6.2,
 * §11.12.10.2).  A hardware-disabled APIC takes none (§11.4.3).
 * Lowest priority goes to the first APIC named: all vCPUs run at the
 * same priority as far as mhv knows.
 */
unsigned apic_bus_deliver(struct vcpu *vcpu, u8 dest, bool logical, bool lowest, u8 vector,
			  bool level)
{
	struct vm *vm = vcpu->vm;
	unsigned i, n = 0;

	if (vector < 16)
		return 0; /* illegal vector (§11.5.3) */
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *t = &vm->vcpus[i];
		bool x2 = apic_x2apic_mode(&t->apic);

		if (!apic_enabled(&t->apic))
			continue;
		if (logical ? !apic_matches(t, dest, true, x2)
			    : dest != 0xff && !apic_matches(t, dest, false, x2))
			continue;
		tmr_update(&t->apic, vector, level);
		irr_set(t->apic.irr, vector);
		if (t == vcpu)
			apic_update_interrupts(t);
		else if (t->cpu)
			smp_kick(t->cpu);
		n++;
		if (lowest)
			break;
	}
	return n;
}

/*
 * The AP sleeps until its SIPI: start_ap kicks its CPU, so does the VM's
 * stop, and its host timer holds the VM's time limit (vm_vcpu_run).  A
 * spin here took the time of the vCPUs that run where CPUs share a host:
 * QEMU TCG's CPU threads on fewer cores, Bochs' CPUs run in turn.
 */
bool apic_wait_for_sipi(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;

	while (__atomic_load_n(&vcpu->sipi_state, __ATOMIC_ACQUIRE) != SIPI_STARTED) {
		if (vm->stop != VM_RUNNING)
			return false;
		if (vm->deadline_tsc && rdtsc() >= vm->deadline_tsc)
			return false;
		backend->idle_wait();
	}
	return true;
}
