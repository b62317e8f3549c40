// SPDX-License-Identifier: MIT
#include "apic.h"
#include "backend.h"
#include "host_timer.h"
#include "smp.h"
#include "vm.h"
#include "x86.h"

/* Register offsets, xAPIC numbering (SDM Vol 3 Table 11-1) */
#define APIC_ID 0x020
#define APIC_VERSION 0x030
#define APIC_TPR 0x080
#define APIC_PPR 0x0a0
#define APIC_EOI 0x0b0
#define APIC_LDR 0x0d0
#define APIC_SVR 0x0f0
#define APIC_ISR 0x100
#define APIC_IRR 0x200
#define APIC_ESR 0x280
#define APIC_ICR 0x300
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_PMC 0x340
#define APIC_SELF_IPI 0x3f0

#define LVT_MASKED BIT(16)
#define LVT_DELIVERY_MODE_MASK (7u << 8)
#define LVT_TIMER_MODE_MASK (3u << 17)
#define LVT_TIMER_TSC_DEADLINE (2u << 17)
#define ICR_TO_DEST 0 /* destination shorthands, ICR bits 19:18 */
#define ICR_TO_SELF 1
#define ICR_TO_OTHERS 3
#define ICR_DELIVERY_MODE_MASK (7ull << 8)
#define APIC_VERSION_VALUE 0x50014 /* version 0x14, max LVT entry 5 */

/* ISR: only this vCPU's CPU touches it. */
static void set_bit256(u32 *map, u8 v)
{
	map[v / 32] |= 1u << (v % 32);
}

static void clear_bit256(u32 *map, u8 v)
{
	map[v / 32] &= ~(1u << (v % 32));
}

/* IRR: another vCPU's CPU may set a bit at any time (an IPI), so one
 * locked bit instruction each (LOCK BTS/BTR, SDM Vol 2A). */
static void irr_set(u32 *irr, u8 v)
{
	asm volatile("lock btsl %1, %0" : "+m"(irr[v / 32]) : "r"((u32)(v % 32)) : "memory");
}

static void irr_clear(u32 *irr, u8 v)
{
	asm volatile("lock btrl %1, %0" : "+m"(irr[v / 32]) : "r"((u32)(v % 32)) : "memory");
}

static int highest_bit256(const u32 *map)
{
	int i;

	for (i = 7; i >= 0; i--)
		if (map[i])
			return i * 32 + 31 - __builtin_clz(map[i]);
	return -1;
}

void apic_reset(struct vapic *apic)
{
	__builtin_memset(apic, 0, sizeof(*apic));
	apic->svr = 0xff;
	apic->lvt_timer = LVT_MASKED;
	apic->lvt_pmc = LVT_MASKED;
}

/* Processor priority: the higher of TPR and the in-service class (§11.8.3.1) */
static u32 ppr(const struct vapic *apic)
{
	int isr = highest_bit256(apic->isr);
	u32 isr_class = isr < 0 ? 0 : (u32)isr & 0xf0;

	return (apic->tpr & 0xf0) >= isr_class ? apic->tpr : isr_class;
}

int apic_deliverable_vector(const struct vapic *apic)
{
	int v = highest_bit256(apic->irr);

	if (v < 0 || ((u32)v & 0xf0) <= (ppr(apic) & 0xf0))
		return -1;
	return v;
}

/* Inlined: it is the self-IPI and timer path of the benchmarks. */
static inline __attribute__((always_inline)) void accept(struct vcpu *vcpu, u8 vector)
{
	/* Vectors 0-15 are illegal for fixed delivery (§11.5.3): ignored. */
	if (vector < 16)
		return;
	irr_set(vcpu->apic.irr, vector);
	apic_update_interrupts(vcpu);
}

/* A fixed IPI to another vCPU: pending in its IRR, and its CPU kicked so
 * that it leaves guest mode (or HLT) and delivers it. */
static void accept_remote(struct vcpu *target, u8 vector)
{
	if (vector < 16)
		return;
	irr_set(target->apic.irr, vector);
	if (target->cpu)
		smp_kick(target->cpu);
}

/* ICR: fixed delivery, physical destination or a shorthand (§11.6.1, §11.12.9). */
static __attribute__((noinline)) void send_ipi(struct vcpu *vcpu, u64 icr)
{
	struct vm *vm = vcpu->vm;
	u32 shorthand = (icr >> 18) & 3, dest = icr >> 32, i;
	u8 vector = icr & 0xff;

	if (icr & ICR_DELIVERY_MODE_MASK)
		return; /* INIT, SIPI, NMI, SMI: not offered, dropped */
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *t = &vm->vcpus[i];
		bool self = t == vcpu;

		if ((shorthand == ICR_TO_DEST && t->index != dest) ||
		    (shorthand == ICR_TO_SELF && !self) || (shorthand == ICR_TO_OTHERS && self))
			continue;
		if (self)
			accept(vcpu, vector);
		else
			accept_remote(t, vector);
	}
}

void apic_update_interrupts(struct vcpu *vcpu)
{
	int v = apic_deliverable_vector(&vcpu->apic);

	if (v < 0) {
		backend->request_interrupt_window(vcpu, false);
		return;
	}
	if (!backend->interrupt_allowed(vcpu)) {
		backend->request_interrupt_window(vcpu, true);
		return;
	}
	backend->request_interrupt_window(vcpu, false);
	irr_clear(vcpu->apic.irr, v);
	set_bit256(vcpu->apic.isr, v);
	backend->inject_interrupt(vcpu, v);
}

static bool timer_armed(const struct vapic *apic)
{
	return !(apic->lvt_timer & LVT_MASKED) &&
	       (apic->lvt_timer & LVT_TIMER_MODE_MASK) == LVT_TIMER_TSC_DEADLINE &&
	       apic->tsc_deadline;
}

/*
 * The deadline passed: the timer interrupt is pending, the deadline
 * disarmed (§10.5.4.1).  A deadline in the future is handed to the host
 * timer, whose interrupt makes the guest exit in time.
 */
static void check_timer(struct vcpu *vcpu)
{
	struct vapic *apic = &vcpu->apic;

	if (!timer_armed(apic)) {
		host_timer_disarm(vcpu->timer, TIMER_GUEST_APIC);
		return;
	}
	if (rdtsc() >= apic->tsc_deadline) {
		apic->tsc_deadline = 0;
		host_timer_disarm(vcpu->timer, TIMER_GUEST_APIC);
		accept(vcpu, apic->lvt_timer & 0xff);
		return;
	}
	host_timer_arm(vcpu->timer, TIMER_GUEST_APIC, apic->tsc_deadline);
}

void apic_poll_timer(struct vcpu *vcpu)
{
	check_timer(vcpu);
}

/*
 * HLT in a VM with several vCPUs: sleep until an interrupt is deliverable
 * (another vCPU's IPI kicks this CPU awake), the guest's timer fires or
 * the VM stops or runs out of time.
 */
void apic_halt(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;

	while (apic_deliverable_vector(&vcpu->apic) < 0 && vm->stop == VM_RUNNING) {
		if (vm->deadline_tsc && rdtsc() >= vm->deadline_tsc) {
			vm_stop(vm, VM_STOP_TIME_LIMIT,
				"vCPU %u halted past the VM's time limit of %llu ms", vcpu->index,
				vm->time_limit_ms);
			return;
		}
		backend->idle_wait();
		check_timer(vcpu);
	}
}

bool apic_wait_for_timer(struct vcpu *vcpu)
{
	if (!timer_armed(&vcpu->apic))
		return false;
	while (rdtsc() < vcpu->apic.tsc_deadline)
		cpu_relax();
	check_timer(vcpu);
	return true;
}

bool apic_msr_read(struct vcpu *vcpu, u32 msr, u64 *val)
{
	const struct vapic *apic = &vcpu->apic;
	u32 reg = (msr - X2APIC_MSR_BASE) << 4;

	if (msr == MSR_TSC_DEADLINE) {
		*val = apic->tsc_deadline;
		return true;
	}
	if (reg >= APIC_ISR && reg < APIC_ISR + 0x80) {
		*val = apic->isr[(reg - APIC_ISR) >> 4];
		return true;
	}
	if (reg >= APIC_IRR && reg < APIC_IRR + 0x80) {
		*val = apic->irr[(reg - APIC_IRR) >> 4];
		return true;
	}
	switch (reg) {
	case APIC_ID:
		*val = vcpu->index; /* x2APIC ID = vCPU number */
		return true;
	case APIC_VERSION:
		*val = APIC_VERSION_VALUE;
		return true;
	case APIC_TPR:
		*val = apic->tpr;
		return true;
	case APIC_PPR:
		*val = ppr(apic);
		return true;
	case APIC_LDR:
		/* cluster ID << 16 | 1 << (ID & 15) (§11.12.10.2) */
		*val = (vcpu->index >> 4) << 16 | 1u << (vcpu->index & 15);
		return true;
	case APIC_SVR:
		*val = apic->svr;
		return true;
	case APIC_ESR:
		*val = 0;
		return true;
	case APIC_ICR:
		*val = apic->icr;
		return true;
	case APIC_LVT_TIMER:
		*val = apic->lvt_timer;
		return true;
	case APIC_LVT_PMC:
		*val = apic->lvt_pmc;
		return true;
	default:
		return false; /* includes write-only EOI and SELF IPI (§11.12.1.2) */
	}
}

bool apic_msr_write(struct vcpu *vcpu, u32 msr, u64 val)
{
	struct vapic *apic = &vcpu->apic;
	u32 reg = (msr - X2APIC_MSR_BASE) << 4;

	if (msr == MSR_TSC_DEADLINE) {
		apic->tsc_deadline = val;
		check_timer(vcpu);
		return true;
	}
	switch (reg) {
	case APIC_TPR:
		apic->tpr = val & 0xff;
		break;
	case APIC_EOI: {
		int v = highest_bit256(apic->isr);

		if (v >= 0)
			clear_bit256(apic->isr, v);
		break;
	}
	case APIC_SVR:
		apic->svr = val & 0x1ff;
		return true;
	case APIC_ESR:
		return val == 0;
	case APIC_SELF_IPI:
		accept(vcpu, val & 0xff);
		return true;
	case APIC_ICR:
		apic->icr = val;
		send_ipi(vcpu, val);
		return true;
	case APIC_LVT_TIMER:
		apic->lvt_timer = val & (0xff | LVT_MASKED | LVT_TIMER_MODE_MASK);
		check_timer(vcpu);
		return true;
	case APIC_LVT_PMC:
		/* vector, delivery mode (fixed or NMI), mask (SDM Vol 3 Figure 11-8) */
		apic->lvt_pmc = val & (0xff | LVT_DELIVERY_MODE_MASK | LVT_MASKED);
		return true;
	default:
		return false;
	}
	/* TPR and EOI change what is deliverable */
	apic_update_interrupts(vcpu);
	return true;
}

/*
 * A counter overflow with its interrupt enabled: the LVTPC's vector, and
 * the LVTPC masks itself as on hardware, so the guest's handler unmasks
 * it (pmu-virt.md §3.3; SDM Vol 3 ch. 21, PMI on overflow).  Only fixed delivery is
 * offered: NMI delivery mode is taken as masked.
 */
bool apic_raise_pmi(struct vcpu *vcpu)
{
	struct vapic *apic = &vcpu->apic;

	if (apic->lvt_pmc & (LVT_MASKED | LVT_DELIVERY_MODE_MASK))
		return false;
	apic->lvt_pmc |= LVT_MASKED;
	accept(vcpu, apic->lvt_pmc & 0xff);
	return true;
}
