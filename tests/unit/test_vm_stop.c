// SPDX-License-Identifier: MIT
/*
 * A VM's first stop wins, with its exit code (hv/core/vm_stop.c): two
 * vCPUs on two CPUs exit through the real hypercall handler, the second
 * before the first one's kick has reached it, as a guest can arrange.
 * The failing code of the first must stand, and the other CPU is kicked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vdev/guest_console.h"
#include "core/vcpu.h"
#include "core/vm_config.h"
#include "host/smp.h"

static struct vm vm;
static struct cpu fake_cpus[2];
static struct cpu *self;
static unsigned kicks[2];

void guest_console_putc(struct vm *v, char c)
{
}

void guest_console_flush(struct vm *v)
{
}

bool vcpu_skip_decoded(struct vcpu *vcpu, enum insn_op op)
{
	return true;
}

void vcpu_single_step_trap(struct vcpu *vcpu)
{
}

struct cpu *this_cpu(void)
{
	return self;
}

void smp_kick(struct cpu *c)
{
	kicks[c - fake_cpus]++;
}

/* vCPU @i, on its CPU, makes hypercall @nr with argument @a0. */
static uint64_t hypercall_on(unsigned i, uint64_t nr, uint64_t a0)
{
	struct vm_exit exit = { .kind = EXIT_HYPERCALL, .next_rip = 0x1000 };
	struct vcpu *v = &vm.vcpus[i];

	self = &fake_cpus[i];
	v->regs.gpr[GPR_RAX] = nr;
	v->regs.gpr[GPR_RDI] = a0;
	handle_hypercall(v, &exit);
	return v->regs.gpr[GPR_RAX];
}

static int setup(void **state)
{
	unsigned i;

	memset(&vm, 0, sizeof(vm));
	memset(kicks, 0, sizeof(kicks));
	vm.nr_vcpus = 2;
	for (i = 0; i < 2; i++) {
		vm.vcpus[i].vm = &vm;
		vm.vcpus[i].index = i;
		vm.vcpus[i].cpu = &fake_cpus[i];
		vm.vcpus[i].guest_rflags = &vm.vcpus[i].exit_rflags; /* TF clear */
	}
	return 0;
}

static void first_exit_code_wins(void **state)
{
	hypercall_on(0, HC_EXIT, 1);
	assert_int_equal(vm.stop, VM_STOP_EXIT);
	assert_int_equal(vm.exit_code, 1);
	assert_int_equal(kicks[1], 1);
	assert_int_equal(kicks[0], 0);
	/* vCPU 1 was in the guest, not yet kicked out: it reports success */
	hypercall_on(1, HC_EXIT, 0);
	assert_int_equal(vm.exit_code, 1);
	assert_non_null(strstr(vm.stop_reason, "code 1"));
	assert_int_equal(kicks[0], 0);
}

/* Any other first stop keeps the exit code it has: a later exit is not it. */
static void exit_after_other_stop(void **state)
{
	self = &fake_cpus[1];
	vm_stop(&vm, VM_STOP_TIME_LIMIT, "cpu %u still ran it", 1);
	hypercall_on(0, HC_EXIT, 0x55);
	assert_int_equal(vm.stop, VM_STOP_TIME_LIMIT);
	assert_int_equal(vm.exit_code, 0);
	assert_string_equal(vm.stop_reason, "cpu 1 still ran it");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(first_exit_code_wins, setup),
		cmocka_unit_test_setup(exit_after_other_stop, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
