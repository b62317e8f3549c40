// SPDX-License-Identifier: MIT
/*
 * libFuzzer: hypercall argument decoding (hv/hypercall.c) against a guest
 * whose RAM is exactly the rest of the input, allocated to its size so
 * that AddressSanitizer catches any access outside it.  Input: number
 * (1 byte), RDI and RSI (8 bytes each), then guest RAM.  The rest of mhv
 * is stubbed, the lab by a harness that checks what reaches it: only
 * where the arguments lead is under test.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vdev/guest_console.h"
#include "core/vcpu.h"
#include "core/vm_config.h"
#include "core/vm_harness.h"

static const struct vm_config config = { .name = "default", .description = "fuzz" };

/* Strings from the guest arrive terminated and printable ASCII only: the
 * lab prints them inside its own lines. */
static void check_terminated(const char *s, size_t size)
{
	size_t i, len = strnlen(s, size);

	if (len == size)
		__builtin_trap();
	for (i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			__builtin_trap();
}

static bool fuzz_test_result(void *ctx, const char *name, enum test_status st, const char *reason)
{
	check_terminated(name, HC_NAME_LEN);
	check_terminated(reason, HC_REASON_LEN);
	return true;
}

static bool fuzz_bench_result(void *ctx, const struct hc_bench_result *r,
			      const struct sample_stats *st)
{
	check_terminated(r->name, sizeof(r->name));
	check_terminated(r->skip_reason, sizeof(r->skip_reason));
	return true;
}

static bool fuzz_test_wanted(void *ctx, const char *name)
{
	check_terminated(name, HC_NAME_LEN);
	return true;
}

static void fuzz_params(void *ctx, struct hc_params *p)
{
	p->iterations = 1000;
	p->batches = 20;
	p->warmup = 1000;
}

static const struct vm_harness harness = {
	.test_result = fuzz_test_result,
	.bench_result = fuzz_bench_result,
	.test_wanted = fuzz_test_wanted,
	.params = fuzz_params,
};

void guest_console_putc(struct vm *vm, char c)
{
}

void guest_console_flush(struct vm *vm)
{
}

void vm_stop(struct vm *vm, enum vm_stop why, const char *fmt, ...)
{
	vm->stop = why;
}

void vm_stop_exit(struct vm *vm, s64 code, const char *fmt, ...)
{
	vm->stop = VM_STOP_EXIT;
}

bool vcpu_skip_decoded(struct vcpu *vcpu, enum insn_op op)
{
	return true;
}

void vcpu_single_step_trap(struct vcpu *vcpu)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vm vm;
	struct vm_exit exit = { .kind = EXIT_HYPERCALL, .next_rip = 0x1000 };
	uint64_t a0, a1;
	uint8_t *ram;

	if (size < 17 + 1 || size > 17 + 65536)
		return 0;
	memset(&vm, 0, sizeof(vm));
	vm.config = &config;
	vm.harness = &harness;
	vm.nr_vcpus = 1;
	vm.vcpus[0].vm = &vm;
	vm.vcpus[0].guest_rflags = &vm.vcpus[0].exit_rflags; /* TF clear */
	vm.ram_size = size - 17;
	ram = malloc(vm.ram_size);
	memcpy(ram, data + 17, vm.ram_size);
	vm.ram_hpa = (uint64_t)(uintptr_t)ram;
	memcpy(&a0, data + 1, 8);
	memcpy(&a1, data + 9, 8);
	vm.vcpus[0].regs.gpr[GPR_RAX] = data[0] % (HC_COUNT + 2); /* includes unknown numbers */
	vm.vcpus[0].regs.gpr[GPR_RDI] = a0;
	vm.vcpus[0].regs.gpr[GPR_RSI] = a1;
	handle_hypercall(&vm.vcpus[0], &exit);
	free(ram);
	return 0;
}
