// SPDX-License-Identifier: MIT
/*
 * The fast path's rules, one row per exit kind (fast_exit.h says what
 * each column means).  The backends build their fast tables from these
 * rows at probe time; nothing here runs on an exit.
 */
#include "fast_exit.h"

const struct fast_exit_rule fast_exit_rules[EXIT_KIND_COUNT] = {
	/* HC_NULL (the benchmark floor) and numbers past the table
	 * (fast_hypercall); the others need the hypercall table. */
	[EXIT_HYPERCALL] = { .fast = true,
			     .needs_insn_len = true,
			     .refuse = FAST_NOT_TF | FAST_NOT_HELPER,
			     .duties = FAST_STEP | FAST_COUNT | FAST_CLEAR_INJECTION },
	/* Every leaf: the view's (fast_cpuid) inline, the others out of
	 * line (guest_cpuid_any), still without the general path. */
	[EXIT_CPUID] = { .fast = true,
			 .needs_insn_len = true,
			 .refuse = FAST_NOT_TF,
			 .duties = FAST_STEP | FAST_COUNT | FAST_CLEAR_INJECTION },
	/* The MSRs fast_msr_index names (and, for writes, the values
	 * fast_msr_write accepts). */
	[EXIT_MSR_READ] = { .fast = true,
			    .needs_insn_len = true,
			    .refuse = FAST_NOT_TF | FAST_NOT_HELPER,
			    .duties = FAST_STEP | FAST_COUNT | FAST_CLEAR_INJECTION },
	[EXIT_MSR_WRITE] = { .fast = true,
			     .needs_insn_len = true,
			     .refuse = FAST_NOT_TF | FAST_NOT_HELPER | FAST_NOT_PMU_SWITCH,
			     .duties = FAST_STEP | FAST_COUNT | FAST_CLEAR_INJECTION },
	/* The benchmark's test port inline (fast_test_port), io_port_fast's
	 * devices out of line.  The next RIP comes with the exit on both
	 * vendors (SVM: EXITINFO2, APM Vol 2 §15.10.2), so no length needed. */
	[EXIT_IO] = { .fast = true,
		      .needs_insn_len = false,
		      .refuse = FAST_NOT_TF | FAST_NOT_STRING_REP | FAST_NOT_HELPER,
		      .duties = FAST_STEP | FAST_COUNT | FAST_CLEAR_INJECTION | FAST_CHECK_STOP },
};

bool fast_exit_may_take(u32 kinds, bool insn_len_known)
{
	unsigned k;

	if (!kinds)
		return false;
	for (k = 0; k < EXIT_KIND_COUNT; k++) {
		const struct fast_exit_rule *r = &fast_exit_rules[k];

		if (!(kinds & BIT(k)))
			continue;
		if (!r->fast || (r->needs_insn_len && !insn_len_known))
			return false;
	}
	return true;
}

bool fast_exit_pmu_switch(u32 kinds)
{
	unsigned k;

	for (k = 0; k < EXIT_KIND_COUNT; k++)
		if ((kinds & BIT(k)) && (fast_exit_rules[k].refuse & FAST_NOT_PMU_SWITCH))
			return true;
	return false;
}
