// SPDX-License-Identifier: MIT
/*
 * The machine-check bank write rules (hv/core/mce_bank.h): MCi_CTL takes
 * all 0s, all 1s, and all 1s with bit 10 or bit 0 clear (Linux's K8 GART
 * quirk writes 0xfffffffffffffbff to MC4_CTL; issue 41), nothing else;
 * MCi_STATUS takes only 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/mce_bank.h"

static void ctl_all_or_none(void **state)
{
	assert_true(mc_ctl_write_ok(0));
	assert_true(mc_ctl_write_ok(~0ull));
}

static void ctl_gart_and_unixware_quirks(void **state)
{
	assert_true(mc_ctl_write_ok(0xfffffffffffffbffull)); /* bit 10 clear */
	assert_true(mc_ctl_write_ok(0xfffffffffffffffeull)); /* bit 0 clear */
	assert_true(mc_ctl_write_ok(0xfffffffffffffbfeull)); /* both */
}

static void ctl_other_values_refused(void **state)
{
	unsigned b;

	assert_false(mc_ctl_write_ok(1));
	assert_false(mc_ctl_write_ok(BIT(10)));
	assert_false(mc_ctl_write_ok(0xffffffffull));
	/* all 1s with any one other bit clear */
	for (b = 1; b < 64; b++)
		if (b != 10)
			assert_false(mc_ctl_write_ok(~BIT(b)));
}

static void status_only_zero(void **state)
{
	assert_true(mc_status_write_ok(0));
	assert_false(mc_status_write_ok(1));
	assert_false(mc_status_write_ok(~0ull));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ctl_all_or_none),
		cmocka_unit_test(ctl_gart_and_unixware_quirks),
		cmocka_unit_test(ctl_other_values_refused),
		cmocka_unit_test(status_only_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
