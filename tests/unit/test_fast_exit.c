// SPDX-License-Identifier: MIT
/*
 * The fast exit rules (hv/core/fast_exit.c) are read when the backends
 * build their dispatch arrays, never on an exit.  These tests hold both
 * vendors' arrays to the rules: an exit code has a fast handler exactly
 * when every kind it stands for is fast (and, on SVM, the instruction
 * length is known), everything else goes to the general path, and a WRMSR
 * the PMU may need goes to the world switch in the PMU loops' table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "svm/svm.h"
#include "svm/svm_exit.h"
#include "vmx/vmx.h"
#include "vmx/vmx_exit.h"
#include "core/fast_exit.h"

/* The general paths: only their addresses matter here. */
int svm_handle_exit(struct vcpu *v, struct vmcb *vmcb)
{
	return 1;
}

int svm_handle_exit_nrips(struct vcpu *v, struct vmcb *vmcb)
{
	return 1;
}

int svm_pmu_general_exit(struct vcpu *v, struct vmcb *vmcb)
{
	return 1;
}

int vmx_handle_exit_reason(struct vcpu *v, u32 reason)
{
	return 1;
}

int vmx_pmu_general_exit(struct vcpu *v, u32 reason)
{
	return 1;
}

bool io_port_fast(struct vcpu *v, u16 port, u8 size, bool in, u64 *rax)
{
	return false;
}

void guest_cpuid_any(struct vcpu *v, u32 leaf, u32 subleaf, struct cpuid_regs *r)
{
	memset(r, 0, sizeof(*r));
}

/* The kinds each vendor code stands for, restated from the manuals. */
static u32 svm_kinds(unsigned code)
{
	switch (code) {
	case SVM_EXIT_VMMCALL:
		return BIT(EXIT_HYPERCALL);
	case SVM_EXIT_CPUID:
		return BIT(EXIT_CPUID);
	case SVM_EXIT_MSR: /* EXITINFO1: read or write (APM Vol 2 §15.11) */
		return BIT(EXIT_MSR_READ) | BIT(EXIT_MSR_WRITE);
	case SVM_EXIT_IOIO:
		return BIT(EXIT_IO);
	}
	return 0;
}

static u32 vmx_kinds(unsigned reason)
{
	switch (reason) {
	case EXIT_REASON_VMCALL:
		return BIT(EXIT_HYPERCALL);
	case EXIT_REASON_CPUID:
		return BIT(EXIT_CPUID);
	case EXIT_REASON_RDMSR:
		return BIT(EXIT_MSR_READ);
	case EXIT_REASON_WRMSR:
		return BIT(EXIT_MSR_WRITE);
	case EXIT_REASON_IO:
		return BIT(EXIT_IO);
	}
	return 0;
}

/* Which kinds are fast, and the PMU switch on MSR writes only: a row
 * changed by mistake shows here. */
static void rules_as_documented(void **state)
{
	unsigned k;

	for (k = 0; k < EXIT_KIND_COUNT; k++) {
		bool fast = k == EXIT_HYPERCALL || k == EXIT_CPUID || k == EXIT_MSR_READ ||
			    k == EXIT_MSR_WRITE || k == EXIT_IO;
		const struct fast_exit_rule *r = &fast_exit_rules[k];

		assert_int_equal(r->fast, fast);
		if (!fast)
			continue;
		assert_true(r->refuse & FAST_NOT_TF);
		assert_int_equal(r->duties & (FAST_STEP | FAST_COUNT), FAST_STEP | FAST_COUNT);
		assert_int_equal(!!(r->refuse & FAST_NOT_PMU_SWITCH), k == EXIT_MSR_WRITE);
		assert_int_equal(!!(r->refuse & FAST_NOT_STRING_REP), k == EXIT_IO);
		assert_int_equal(r->needs_insn_len, k != EXIT_IO);
	}
	assert_false(fast_exit_may_take(0, true));
	assert_false(fast_exit_may_take(BIT(EXIT_CPUID) | BIT(EXIT_HLT), true));
	assert_false(fast_exit_may_take(BIT(EXIT_CPUID), false));
	assert_true(fast_exit_may_take(BIT(EXIT_IO), false));
	assert_true(fast_exit_pmu_switch(BIT(EXIT_MSR_READ) | BIT(EXIT_MSR_WRITE)));
	assert_false(fast_exit_pmu_switch(BIT(EXIT_MSR_READ)));
}

static void svm_table_follows_rules(bool nrips)
{
	svm_fast_fn *general = nrips ? svm_handle_exit_nrips : svm_handle_exit;
	unsigned c;

	svm_fast_exits_init(nrips);
	for (c = 0; c < SVM_EXIT_TABLE_SIZE; c++) {
		u32 kinds = svm_kinds(c);
		bool fast = fast_exit_may_take(kinds, nrips);

		assert_int_equal(svm_fast_exits[c] != general, fast);
		if (fast)
			assert_int_equal(svm_fast_exits_pmu[c] != svm_fast_exits[c],
					 fast_exit_pmu_switch(kinds));
		else if (fast_exit_pmu_switch(kinds))
			assert_ptr_equal(svm_fast_exits_pmu[c], svm_pmu_general_exit);
		else
			assert_ptr_equal(svm_fast_exits_pmu[c], general);
	}
	assert_ptr_equal(svm_fast_exits_pmu[SVM_EXIT_TABLE_SIZE], svm_handle_exit);
}

static void svm_with_nrips(void **state)
{
	svm_table_follows_rules(true);
}

/* Without NRIP save only IOIO, whose EXITINFO2 is the next RIP. */
static void svm_without_nrips(void **state)
{
	unsigned c, n = 0;

	svm_table_follows_rules(false);
	for (c = 0; c < SVM_EXIT_TABLE_SIZE; c++)
		n += svm_fast_exits[c] != svm_handle_exit;
	assert_int_equal(n, 1);
	assert_ptr_not_equal(svm_fast_exits[SVM_EXIT_IOIO], svm_handle_exit);
}

static void vmx_table_follows_rules(void **state)
{
	unsigned r;

	vmx_fast_exits_init();
	for (r = 0; r < VMX_FAST_EXITS; r++) {
		u32 kinds = vmx_kinds(r);
		bool fast = fast_exit_may_take(kinds, true);

		assert_int_equal(vmx_fast_exits[r] != vmx_handle_exit_reason, fast);
		if (fast)
			assert_int_equal(vmx_fast_exits_pmu[r] != vmx_fast_exits[r],
					 fast_exit_pmu_switch(kinds));
		else
			assert_ptr_equal(vmx_fast_exits_pmu[r], vmx_handle_exit_reason);
	}
	assert_ptr_equal(vmx_fast_exits_pmu[VMX_FAST_EXITS], vmx_handle_exit_reason);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rules_as_documented),
		cmocka_unit_test(svm_with_nrips),
		cmocka_unit_test(svm_without_nrips),
		cmocka_unit_test(vmx_table_follows_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
