// SPDX-License-Identifier: MIT
/* How a VM stops: the first stop, its reason and exit code, the kick. */
#include "vm.h"
#include "lib/fmt.h"
#include "host/smp.h"

static const char *const stop_names[] = {
	[VM_RUNNING] = "running",
	[VM_STOP_EXIT] = "exit",
	[VM_STOP_TRIPLE_FAULT] = "triple-fault",
	[VM_STOP_BAD_ACCESS] = "bad-access",
	[VM_STOP_ENTRY_FAILED] = "entry-failed",
	[VM_STOP_UNHANDLED] = "unhandled-exit",
	[VM_STOP_INSN_DECODE] = "instruction-mismatch",
	[VM_STOP_TIME_LIMIT] = "time-limit",
	[VM_STOP_RESET] = "reset",
};

const char *vm_stop_name(enum vm_stop why)
{
	return why < ARRAY_SIZE(stop_names) ? stop_names[why] : "unknown";
}

/*
 * The first stop wins, with its reason and, for a guest's exit, its exit
 * code: a vCPU that exits after it (before the kick lands) changes
 * neither.  Every vCPU running on another CPU is kicked out of guest
 * mode to see it, whoever stops the VM: one of its vCPUs, or the BSP
 * giving up on a CPU that overran.
 */
static void stop_first(struct vm *vm, enum vm_stop why, const s64 *code, const char *fmt,
		       va_list ap)
{
	enum vm_stop running = VM_RUNNING;
	struct cpu *self;
	u32 i;

	if (!__atomic_compare_exchange_n(&vm->stop, &running, why, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return;
	if (code)
		vm->exit_code = *code;
	fmt_vsnprintf(vm->stop_reason, sizeof(vm->stop_reason), fmt, ap);
	self = this_cpu();
	for (i = 0; i < vm->nr_vcpus; i++)
		if (vm->vcpus[i].cpu && vm->vcpus[i].cpu != self)
			smp_kick(vm->vcpus[i].cpu);
}

void vm_stop(struct vm *vm, enum vm_stop why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stop_first(vm, why, NULL, fmt, ap);
	va_end(ap);
}

void vm_stop_exit(struct vm *vm, s64 code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stop_first(vm, VM_STOP_EXIT, &code, fmt, ap);
	va_end(ap);
}
