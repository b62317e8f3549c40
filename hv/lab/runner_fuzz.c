// SPDX-License-Identifier: MIT
/*
 * The fuzz suite's flight recorder on the host side: after a fuzz VM that
 * failed a test, or after which mhv's self-check fails, the seed and the
 * last operations the guest wrote to its ring (lib/guest_abi.h
 * GUEST_FUZZ_RING), so that the run can be replayed ("fuzz_seed =").
 */
#include "runner_priv.h"
#include "host/selfcheck.h"
#include "lib/guest_abi.h"
#include "platform/console.h"

/* The fuzz guest's names of enum fuzz_op (guest-tests/fuzz/fuzz.h). */
static const char *const fuzz_op_names[] = {
	"cpuid",     "rdmsr",	   "wrmsr", "in",    "out",   "ins",	"outs",
	"mmio-read", "mmio-write", "cr",    "xcr0",  "dr",    "hcall",	"invlpg",
	"ipi",	     "timer",	   "hlt",   "rdpmc", "xsave", "xrstor",
};

static void print_ring(struct vm *vm)
{
	const struct fuzz_ring *r = gpa_to_hva(vm, GUEST_FUZZ_RING, sizeof(*r));
	u32 i, done;

	if (!r || r->magic != FUZZ_RING_MAGIC) {
		console_printf("mhv: fuzz: vm %s left no operation ring\n", vm->name);
		return;
	}
	done = r->done;
	console_printf("mhv: fuzz: vm %s: seed %u (fuzz_seed = %u replays it), %u ops; the last:\n",
		       vm->name, r->seed, r->seed, done);
	for (i = done >= FUZZ_RING_LEN ? done - FUZZ_RING_LEN + 1 : 1; i && i <= done; i++) {
		const struct fuzz_ring_op *o = &r->ops[i % FUZZ_RING_LEN];

		console_printf("mhv: fuzz:   #%u %s/%u 0x%llx 0x%llx\n", o->n,
			       o->op < ARRAY_SIZE(fuzz_op_names) ? fuzz_op_names[o->op] : "?",
			       o->size, o->a, o->b);
	}
}

void runner_fuzz_check(struct vm_life *l, u32 failed_before)
{
	char why[96];
	bool intact;

	if (!l->s || l->s->bit != SUITE_FUZZ)
		return;
	intact = selfcheck_verify(why, sizeof(why));
	if (intact && l->cr->results->failed == failed_before)
		return;
	if (!intact)
		console_printf("mhv: fuzz: after vm %s: %s\n", l->cr->vm->name, why);
	print_ring(l->cr->vm);
}
