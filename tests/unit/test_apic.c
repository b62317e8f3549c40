// SPDX-License-Identifier: MIT
/* The virtual x2APIC: priorities, TPR, EOI, self-IPIs, TSC deadline, windows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vdev/vapic.h"
#include "vdev/ioapic.h"
#include "core/backend.h"
#include "platform/host_timer.h"
#include "host/smp.h"
#include "core/vm.h"
#include "core/vcpu_halt.h"

/* A backend that records what the APIC asks of it. */
static bool guest_if;
static int injected;
static bool window;

/* SVM's one EVENTINJ slot (event_slot): a queued NMI holds interrupts
 * back, and a queued interrupt holds an NMI back */
static bool event_slot, nmi_queued;
static int nmi_windows;

static bool fake_interrupt_allowed(struct vcpu *vcpu)
{
	return guest_if && injected < 0 && !nmi_queued;
}

static void fake_inject_interrupt(struct vcpu *vcpu, u8 vector)
{
	injected = vector;
}

static void fake_request_window(struct vcpu *vcpu, bool on)
{
	window = on;
}

/* Where each vCPU's CR8 keeps the TPR: the VMX format (the whole TPR)
 * unless a test picks SVM's (V_TPR, bits 7:4) */
static u8 fake_cr8[2];
#define fake_tpr fake_cr8[0]

static u64 fake_cr4(struct vcpu *vcpu)
{
	return 0;
}

static int nmis;

static bool fake_nmi_allowed(struct vcpu *vcpu)
{
	return !event_slot || (injected < 0 && !nmi_queued);
}

static void fake_inject_nmi(struct vcpu *vcpu)
{
	nmis++;
	nmi_queued = event_slot;
}

static void fake_request_nmi_window(struct vcpu *vcpu)
{
	nmi_windows++;
}

/* The queued interrupt, out of the slot (SVM's svm_take_back_interrupt). */
static int fake_take_back_interrupt(struct vcpu *vcpu)
{
	int v = injected;

	injected = -1;
	return v;
}

static struct vm vm;
static struct vcpu *vcpu = &vm.vcpus[0];

/* An interrupt queued by inject_interrupt waits for the next entry. */
static bool fake_event_queued(struct vcpu *vcpu)
{
	return injected >= 0;
}

/* A halted vCPU's CPU sleeps: what wakes it is each test's on_idle; a
 * HLT still asleep after a few wake-ups ends with the VM. */
static void (*on_idle)(void);
static int idle_waits;

static void fake_idle_wait(void)
{
	if (on_idle)
		on_idle();
	if (++idle_waits >= 3)
		vm_stop(vcpu->vm, VM_STOP_TIME_LIMIT, "asleep");
}

static const struct backend_ops fake_backend = {
	.guest_cr4 = fake_cr4,
	.name = "fake",
	.interrupt_allowed = fake_interrupt_allowed,
	.inject_interrupt = fake_inject_interrupt,
	.request_interrupt_window = fake_request_window,
	.nmi_allowed = fake_nmi_allowed,
	.inject_nmi = fake_inject_nmi,
	.request_nmi_window = fake_request_nmi_window,
	.take_back_interrupt = fake_take_back_interrupt,
	.event_queued = fake_event_queued,
	.idle_wait = fake_idle_wait,
};

const struct backend_ops *backend = &fake_backend;

/* The host timer: recorded, not programmed. */
static u64 host_deadline;

void host_timer_arm(struct host_timer *t, enum host_timer_slot slot, u64 tsc_deadline)
{
	assert_int_equal(slot, TIMER_GUEST_APIC);
	host_deadline = tsc_deadline;
}

void host_timer_disarm(struct host_timer *t, enum host_timer_slot slot)
{
	assert_int_equal(slot, TIMER_GUEST_APIC);
	host_deadline = 0;
}

/* Other CPUs: a kick is recorded. */
static struct cpu other_cpu;
static int kicks;

void smp_kick(struct cpu *c)
{
	assert_ptr_equal(c, &other_cpu);
	kicks++;
}

void vm_stop(struct vm *v, enum vm_stop why, const char *fmt, ...)
{
	v->stop = why;
}

/* The I/O APIC hears the EOIs of level-triggered vectors. */
static int ioapic_eois;

void ioapic_eoi(struct vcpu *v, u8 vector)
{
	ioapic_eois++;
}

#define MSR_TPR 0x808
#define MSR_EOI 0x80b
#define MSR_ICR 0x830
#define MSR_LVT_TIMER 0x832
#define MSR_SELF_IPI 0x83f
#define MSR_ISR0 0x810

static int setup(void **state)
{
	(void)state;
	memset(&vm, 0, sizeof(vm));
	host_deadline = 0;
	vm.nr_vcpus = 1;
	/* a VM with an x2APIC (struct vm_config's default) */
	vm.cpuid.std[1].ecx = CPUID1_ECX_X2APIC;
	vm.vcpus[0].cpuid_view = vm.vcpus[1].cpuid_view = &vm.cpuid;
	vcpu->vm = &vm;
	fake_cr8[0] = fake_cr8[1] = 0xff;
	apic_set_cr8_home(&vcpu->apic, &fake_cr8[0], 0);
	apic_reset(&vcpu->apic, true, true);
	kicks = 0;
	on_idle = NULL;
	idle_waits = 0;
	guest_if = true;
	injected = -1;
	window = false;
	event_slot = nmi_queued = false;
	nmi_windows = 0;
	assert_int_equal(fake_tpr, 0); /* the reset's TPR is CR8's */
	return 0;
}

static void self_ipi_injects_and_sets_isr(void **state)
{
	u64 isr;

	(void)state;
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0xb0));
	assert_int_equal(injected, 0xb0);
	assert_false(window);
	/* ISR bit 0xb0 is in ISR register 5 (vectors 160-191), bit 16 */
	assert_true(apic_msr_read(vcpu, MSR_ISR0 + 5, &isr));
	assert_int_equal(isr, 1u << 16);
	assert_true(apic_msr_write(vcpu, MSR_EOI, 0));
	assert_true(apic_msr_read(vcpu, MSR_ISR0 + 5, &isr));
	assert_int_equal(isr, 0);
}

/* A second vCPU on the other CPU; both APICs reset in the given mode. */
static struct vcpu *second_vcpu(bool x2apic)
{
	struct vcpu *other = &vm.vcpus[1];

	vm.nr_vcpus = 2;
	other->vm = &vm;
	other->index = 1;
	other->cpu = &other_cpu;
	apic_set_cr8_home(&other->apic, &fake_cr8[1], 0);
	apic_reset(&vcpu->apic, true, x2apic);
	apic_reset(&other->apic, false, x2apic);
	return other;
}

/*
 * The ipi benchmark's handshake (guest-tests/vmexit.c): the sender's next
 * IPI may come while the target's handler, IF=0, has not yet sent its
 * EOI.  The kick's exit finds the vector in service and leaves it
 * pending; the EOI makes it deliverable but IF=0 asks for the window;
 * the window's exit after the IRET injects it.  Nothing is left behind.
 */
static void ipi_during_its_handler(void **state)
{
	struct vcpu *other = second_vcpu(true);
	u64 isr;

	(void)state;
	assert_true(apic_msr_write(vcpu, MSR_ICR, (1ull << 32) | 0xc0));
	apic_update_interrupts(other); /* the kick's exit */
	assert_int_equal(injected, 0xc0);
	injected = -1;
	guest_if = false; /* in the handler */
	assert_true(apic_msr_write(vcpu, MSR_ICR, (1ull << 32) | 0xc0));
	assert_int_equal(kicks, 2);
	apic_update_interrupts(other);
	assert_int_equal(injected, -1);
	assert_false(window);
	assert_true(apic_msr_write(other, MSR_EOI, 0));
	assert_int_equal(injected, -1);
	assert_true(window);
	guest_if = true; /* its IRET: the window's exit */
	apic_update_interrupts(other);
	assert_int_equal(injected, 0xc0);
	assert_false(window);
	injected = -1;
	assert_true(apic_msr_write(other, MSR_EOI, 0));
	assert_int_equal(injected, -1);
	assert_int_equal(apic_deliverable_vector(&other->apic), -1);
	assert_true(apic_msr_read(other, MSR_ISR0 + 6, &isr));
	assert_int_equal(isr, 0);
}

/* A second vCPU on another CPU: physical destination and shorthands. */
static void ipi_to_another_vcpu(void **state)
{
	struct vcpu *other = second_vcpu(true);
	u64 id;

	(void)state;
	assert_true(apic_msr_read(other, 0x802, &id));
	assert_int_equal(id, 1);
	/* fixed, physical destination 1: pending in its IRR, its CPU kicked */
	assert_true(apic_msr_write(vcpu, MSR_ICR, (1ull << 32) | 0xc0));
	assert_int_equal(kicks, 1);
	assert_int_equal(injected, -1); /* not to the sender */
	assert_int_equal(apic_deliverable_vector(&other->apic), 0xc0);
	/* all excluding self */
	assert_true(apic_msr_write(vcpu, MSR_ICR, (3ull << 18) | 0xc1));
	assert_int_equal(kicks, 2);
	assert_int_equal(apic_deliverable_vector(&other->apic), 0xc1);
	assert_int_equal(injected, -1);
	/* an APIC ID nobody has: dropped; INIT: not offered, dropped */
	assert_true(apic_msr_write(vcpu, MSR_ICR, (7ull << 32) | 0xc2));
	assert_true(apic_msr_write(vcpu, MSR_ICR, (1ull << 32) | 0x500));
	assert_int_equal(kicks, 2);
	/* all including self: the sender gets it too */
	assert_true(apic_msr_write(vcpu, MSR_ICR, (2ull << 18) | 0xc3));
	assert_int_equal(kicks, 3);
	assert_int_equal(injected, 0xc3);
}

static void if_clear_asks_for_a_window(void **state)
{
	(void)state;
	guest_if = false;
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0xb0));
	assert_int_equal(injected, -1);
	assert_true(window);
	guest_if = true;
	apic_update_interrupts(vcpu);
	assert_int_equal(injected, 0xb0);
	assert_false(window);
}

static void tpr_blocks_lower_classes(void **state)
{
	(void)state;
	/* TPR class 0xb blocks vector 0xb0 (same class) until lowered (SDM §11.8.3) */
	assert_true(apic_msr_write(vcpu, MSR_TPR, 0xb0));
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0xb0));
	assert_int_equal(injected, -1);
	assert_int_equal(apic_deliverable_vector(&vcpu->apic), -1);
	assert_true(apic_msr_write(vcpu, MSR_TPR, 0x0f));
	assert_int_equal(injected, 0xb0);
}

static void cr8_is_the_tpr(void **state)
{
	u64 v;

	(void)state;
	/* a guest MOV to CR8 reaches the backend's TPR without an exit */
	fake_tpr = 0xc0;
	assert_true(apic_msr_read(vcpu, MSR_TPR, &v));
	assert_int_equal(v, 0xc0);
	/* ... and blocks lower classes (SDM Vol 3 §11.8.6) */
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0xb0));
	assert_int_equal(injected, -1);
	fake_tpr = 0;
	apic_update_interrupts(vcpu);
	assert_int_equal(injected, 0xb0);
	/* an APIC write is what CR8 reads next */
	assert_true(apic_msr_write(vcpu, MSR_TPR, 0x35));
	assert_int_equal(fake_tpr, 0x35);
}

/* SVM's V_TPR holds the TPR's class only (APM Vol 2 §15.21.4). */
static void cr8_of_four_bits(void **state)
{
	u64 v;

	(void)state;
	apic_set_cr8_home(&vcpu->apic, &fake_cr8[0], 4);
	assert_true(apic_msr_write(vcpu, MSR_TPR, 0x35));
	assert_int_equal(fake_tpr, 3);
	/* bits 3:0 as written through the APIC, while CR8 keeps the class */
	assert_true(apic_msr_read(vcpu, MSR_TPR, &v));
	assert_int_equal(v, 0x35);
	assert_true(apic_msr_read(vcpu, 0x80a, &v)); /* PPR */
	assert_int_equal(v, 0x35);
	/* MOV to CR8 of another class: the TPR is that class, bits 3:0 clear */
	fake_tpr = 0xc;
	assert_true(apic_msr_read(vcpu, MSR_TPR, &v));
	assert_int_equal(v, 0xc0);
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0xc5));
	assert_int_equal(injected, -1);
	fake_tpr = 0xb;
	apic_update_interrupts(vcpu);
	assert_int_equal(injected, 0xc5);
}

static void level_vectors_set_tmr_and_eoi_to_the_ioapic(void **state)
{
	u64 tmr;

	(void)state;
	ioapic_eois = 0;
	/* a level message sets the TMR bit; its EOI is broadcast (SDM §11.8.4) */
	assert_int_equal(apic_bus_deliver(vcpu, 0, false, false, 0x79, true), 1);
	assert_int_equal(injected, 0x79);
	assert_true(apic_msr_read(vcpu, 0x818 + 0x79 / 32, &tmr));
	assert_true(tmr & 1u << (0x79 % 32));
	assert_true(apic_msr_write(vcpu, MSR_EOI, 0));
	assert_int_equal(ioapic_eois, 1);
	/* the same vector edge-triggered clears it and its EOI stays local */
	injected = -1;
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0x79));
	assert_int_equal(injected, 0x79);
	assert_true(apic_msr_read(vcpu, 0x818 + 0x79 / 32, &tmr));
	assert_false(tmr & 1u << (0x79 % 32));
	assert_true(apic_msr_write(vcpu, MSR_EOI, 0));
	assert_int_equal(ioapic_eois, 1);
	/* destinations: another ID, none; broadcast, this one */
	injected = -1;
	assert_int_equal(apic_bus_deliver(vcpu, 5, false, false, 0x80, false), 0);
	assert_int_equal(apic_bus_deliver(vcpu, 0xff, false, false, 0x80, false), 1);
	assert_int_equal(injected, 0x80);
}

static void in_service_blocks_same_class(void **state)
{
	(void)state;
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0xb0));
	assert_int_equal(injected, 0xb0);
	injected = -1;
	/* 0xb1 waits for the EOI of 0xb0; 0xc0 preempts it */
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0xb1));
	assert_int_equal(injected, -1);
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0xc0));
	assert_int_equal(injected, 0xc0);
	injected = -1;
	assert_true(apic_msr_write(vcpu, MSR_EOI, 0)); /* EOI of 0xc0 */
	assert_int_equal(injected, -1);
	assert_true(apic_msr_write(vcpu, MSR_EOI, 0)); /* EOI of 0xb0 */
	assert_int_equal(injected, 0xb1);
}

/* The PPR's in-service class, with vectors in other 32-vector words. */
static void in_service_in_other_words(void **state)
{
	struct vapic *apic = &vcpu->apic;

	(void)state;
	apic->irr[0x65 / 32] = 1u << (0x65 % 32);
	apic->isr[0xe0 / 32] = 1u << (0xe0 % 32); /* a higher word: blocks */
	assert_int_equal(apic_deliverable_vector(apic), -1);
	apic->isr[0xe0 / 32] = 0;
	apic->isr[0x5f / 32] = 1u << (0x5f % 32); /* a lower word, lower class */
	assert_int_equal(apic_deliverable_vector(apic), 0x65);
	apic->isr[0x61 / 32] = 1u << (0x61 % 32); /* its word, its class: blocks */
	assert_int_equal(apic_deliverable_vector(apic), -1);
	apic->irr[0x75 / 32] |= 1u << (0x75 % 32); /* its word, a higher class */
	assert_int_equal(apic_deliverable_vector(apic), 0x75);
}

/* A window is open only while a pending vector waits for IF: a TPR that
 * blocks the vector closes it, one that unblocks it reopens it. */
static void tpr_closes_and_reopens_the_window(void **state)
{
	(void)state;
	guest_if = false;
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0xb0));
	assert_true(window);
	assert_true(apic_msr_write(vcpu, MSR_TPR, 0xc0));
	assert_false(window);
	assert_true(apic_msr_write(vcpu, MSR_TPR, 0));
	assert_true(window);
	guest_if = true;
	apic_update_interrupts(vcpu);
	assert_int_equal(injected, 0xb0);
	assert_false(window);
	assert_true(apic_msr_write(vcpu, MSR_EOI, 0));
	assert_false(window);
}

static void icr_self_ipis_only(void **state)
{
	(void)state;
	/* fixed, shorthand self (bits 19:18 = 01) */
	assert_true(apic_msr_write(vcpu, MSR_ICR, (1ull << 18) | 0xb0));
	assert_int_equal(injected, 0xb0);
	apic_msr_write(vcpu, MSR_EOI, 0);
	injected = -1;
	/* destination 0 (our ID), no shorthand */
	assert_true(apic_msr_write(vcpu, MSR_ICR, 0xb2));
	assert_int_equal(injected, 0xb2);
	apic_msr_write(vcpu, MSR_EOI, 0);
	injected = -1;
	/* another CPU (ID 1): not delivered here */
	assert_true(apic_msr_write(vcpu, MSR_ICR, (1ull << 32) | 0xb3));
	assert_int_equal(injected, -1);
	/* an NMI to ourselves: an NMI, whatever the vector field says */
	nmis = 0;
	assert_true(apic_msr_write(vcpu, MSR_ICR, (4ull << 8) | 0xb4));
	assert_int_equal(injected, -1);
	assert_int_equal(nmis, 1);
	assert_int_equal(vcpu->nmi_pending, 0);
	/* vectors below 16 are illegal */
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0x0f));
	assert_int_equal(injected, -1);
}

static void tsc_deadline_in_the_past_fires(void **state)
{
	u64 v;

	(void)state;
	assert_true(apic_msr_write(vcpu, MSR_LVT_TIMER, 0xb1 | (2u << 17)));
	assert_true(apic_tsc_deadline_write(vcpu, 1));
	assert_int_equal(injected, 0xb1);
	assert_true(apic_tsc_deadline_read(vcpu, &v));
	assert_int_equal(v, 0); /* disarmed once fired */
}

static void future_deadline_arms_the_host_timer(void **state)
{
	(void)state;
	host_deadline = 0;
	assert_true(apic_msr_write(vcpu, MSR_LVT_TIMER, 0xb1 | (2u << 17)));
	assert_true(apic_tsc_deadline_write(vcpu, ~0ull));
	assert_int_equal(host_deadline, ~0ull);
	assert_int_equal(injected, -1);
	/* masking the LVT entry disarms it */
	assert_true(apic_msr_write(vcpu, MSR_LVT_TIMER, 0xb1 | (2u << 17) | (1u << 16)));
	assert_int_equal(host_deadline, 0);
}

static void masked_timer_does_not_fire(void **state)
{
	(void)state;
	assert_true(apic_msr_write(vcpu, MSR_LVT_TIMER, 0xb1 | (2u << 17) | (1u << 16)));
	assert_true(apic_tsc_deadline_write(vcpu, 1));
	assert_int_equal(injected, -1);
	assert_int_equal(apic_timer_due(vcpu), 0);
}

static void register_access_rules(void **state)
{
	u64 v;

	(void)state;
	assert_false(apic_msr_read(vcpu, MSR_EOI, &v));	     /* write-only */
	assert_false(apic_msr_read(vcpu, MSR_SELF_IPI, &v)); /* write-only */
	assert_false(apic_msr_write(vcpu, 0x802, 1));	     /* ID is read-only */
	assert_true(apic_msr_read(vcpu, 0x803, &v));
	assert_int_equal(v & 0xff, 0x14);
	assert_false(apic_msr_write(vcpu, 0x828, 1)); /* ESR: only 0 may be written */
	assert_true(apic_msr_write(vcpu, 0x828, 0));
}

/*
 * The x2APIC MSR map as SDM Vol 3 Table 11-6 lists it, written out here
 * apart from vapic_x2apic.c's table: 'r' read-only, 'w' write-only,
 * 'b' both, anything else reserved (#GP both ways).  LVT CMCI (0x82F)
 * is absent: the version register counts 6 LVT entries.
 */
static char x2apic_sdm_access(u32 msr)
{
	if (msr >= 0x810 && msr <= 0x827) /* ISR, TMR, IRR */
		return 'r';
	switch (msr) {
	case 0x802: /* ID */
	case 0x803: /* version */
	case 0x80a: /* PPR */
	case 0x80d: /* LDR */
	case 0x839: /* current count */
		return 'r';
	case 0x808:	      /* TPR */
	case 0x80f:	      /* SVR */
	case 0x828:	      /* ESR */
	case 0x830:	      /* ICR */
	case 0x832 ... 0x838: /* LVT timer .. error, initial count */
	case 0x83e:	      /* divide configuration */
		return 'b';
	case 0x80b: /* EOI */
	case 0x83f: /* SELF IPI */
		return 'w';
	}
	return '-';
}

/* Every MSR of 0x800-0x8FF: RDMSR and WRMSR of 0 #GP as the map says;
 * bits 63:32 are reserved in all but the ICR (§11.12.1.3). */
static void x2apic_msr_map(void **state)
{
	u64 v;

	(void)state;
	for (u32 msr = 0x800; msr <= 0x8ff; msr++) {
		char a = x2apic_sdm_access(msr);

		if (apic_msr_read(vcpu, msr, &v) != (a == 'r' || a == 'b'))
			fail_msg("RDMSR 0x%x: expected %s", msr,
				 a == 'r' || a == 'b' ? "a value" : "#GP");
		if ((a == 'r' || a == 'b') && msr != 0x830)
			assert_int_equal(v >> 32, 0); /* 32-bit registers */
		if (apic_msr_write(vcpu, msr, 0) != (a == 'w' || a == 'b'))
			fail_msg("WRMSR 0x%x, 0: expected %s", msr,
				 a == 'w' || a == 'b' ? "no #GP" : "#GP");
		if (msr != 0x830 && apic_msr_write(vcpu, msr, 1ull << 32))
			fail_msg("WRMSR 0x%x, 1 << 32: expected #GP", msr);
	}
}

/* Reserved bits within 31:0 and the ICR's (Table 11-6 and its figures). */
static void x2apic_reserved_bits(void **state)
{
	static const struct {
		u32 msr;
		u64 ok, bad;
	} cases[] = {
		{ 0x808, 0xff, 0x100 },		   /* TPR 31:8 */
		{ 0x80b, 0, 1 },		   /* EOI: 0 only */
		{ 0x80f, 0x1ff, 1u << 9 },	   /* SVR: no focus checking */
		{ 0x80f, 0x1ff, 1u << 12 },	   /* SVR: no EOI-broadcast suppression */
		{ 0x828, 0, 1 },		   /* ESR: 0 only */
		{ 0x830, 1ull << 32, 1u << 12 },   /* ICR: no delivery status in x2APIC */
		{ 0x830, 3u << 18, 1u << 13 },	   /* ICR 13 */
		{ 0x830, 0xc000, 1u << 16 },	   /* ICR 17:16 */
		{ 0x830, 0xfff, 1u << 20 },	   /* ICR 31:20 */
		{ 0x832, 0x710ff, 1u << 8 },	   /* LVT timer: no delivery mode */
		{ 0x832, 0x710ff, 1u << 19 },	   /* LVT timer 31:19 */
		{ 0x833, 0x117ff, 1u << 13 },	   /* thermal */
		{ 0x834, 0x117ff, 1u << 11 },	   /* LVTPC */
		{ 0x835, 0x1f7ff, 1u << 11 },	   /* LINT0 */
		{ 0x836, 0x1f7ff, 1u << 17 },	   /* LINT1 */
		{ 0x837, 0x110ff, 1u << 8 },	   /* LVT error: no delivery mode */
		{ 0x838, 0xffffffff, 1ull << 32 }, /* initial count */
		{ 0x83e, 0xb, 1u << 2 },	   /* divide configuration: 0, 1, 3 */
		{ 0x83f, 0xff, 0x100 },		   /* SELF IPI 31:8 */
		{ 0x83f, 0xff, 0xff00 },	   /* ... */
		{ 0x83f, 0xff, 0xff000000 },	   /* ... */
	};

	(void)state;
	vcpu->index = 1; /* the ICR cases send to ID 0 or none: no IPI to itself */
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		if (!apic_msr_write(vcpu, cases[i].msr, cases[i].ok))
			fail_msg("WRMSR 0x%x, 0x%llx: unexpected #GP", cases[i].msr,
				 (unsigned long long)cases[i].ok);
		if (apic_msr_write(vcpu, cases[i].msr, cases[i].ok | cases[i].bad))
			fail_msg("WRMSR 0x%x, 0x%llx: expected #GP", cases[i].msr,
				 (unsigned long long)(cases[i].ok | cases[i].bad));
	}
	vcpu->index = 0;
}

/* Outside x2APIC mode, xAPIC or disabled, every x2APIC MSR #GPs (§11.12.2). */
static void x2apic_msrs_outside_x2apic_mode(void **state)
{
	u64 v;

	(void)state;
	for (int disabled = 0; disabled < 2; disabled++) {
		apic_reset(&vcpu->apic, true, false);
		if (disabled)
			assert_true(apic_base_write(vcpu, APIC_DEFAULT_BASE | APIC_BASE_BSP));
		for (u32 msr = 0x800; msr <= 0x8ff; msr++) {
			assert_false(apic_msr_read(vcpu, msr, &v));
			assert_false(apic_msr_write(vcpu, msr, 0));
		}
	}
}

/* xAPIC mode: MMIO answers, the x2APIC MSRs #GP; the ID sits in bits 31:24. */
static void xapic_mmio_registers(void **state)
{
	u32 v;
	u64 m;

	(void)state;
	vcpu->index = 0;
	apic_reset(&vcpu->apic, true, false);
	assert_false(apic_msr_read(vcpu, 0x802, &m));
	assert_true(apic_mmio_read(vcpu, 0x20, &v));
	assert_int_equal(v, 0);
	assert_true(apic_mmio_read(vcpu, 0x30, &v));
	assert_int_equal(v & 0xff, 0x14);
	assert_true(apic_mmio_read(vcpu, 0xe0, &v));
	assert_int_equal(v, 0xffffffffu); /* DFR: flat model after reset */
	/* a self-IPI through ICR low with the self shorthand, EOI through MMIO */
	assert_true(apic_mmio_write(vcpu, 0x300, (1u << 18) | 0xd0));
	assert_int_equal(injected, 0xd0);
	assert_true(apic_mmio_write(vcpu, 0xb0, 0));
	assert_int_equal(apic_deliverable_vector(&vcpu->apic), -1);
	/* in x2APIC mode the page is no longer decoded */
	assert_true(apic_base_write(vcpu, vcpu->apic.base | APIC_BASE_EXTD));
	assert_false(apic_mmio_read(vcpu, 0x20, &v));
	assert_true(apic_msr_read(vcpu, 0x802, &m));
}

/* SDM Vol 3 §11.12.5: the valid and invalid IA32_APIC_BASE transitions. */
static void apic_base_transitions(void **state)
{
	const u64 base = APIC_DEFAULT_BASE | APIC_BASE_BSP;

	(void)state;
	apic_reset(&vcpu->apic, true, false);
	assert_false(apic_base_write(vcpu, base | APIC_BASE_EXTD)); /* EXTD without EN */
	assert_false(apic_base_write(vcpu, 0x1000 | APIC_BASE_EN | APIC_BASE_BSP)); /* moved */
	assert_false(apic_base_write(vcpu, APIC_DEFAULT_BASE | APIC_BASE_EN));	    /* BSP flag */
	assert_true(apic_mmio_write(vcpu, 0x80, 0x20));				    /* TPR */
	assert_true(apic_base_write(vcpu, base));				    /* disable */
	assert_false(apic_enabled(&vcpu->apic));
	assert_false(
	    apic_base_write(vcpu, base | APIC_BASE_EN | APIC_BASE_EXTD)); /* disabled -> x2 */
	assert_true(apic_base_write(vcpu, base | APIC_BASE_EN));	  /* xAPIC again */
	assert_int_equal(fake_tpr, 0);					  /* its state was lost */
	assert_true(apic_base_write(vcpu, base | APIC_BASE_EN | APIC_BASE_EXTD));
	assert_false(apic_base_write(vcpu, base | APIC_BASE_EN)); /* x2APIC -> xAPIC */
	assert_true(apic_base_write(vcpu, base));		  /* x2APIC -> disabled */
}

/*
 * A VM described without an x2APIC ("x2apic = off"): its CPUID view has
 * no CPUID.1:ECX[21], so IA32_APIC_BASE.EXTD is reserved (§11.12.1) and
 * the x2APIC MSRs stay #GP; xAPIC mode works as before.
 */
static void no_x2apic_refuses_extd(void **state)
{
	const u64 base = APIC_DEFAULT_BASE | APIC_BASE_BSP | APIC_BASE_EN;
	u64 v;

	(void)state;
	vm.cpuid.std[1].ecx &= ~CPUID1_ECX_X2APIC;
	apic_reset(&vcpu->apic, true, false);
	assert_false(apic_base_write(vcpu, base | APIC_BASE_EXTD));
	assert_int_equal(vcpu->apic.base, base);
	assert_false(apic_msr_read(vcpu, 0x802, &v));
	assert_false(apic_msr_write(vcpu, MSR_SELF_IPI, 0xb0));
	assert_true(apic_mmio_read(vcpu, 0x20, &(u32){ 0 }));
	/* the same VM with an x2APIC enters x2APIC mode */
	vm.cpuid.std[1].ecx |= CPUID1_ECX_X2APIC;
	assert_true(apic_base_write(vcpu, base | APIC_BASE_EXTD));
	assert_true(apic_msr_read(vcpu, 0x802, &v));
}

/* One-shot: counts down at TSC / divisor, arms the host timer, fires once. */
static void one_shot_and_periodic_timer(void **state)
{
	u32 v1, v2;

	(void)state;
	apic_reset(&vcpu->apic, true, false);
	assert_true(apic_mmio_write(vcpu, 0x3e0, 0xb)); /* divide by 1 */
	assert_true(apic_mmio_write(vcpu, 0x320, 0xb2));
	assert_true(apic_mmio_write(vcpu, 0x380, 0x40000000));
	assert_true(host_deadline > vcpu->apic.timer_start);
	assert_true(apic_mmio_read(vcpu, 0x390, &v1));
	assert_true(apic_mmio_read(vcpu, 0x390, &v2));
	assert_true(v1 <= 0x40000000 && v2 <= v1);
	assert_int_equal(injected, -1);
	/* a count of 1 expires at once: one interrupt, count 0, disarmed */
	assert_true(apic_mmio_write(vcpu, 0x380, 1));
	for (volatile int i = 0; i < 1000; i++)
		;
	apic_poll_timer(vcpu);
	assert_int_equal(injected, 0xb2);
	assert_true(apic_mmio_read(vcpu, 0x390, &v1));
	assert_int_equal(v1, 0);
	assert_int_equal(host_deadline, 0);
	/* periodic: after expiring it is armed again */
	assert_true(apic_mmio_write(vcpu, 0xb0, 0));
	injected = -1;
	assert_true(apic_mmio_write(vcpu, 0x320, 0xb3 | (1u << 17)));
	assert_true(apic_mmio_write(vcpu, 0x380, 1));
	for (volatile int i = 0; i < 1000; i++)
		;
	apic_poll_timer(vcpu);
	assert_int_equal(injected, 0xb3);
	assert_true(host_deadline != 0);
	assert_true(apic_mmio_read(vcpu, 0x390, &v1));
	assert_true(v1 >= 1 && v1 <= 1);
	/* the divide configuration: 0 means 2, 0xa means 128 (Figure 11-10) */
	assert_true(apic_mmio_write(vcpu, 0x3e0, 0xa));
	assert_true(apic_mmio_read(vcpu, 0x3e0, &v1));
	assert_int_equal(v1, 0xa);
}

/* Between one-shot and periodic the count goes on; into TSC-deadline
 * mode it stops (SDM Vol 3 §11.5.4.1). */
static void timer_mode_changes(void **state)
{
	u32 v;

	(void)state;
	apic_reset(&vcpu->apic, true, false);
	assert_true(apic_mmio_write(vcpu, 0x3e0, 0xb));	       /* divide by 1 */
	assert_true(apic_mmio_write(vcpu, 0x320, 0xb2));       /* one-shot */
	assert_true(apic_mmio_write(vcpu, 0x380, 0x40000000)); /* far off */
	assert_true(apic_mmio_write(vcpu, 0x320, 0xb2 | LVT_TIMER_PERIODIC));
	assert_true(apic_mmio_read(vcpu, 0x380, &v));
	assert_int_equal(v, 0x40000000); /* TMICT kept */
	assert_true(apic_mmio_read(vcpu, 0x390, &v));
	assert_true(v > 0 && v <= 0x40000000); /* still counting */
	assert_true(host_deadline != 0);
	/* back to one-shot mid-period: the rest of the period is the count */
	assert_true(apic_mmio_write(vcpu, 0x320, 0xb2));
	assert_true(apic_mmio_read(vcpu, 0x390, &v));
	assert_true(v > 0 && v <= 0x40000000);
	/* a one-shot count that reached 0 stays there in periodic mode */
	assert_true(apic_mmio_write(vcpu, 0x380, 1));
	for (volatile int i = 0; i < 1000; i++)
		;
	apic_poll_timer(vcpu);
	assert_int_equal(injected, 0xb2);
	assert_true(apic_mmio_write(vcpu, 0x320, 0xb2 | LVT_TIMER_PERIODIC));
	assert_true(apic_mmio_read(vcpu, 0x390, &v));
	assert_int_equal(v, 0);
	assert_int_equal(host_deadline, 0);
	/* into TSC-deadline mode: disarmed, TMICT cleared */
	assert_true(apic_mmio_write(vcpu, 0x380, 0x40000000));
	assert_true(apic_mmio_write(vcpu, 0x320, 0xb2 | LVT_TIMER_TSC_DEADLINE));
	assert_true(apic_mmio_read(vcpu, 0x380, &v));
	assert_int_equal(v, 0);
	assert_int_equal(host_deadline, 0);
}

/* INIT then SIPI start a waiting AP at the vector; SIPI alone does nothing. */
static void init_sipi_starts_a_waiting_ap(void **state)
{
	struct vcpu *ap = second_vcpu(false);

	(void)state;
	ap->wait_sipi = true;
	assert_true(apic_mmio_write(vcpu, 0x310, 1u << 24));
	assert_true(apic_mmio_write(vcpu, 0x300, (6u << 8) | 0x08)); /* SIPI before INIT */
	assert_int_equal(ap->sipi_state, SIPI_WAITING);
	/* INIT level de-assert is ignored */
	assert_true(apic_mmio_write(vcpu, 0x300, (5u << 8) | (1u << 15)));
	assert_int_equal(ap->sipi_state, SIPI_WAITING);
	/* all excluding self: INIT assert, then SIPI vector 8 */
	assert_true(apic_mmio_write(vcpu, 0x300, (3u << 18) | (5u << 8) | (1u << 14)));
	assert_int_equal(ap->sipi_state, SIPI_INIT_SEEN);
	assert_true(apic_mmio_write(vcpu, 0x300, (3u << 18) | (6u << 8) | 0x08));
	assert_int_equal(ap->sipi_state, SIPI_STARTED);
	assert_int_equal(ap->sipi_vector, 0x08);
	assert_int_equal(kicks, 1);
	assert_true(apic_wait_for_sipi(ap));
}

/* Logical destination, flat model: LDR bits 31:24 against the ICR's mask. */
static void logical_flat_destination(void **state)
{
	struct vcpu *other = second_vcpu(false);

	(void)state;
	assert_true(apic_mmio_write(other, 0xd0, 0x02000000));
	assert_true(apic_mmio_write(vcpu, 0x310, 0x06000000));
	assert_true(apic_mmio_write(vcpu, 0x300, (1u << 11) | 0xc4));
	assert_int_equal(apic_deliverable_vector(&other->apic), 0xc4);
	assert_int_equal(injected, -1); /* LDR 0 of the sender does not match */
}

#define MSR_LVTPC 0x834

/* The LVTPC as programmed: fixed or NMI delivery; only Intel's masks itself. */
static void pmi_follows_the_lvtpc(void **state)
{
	u64 lvt;
	int before;

	(void)state;
	assert_true(apic_msr_write(vcpu, MSR_LVTPC, 0xf0));
	assert_true(apic_raise_pmi(vcpu, false)); /* AMD */
	assert_int_equal(injected, 0xf0);
	assert_true(apic_msr_read(vcpu, MSR_LVTPC, &lvt));
	assert_int_equal(lvt, 0xf0);
	assert_true(apic_msr_write(vcpu, MSR_EOI, 0));
	injected = -1;
	assert_true(apic_raise_pmi(vcpu, true)); /* Intel */
	assert_int_equal(injected, 0xf0);
	assert_true(apic_msr_read(vcpu, MSR_LVTPC, &lvt));
	assert_int_equal(lvt, 0xf0 | BIT(16));
	assert_true(apic_msr_write(vcpu, MSR_EOI, 0));
	injected = -1;
	assert_false(apic_raise_pmi(vcpu, true)); /* masked: nothing */
	assert_int_equal(injected, -1);

	/* NMI delivery, as Linux programs it: an NMI, no vector */
	before = nmis;
	assert_true(apic_msr_write(vcpu, MSR_LVTPC, 4u << 8));
	assert_true(apic_raise_pmi(vcpu, false));
	assert_int_equal(nmis, before + 1);
	assert_int_equal(injected, -1);
	assert_true(apic_msr_read(vcpu, MSR_LVTPC, &lvt));
	assert_int_equal(lvt, 4u << 8);

	/* ExtINT (7): not offered, no PMI */
	assert_true(apic_msr_write(vcpu, MSR_LVTPC, 7u << 8));
	assert_false(apic_raise_pmi(vcpu, false));
	assert_int_equal(nmis, before + 1);
	assert_int_equal(injected, -1);
}

/*
 * An NMI (a PMI through an LVTPC with NMI delivery) raised while an
 * interrupt waits in SVM's one event slot for the next entry: the NMI
 * ranks above it (SDM Vol 3 §6.9, Table 6-2), so the interrupt goes back
 * to the IRR (its ISR bit cleared, as not delivered) and the NMI takes
 * the slot; the interrupt waits for its window.  No NMI window: on SVM
 * that was a single step whose TF the queued interrupt's delivery pushed
 * into the handler's frame, and the guest's IRET brought it back as a
 * #DB of its own (issue 28, perf test 35 under sw-lazy).
 */
static void nmi_takes_back_a_queued_interrupt(void **state)
{
	u64 isr;
	int before = nmis;

	(void)state;
	event_slot = true;
	assert_true(apic_msr_write(vcpu, MSR_SELF_IPI, 0xb0));
	assert_int_equal(injected, 0xb0);
	assert_true(apic_msr_write(vcpu, MSR_LVTPC, 4u << 8));
	assert_true(apic_raise_pmi(vcpu, false));
	assert_int_equal(nmis, before + 1);
	assert_int_equal(nmi_windows, 0);
	assert_int_equal(vcpu->nmi_pending, 0);
	assert_int_equal(injected, -1);
	assert_true(window); /* the interrupt's */
	assert_true(apic_msr_read(vcpu, MSR_ISR0 + 5, &isr));
	assert_int_equal(isr, 0);
	assert_int_equal(apic_deliverable_vector(&vcpu->apic), 0xb0);
	/* the NMI delivered, the interrupt follows at its window */
	nmi_queued = false;
	apic_update_interrupts(vcpu);
	assert_int_equal(injected, 0xb0);
	assert_false(window);
}

/*
 * HLT with several vCPUs (core/vcpu_halt.c): the host timer ends the CPU's sleep
 * at the guest's TSC deadline, and the timer check delivers the expiry
 * at once.  The HLT is over: the vector waits in the backend, the IRR is
 * empty.
 */
static struct host_timer halt_timer;

static void deadline_reached(void)
{
	vcpu->apic.tsc_deadline = 1; /* the TSC passed it meanwhile */
}

static void halt_ends_at_its_timer(void **state)
{
	(void)state;
	second_vcpu(false);
	vcpu->timer = &halt_timer;
	assert_true(apic_mmio_write(vcpu, 0x320, 0xec | (2u << 17)));
	assert_true(apic_tsc_deadline_write(vcpu, ~0ull));
	on_idle = deadline_reached;
	vcpu_halt(vcpu);
	assert_int_equal(idle_waits, 1);
	assert_int_equal(injected, 0xec);
	assert_int_equal(vm.stop, VM_RUNNING);
}

/*
 * Issue 28: Linux's call-function IPI (0xfb) from the other vCPU and the
 * halted vCPU's own timer (0xec) in one wake-up.  The timer check
 * delivers 0xfb, which holds 0xec back (its class is lower): no vector
 * is deliverable, yet the HLT is over.
 */
static void ipi_and_timer_at_once(void)
{
	apic_mmio_write(&vm.vcpus[1], 0x310, 0); /* to APIC ID 0 */
	apic_mmio_write(&vm.vcpus[1], 0x300, 0xfb);
	deadline_reached();
}

static void halt_ends_for_an_ipi_and_its_timer_at_once(void **state)
{
	u32 irr;

	(void)state;
	second_vcpu(false);
	vcpu->timer = &halt_timer;
	assert_true(apic_mmio_write(vcpu, 0x320, 0xec | (2u << 17)));
	assert_true(apic_tsc_deadline_write(vcpu, ~0ull));
	on_idle = ipi_and_timer_at_once;
	vcpu_halt(vcpu);
	assert_int_equal(idle_waits, 1);
	assert_int_equal(injected, 0xfb);
	assert_true(apic_mmio_read(vcpu, 0x200 + 0x70, &irr)); /* IRR 224-255 */
	assert_int_equal(irr, 1u << (0xec - 224));
	assert_int_equal(vm.stop, VM_RUNNING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(self_ipi_injects_and_sets_isr, setup),
		cmocka_unit_test_setup(if_clear_asks_for_a_window, setup),
		cmocka_unit_test_setup(ipi_to_another_vcpu, setup),
		cmocka_unit_test_setup(ipi_during_its_handler, setup),
		cmocka_unit_test_setup(tpr_blocks_lower_classes, setup),
		cmocka_unit_test_setup(cr8_is_the_tpr, setup),
		cmocka_unit_test_setup(cr8_of_four_bits, setup),
		cmocka_unit_test_setup(in_service_in_other_words, setup),
		cmocka_unit_test_setup(tpr_closes_and_reopens_the_window, setup),
		cmocka_unit_test_setup(level_vectors_set_tmr_and_eoi_to_the_ioapic, setup),
		cmocka_unit_test_setup(in_service_blocks_same_class, setup),
		cmocka_unit_test_setup(icr_self_ipis_only, setup),
		cmocka_unit_test_setup(tsc_deadline_in_the_past_fires, setup),
		cmocka_unit_test_setup(future_deadline_arms_the_host_timer, setup),
		cmocka_unit_test_setup(masked_timer_does_not_fire, setup),
		cmocka_unit_test_setup(register_access_rules, setup),
		cmocka_unit_test_setup(x2apic_msr_map, setup),
		cmocka_unit_test_setup(x2apic_reserved_bits, setup),
		cmocka_unit_test_setup(x2apic_msrs_outside_x2apic_mode, setup),
		cmocka_unit_test_setup(xapic_mmio_registers, setup),
		cmocka_unit_test_setup(apic_base_transitions, setup),
		cmocka_unit_test_setup(no_x2apic_refuses_extd, setup),
		cmocka_unit_test_setup(one_shot_and_periodic_timer, setup),
		cmocka_unit_test_setup(timer_mode_changes, setup),
		cmocka_unit_test_setup(init_sipi_starts_a_waiting_ap, setup),
		cmocka_unit_test_setup(logical_flat_destination, setup),
		cmocka_unit_test_setup(pmi_follows_the_lvtpc, setup),
		cmocka_unit_test_setup(nmi_takes_back_a_queued_interrupt, setup),
		cmocka_unit_test_setup(halt_ends_at_its_timer, setup),
		cmocka_unit_test_setup(halt_ends_for_an_ipi_and_its_timer_at_once, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
