// SPDX-License-Identifier: MIT
/*
 * The hypercall ABI of guest_abi.h.  Every guest pointer is checked to lie
 * wholly inside guest RAM before it is read or written; a bad one returns
 * HC_ERROR to the guest.  Results and questions go on to the VM's harness
 * (vm_harness.h); a VM without one answers them with HC_ERROR.
 */
#include "platform/console.h"
#include "exit_dispatch.h"
#include "lib/guest_abi.h"
#include "vdev/guest_console.h"
#include "lib/stats.h"
#include "lib/nospec.h"
#include "vcpu.h"
#include "vm_harness.h"
#include "arch/x86.h"

typedef u64 hypercall_fn(struct vcpu *vcpu, u64 a0, u64 a1);

#define HC_PRINT_MAX 4096

/* Copy a struct out of guest-physical RAM; false when it is not all inside. */
static bool copy_from_guest_phys(struct vm *vm, void *dst, u64 gpa, size_t len)
{
	const void *src = gpa_to_hva(vm, gpa, len);

	if (!src)
		return false;
	__builtin_memcpy(dst, src, len);
	return true;
}

/*
 * A guest's string as the harness gets it: terminated, and printable
 * ASCII only, since the lab prints it inside its own lines ("mhv: PASS
 * suite/name: reason", the MHV-JSON line) where a newline would let a
 * guest forge a line of mhv's.
 */
static void guest_string(char *s, size_t size)
{
	s[size - 1] = 0;
	guest_text_clean(s);
}

static u64 hc_print(struct vcpu *vcpu, u64 str, u64 len)
{
	const char *s;
	u64 i;

	if (len > HC_PRINT_MAX || !(s = gpa_to_hva(vcpu->vm, str, len)))
		return HC_ERROR;
	for (i = 0; i < len; i++)
		guest_console_putc(vcpu->vm, s[i]);
	return 0;
}

static u64 hc_test_result(struct vcpu *vcpu, u64 gpa, u64 a1)
{
	struct vm *vm = vcpu->vm;
	struct hc_test_result r;

	if (!vm->harness || !copy_from_guest_phys(vm, &r, gpa, sizeof(r)) || r.status > TEST_SKIP)
		return HC_ERROR;
	guest_string(r.name, sizeof(r.name));
	guest_string(r.reason, sizeof(r.reason));
	guest_console_flush(vm);
	return vm->harness->test_result(vm->harness_ctx, r.name, r.status, r.reason) ? 0 : HC_ERROR;
}

/*
 * One buffer for the samples (32 KiB, too big for an AP's stack): CPUs
 * that run VMs at once take turns, which costs nothing measured since a
 * guest reports a result after its timed loops.
 */
static u64 bench_samples[HC_BENCH_MAX_SAMPLES];
static volatile bool bench_samples_lock;

static u64 hc_bench_result(struct vcpu *vcpu, u64 gpa, u64 a1)
{
	struct vm *vm = vcpu->vm;
	struct hc_bench_result r;
	struct sample_stats st;
	bool copied;

	if (!vm->harness || !copy_from_guest_phys(vm, &r, gpa, sizeof(r)) ||
	    r.nr_samples > HC_BENCH_MAX_SAMPLES)
		return HC_ERROR;
	guest_string(r.name, sizeof(r.name));
	guest_string(r.skip_reason, sizeof(r.skip_reason));
	/* samples overlapping the struct they are described by: a guest error */
	if (r.samples_gpa < gpa + sizeof(r) && gpa < r.samples_gpa + r.nr_samples * sizeof(u64))
		return HC_ERROR;
	spin_lock(&bench_samples_lock);
	copied = copy_from_guest_phys(vm, bench_samples, r.samples_gpa, r.nr_samples * sizeof(u64));
	if (copied)
		stats_compute(bench_samples, r.nr_samples, &st);
	spin_unlock(&bench_samples_lock);
	if (!copied || !vm->harness->bench_result(vm->harness_ctx, &r, &st))
		return HC_ERROR;
	return 0;
}

static u64 hc_exit(struct vcpu *vcpu, u64 code, u64 a1)
{
	vm_stop_exit(vcpu->vm, (s64)code, "guest exit, code %lld", (long long)code);
	return 0;
}

static u64 hc_test_wanted(struct vcpu *vcpu, u64 name_gpa, u64 a1)
{
	struct vm *vm = vcpu->vm;
	char name[HC_NAME_LEN];

	if (!vm->harness || !copy_from_guest_phys(vm, name, name_gpa, sizeof(name)))
		return HC_ERROR;
	guest_string(name, sizeof(name));
	return vm->harness->test_wanted(vm->harness_ctx, name);
}

static u64 hc_exit_count(struct vcpu *vcpu, u64 kind, u64 a1)
{
	return kind < EXIT_KIND_COUNT ? vcpu->exits[array_index_nospec(kind, EXIT_KIND_COUNT)]
				      : HC_ERROR;
}

/* The guest picks the address: the struct may be misaligned (found by
 * tests/fuzz/fuzz_hypercall.c), so it is built here and copied out. */
static u64 hc_params(struct vcpu *vcpu, u64 gpa, u64 variant)
{
	struct vm *vm = vcpu->vm;
	void *dst = gpa_to_hva(vm, gpa, sizeof(struct hc_params));
	struct hc_params p = { 0 };

	if (!vm->harness || !dst)
		return HC_ERROR;
	vm->harness->params(vm->harness_ctx, &p);
	/* the samples of one result must fit hc_bench_result's buffer */
	if (p.batches > HC_BENCH_MAX_SAMPLES)
		p.batches = HC_BENCH_MAX_SAMPLES;
	p.variant = 0;
	__builtin_memcpy(dst, &p, sizeof(p));
	return 0;
}

static u64 hc_timestamps(struct vcpu *vcpu, u64 a0, u64 a1)
{
	vcpu->regs.gpr[GPR_RDX] = vcpu->timing.entry_tsc;
	return vcpu->timing.exit_tsc;
}

static hypercall_fn *const hypercalls[HC_COUNT] = {
	[HC_PRINT] = hc_print,
	[HC_TEST_RESULT] = hc_test_result,
	[HC_BENCH_RESULT] = hc_bench_result,
	[HC_EXIT] = hc_exit,
	[HC_TEST_WANTED] = hc_test_wanted,
	[HC_EXIT_COUNT] = hc_exit_count,
	[HC_PARAMS] = hc_params,
	[HC_TIMESTAMPS] = hc_timestamps,
};

void handle_hypercall(struct vcpu *vcpu, const struct vm_exit *exit)
{
	u64 *regs = vcpu->regs.gpr;
	u64 nr = regs[GPR_RAX];

	/* HC_NULL is the benchmark floor: it only returns and skips
	 * the instruction, without the table's indirect call. */
	if (nr == HC_NULL)
		regs[GPR_RAX] = 0;
	else if (nr < HC_COUNT)
		regs[GPR_RAX] = hypercalls[array_index_nospec(nr, HC_COUNT)](vcpu, regs[GPR_RDI],
									     regs[GPR_RSI]);
	else
		regs[GPR_RAX] = HC_ERROR;
	vcpu_skip_insn(vcpu, exit);
}
