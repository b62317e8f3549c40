// SPDX-License-Identifier: MIT
/*
 * libFuzzer: hypercall argument decoding (hv/hypercall.c) against a guest
 * whose RAM is exactly the rest of the input, allocated to its size so
 * that AddressSanitizer catches any access outside it.  Input: number
 * (1 byte), RDI and RSI (8 bytes each), then guest RAM.  The rest of mhv
 * is stubbed: only where the arguments lead is under test.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vdev/guest_console.h"
#include "lab/runner.h"
#include "core/vcpu.h"
#include "core/vm_config.h"

static struct run_results results;
static struct mhv_config cfg;
static const struct vm_config config = { "default", "fuzz", false, NULL, "off", false, false };

bool vm_config_wants(const struct vm_config *c, const char *test)
{
	return true;
}

void results_test(struct run_results *r, const char *suite, const char *name, enum test_status st,
		  const char *reason)
{
	if (strnlen(name, HC_NAME_LEN) == HC_NAME_LEN ||
	    strnlen(reason, HC_REASON_LEN) == HC_REASON_LEN)
		__builtin_trap(); /* strings from the guest arrive terminated */
}

struct bench_row *results_bench_row(struct run_results *r)
{
	static struct bench_row row;

	return &row;
}

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

bool vcpu_skip_decoded(struct vcpu *vcpu, enum insn_op op)
{
	return true;
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
	config_defaults(&cfg);
	results.cfg = &cfg;
	vm.results = &results;
	vm.config = &config;
	vm.suite = "fuzz";
	vm.nr_vcpus = 1;
	vm.vcpus[0].vm = &vm;
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
