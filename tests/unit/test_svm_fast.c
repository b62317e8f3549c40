// SPDX-License-Identifier: MIT
/*
 * SVM's fast exit handlers (hv/svm/svm_fast.c) against a VMCB in memory:
 * a port device they call may raise an interrupt line, and the APIC then
 * injects the vector into EVENTINJ at once (apic_update_interrupts, with
 * the vector moved from IRR to ISR).  The handler's own bookkeeping must
 * not wipe that injection afterwards: the vector would stay in service
 * and never reach the guest, blocking its priority class until reset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "svm/svm.h"
#include "svm/svm_exit.h"
#include "core/fast_exit.h"
#include "core/vm.h"
#include "arch/regs.h"

#define DEVICE_PORT 0x3f9 /* a UART's IER: enabling THRE raises its line */
#define VECTOR 0x24

static struct vmcb vmcb;
static struct vm vm;
static struct vcpu vcpu;
static int general_calls;

/* The port device: the write injects, as the APIC does for an
 * interrupt the guest can take now. */
bool io_port_fast(struct vcpu *v, u16 port, u8 size, bool in, u64 *rax)
{
	if (port != DEVICE_PORT)
		return false;
	if (!in)
		vmcb.control.event_inj = VECTOR | EVENT_TYPE_INTR | EVENT_VALID;
	return true;
}

int svm_handle_exit(struct vcpu *v, struct vmcb *vm_cb)
{
	general_calls++;
	return 1;
}

int svm_handle_exit_nrips(struct vcpu *v, struct vmcb *vm_cb)
{
	general_calls++;
	return 1;
}

int svm_pmu_general_exit(struct vcpu *v, struct vmcb *vm_cb)
{
	general_calls++;
	return 1;
}

void guest_cpuid_any(struct vcpu *v, u32 leaf, u32 subleaf, struct cpuid_regs *r)
{
	memset(r, 0, sizeof(*r));
}

static int setup(void **state)
{
	memset(&vmcb, 0, sizeof(vmcb));
	memset(&vcpu, 0, sizeof(vcpu));
	vm.stop = VM_RUNNING;
	vcpu.vm = &vm;
	general_calls = 0;
	svm_fast_exits_init(true);
	return 0;
}

/* OUT DX, AL to the device: EXITINFO1 port in 31:16, size 8 bits (bit 4),
 * EXITINFO2 the next RIP (APM Vol 2 §15.10.2). */
static void device_injection_survives(void **state)
{
	vmcb.control.exit_code = SVM_EXIT_IOIO;
	vmcb.control.exit_info_1 = ((u64)DEVICE_PORT << 16) | BIT(4);
	vmcb.control.exit_info_2 = 0x1001;
	vmcb.save.rip = 0x1000;
	vmcb.save.rax = 0x02;
	assert_int_equal(svm_fast_exits[SVM_EXIT_IOIO](&vcpu, &vmcb), 1);
	assert_int_equal(general_calls, 0);
	assert_int_equal(vmcb.save.rip, 0x1001);
	assert_int_equal(vmcb.control.event_inj, VECTOR | EVENT_TYPE_INTR | EVENT_VALID);
	assert_int_equal(vcpu.exits[EXIT_IO], 1);
}

/* An event injected at the last entry and taken by the guest is not
 * injected again: the fast path clears EVENTINJ as the general one does. */
static void old_injection_cleared(void **state)
{
	vmcb.control.event_inj = 0x31 | EVENT_TYPE_INTR | EVENT_VALID;
	vmcb.control.exit_code = SVM_EXIT_IOIO;
	vmcb.control.exit_info_1 = ((u64)DEVICE_PORT << 16) | BIT(4) | BIT(0); /* IN */
	vmcb.control.exit_info_2 = 0x1001;
	assert_int_equal(svm_fast_exits[SVM_EXIT_IOIO](&vcpu, &vmcb), 1);
	assert_int_equal(vmcb.control.event_inj, 0);
	vmcb.control.event_inj = 0x31 | EVENT_TYPE_INTR | EVENT_VALID;
	vmcb.control.exit_code = SVM_EXIT_CPUID;
	vmcb.control.next_rip = 0x2002;
	vcpu.cpuid_view = NULL;
	vmcb.save.rax = 0x80000000u + 0x7fff; /* no cached leaf: out of line */
	assert_int_equal(svm_fast_exits[SVM_EXIT_CPUID](&vcpu, &vmcb), 1);
	assert_int_equal(vmcb.control.event_inj, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(device_injection_survives, setup),
		cmocka_unit_test_setup(old_injection_cleared, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
