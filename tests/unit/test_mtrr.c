// SPDX-License-Identifier: MIT
/* The guest's MTRRs against SDM Vol 3 §12.11: the capabilities, the reset
 * state a PC's firmware leaves, reserved bits and invalid types #GP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/mtrr.h"
#include "arch/msr.h"

#define MAXPHY 40

static struct vcpu_mtrr m;

static int setup(void **state)
{
	mtrr_reset(&m, MAXPHY);
	return 0;
}

static u64 rd(u32 msr)
{
	u64 v = 0xdead;

	assert_true(mtrr_read(&m, msr, &v));
	return v;
}

static void cap_and_reset_state(void **state)
{
	u64 v;

	/* VCNT 8, fixed ranges, WC; no SMRR */
	assert_int_equal(rd(MSR_MTRRCAP), 0x508);
	/* enabled, fixed enabled, write-back default */
	assert_int_equal(rd(MSR_MTRR_DEF_TYPE), 0xc06);
	assert_int_equal(rd(MSR_MTRR_FIX64K_00000), 0x0606060606060606ull);
	assert_int_equal(rd(MSR_MTRR_FIX16K_A0000), 0);
	assert_int_equal(rd(MSR_MTRR_FIX4K(7)), 0x0606060606060606ull);
	/* 3-4 GiB uncached */
	assert_int_equal(rd(MSR_MTRR_PHYSBASE(0)), 0xc0000000ull);
	assert_int_equal(rd(MSR_MTRR_PHYSMASK(0)), 0xffc0000800ull);
	assert_int_equal(rd(MSR_MTRR_PHYSMASK(1)), 0);
	assert_int_equal(rd(MSR_MTRR_PHYSMASK(7)), 0);
	/* past the last variable range, and between the fixed ones: not MTRRs */
	assert_false(mtrr_read(&m, MSR_MTRR_PHYSBASE(8), &v));
	assert_false(mtrr_read(&m, 0x251, &v));
}

static void writes_hold(void **state)
{
	assert_true(mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0x800, MAXPHY));
	assert_int_equal(rd(MSR_MTRR_DEF_TYPE), 0x800);
	assert_true(mtrr_write(&m, MSR_MTRR_FIX4K(3), 0x0605040100060504ull, MAXPHY));
	assert_int_equal(rd(MSR_MTRR_FIX4K(3)), 0x0605040100060504ull);
	assert_true(mtrr_write(&m, MSR_MTRR_PHYSBASE(7), 0xfe000000ull | 1, MAXPHY));
	assert_true(mtrr_write(&m, MSR_MTRR_PHYSMASK(7), 0xfffe000800ull, MAXPHY));
	assert_int_equal(rd(MSR_MTRR_PHYSMASK(7)), 0xfffe000800ull);
}

static void reserved_bits_and_types_fault(void **state)
{
	/* MTRRcap is read-only */
	assert_false(mtrr_write(&m, MSR_MTRRCAP, 0x508, MAXPHY));
	/* MTRRdefType: bits 9:8 and 63:12 reserved; types 2, 3, 7 invalid */
	assert_false(mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0xc06 | BIT(8), MAXPHY));
	assert_false(mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0xc06 | BIT(12), MAXPHY));
	assert_false(mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0xc02, MAXPHY));
	assert_false(mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0xc07, MAXPHY));
	/* a fixed range with one invalid byte */
	assert_false(mtrr_write(&m, MSR_MTRR_FIX64K_00000, 0x0606060606060603ull, MAXPHY));
	assert_false(mtrr_write(&m, MSR_MTRR_FIX16K_80000, 0x1806060606060606ull, MAXPHY));
	/* PHYSBASE: bits 11:8 and above MAXPHYADDR reserved */
	assert_false(mtrr_write(&m, MSR_MTRR_PHYSBASE(1), 0x1000 | BIT(8) | 6, MAXPHY));
	assert_false(mtrr_write(&m, MSR_MTRR_PHYSBASE(1), (1ull << MAXPHY) | 6, MAXPHY));
	assert_false(mtrr_write(&m, MSR_MTRR_PHYSBASE(1), 0x1000 | 3, MAXPHY));
	/* PHYSMASK: bits 10:0 and above MAXPHYADDR reserved */
	assert_false(mtrr_write(&m, MSR_MTRR_PHYSMASK(1), 0xfffff00800ull | 1, MAXPHY));
	assert_false(mtrr_write(&m, MSR_MTRR_PHYSMASK(1), (1ull << MAXPHY) | 0x800, MAXPHY));
	/* nothing changed */
	assert_int_equal(rd(MSR_MTRR_DEF_TYPE), 0xc06);
	assert_int_equal(rd(MSR_MTRR_PHYSBASE(1)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(cap_and_reset_state, setup),
		cmocka_unit_test_setup(writes_hold, setup),
		cmocka_unit_test_setup(reserved_bits_and_types_fault, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
