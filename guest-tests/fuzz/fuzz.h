/* SPDX-License-Identifier: MIT */
/*
 * The random-exit guest (docs/fuzz.md): operations drawn from a seeded
 * PRNG, each one exit or a touch of virtualized state, their outcomes
 * counted.  The same operations run under mhv (guest-tests/fuzz.c) and,
 * for the differential oracle, on the bare emulator (tests/fuzz-bare/).
 */
#ifndef GUEST_FUZZ_H
#define GUEST_FUZZ_H

#include "rt.h"

enum fuzz_op {
	OP_CPUID,
	OP_RDMSR,
	OP_WRMSR,
	OP_IN,
	OP_OUT,
	OP_INS,
	OP_OUTS,
	OP_MMIO_READ,
	OP_MMIO_WRITE,
	OP_CR,
	OP_XCR0,
	OP_DR,
	OP_HYPERCALL,
	OP_INVLPG,
	OP_IPI,
	OP_TIMER,
	OP_HLT,
	OP_RDPMC,
	OP_XSAVE,
	OP_XRSTOR,
	NR_FUZZ_OPS
};

/* What a run may do: under mhv everything; on the bare emulator and in
 * the differential run only the operations whose outcome both have. */
struct fuzz_env {
	bool diff;	 /* print one line per architectural outcome */
	bool mhv;	 /* hypercalls and mhv's devices exist */
	u32 max_ops;	 /* 0: until the exit budget */
	u64 exit_budget; /* mhv: stop once this many exits happened */
};

/* The outcome counts of a run, and what it reached. */
struct fuzz_stats {
	u64 tried[NR_FUZZ_OPS];
	u64 faulted[NR_FUZZ_OPS];
	u32 vectors[32];  /* faults by vector */
	u32 nr_msrs;	  /* distinct MSR indexes touched */
	u32 nr_ports;	  /* distinct ports touched */
	u32 windows;	  /* bit per MMIO window reached */
	u64 outcome_hash; /* of every outcome: equal seeds, equal hashes */
};

void fuzz_seed(u32 seed);
u64 fuzz_rand(void);
/* One random operation; its number n, from 1. */
void fuzz_one(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void fuzz_init(const struct fuzz_env *env);
const char *fuzz_op_name(unsigned op);
/* The fuzz ring (lib/guest_abi.h), or NULL where there is none. */
extern struct fuzz_ring *fuzz_ring;

#endif
