/* SPDX-License-Identifier: MIT */
#ifndef MHV_VM_HARNESS_H
#define MHV_VM_HARNESS_H

#include "lib/guest_abi.h"
#include "lib/stats.h"
#include "lib/types.h"

/*
 * Whoever runs a VM as a test: it hears what the guest reports through
 * the result hypercalls and answers what the guest asks.  The core only
 * checks the guest's arguments and hands them on; the one who creates
 * the VM (the lab) gives these ops and its own @ctx in the VM's spec.
 * None of them is on the exit path of the hot hypercalls.  Every string
 * from the guest is terminated and printable ASCII (guest_char_shown):
 * it may go into a line of mhv's as it is.
 */
struct vm_harness {
	/* A test's outcome; false when it is refused (an external guest's). */
	bool (*test_result)(void *ctx, const char *name, enum test_status st, const char *reason);
	/* A benchmark's samples, summed up in @st; false when there is no room
	 * for it, or it is refused. */
	bool (*bench_result)(void *ctx, const struct hc_bench_result *r,
			     const struct sample_stats *st);
	/* Whether the guest is to run its test @name. */
	bool (*test_wanted)(void *ctx, const char *name);
	/* The benchmark parameters: iterations, batches, warm-up. */
	void (*params)(void *ctx, struct hc_params *p);
};

#endif
