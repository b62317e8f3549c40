// SPDX-License-Identifier: MIT
/*
 * The exit path's duties, run natively (exit_duties_probe.asm): with
 * "mitigations = auto" no GPR may still hold a guest value when the exit
 * handler is entered, RBX, RBP and R12-R15 above all, which are
 * callee-saved and would live through the host's C code (issue 27 item
 * 8); "off" is the floor and leaves them.  A retpoline set reaches the
 * same handler through the thunk.  And the asm's duty sets are
 * mitigation_policy.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/mitigation_policy.h"

#define GUEST(n) (0x6700000000000000ull | (n))
#define GPRS 16
#define RSP 4
#define RDI 7

typedef void probe_fn(uint64_t *out);
extern probe_fn *const exit_probes[DUTY_SETS];
extern const void *const exit_probe_capture;
extern const u8 exit_probe_sets[DUTY_SETS + 1];

static void sets_are_the_policys(void **state)
{
	(void)state;
	assert_true(duty_sets_match(exit_probe_sets));
	assert_int_equal(duty_sets[0], 0);
	for (int i = 0; i < DUTY_SETS; i++)
		assert_int_equal(duty_set_index(duty_sets[i]), i);
	assert_int_equal(duty_set_index(DUTY_VERW), -1);
}

static void run(int set, uint64_t *out)
{
	for (int r = 0; r < GPRS; r++)
		out[r] = 0xdeadull;
	exit_probes[set](out);
	assert_int_equal(out[RDI], (uint64_t)(uintptr_t)out); /* the vCPU, kept */
}

static void auto_sets_clear_guest_gprs(void **state)
{
	uint64_t out[GPRS];

	(void)state;
	for (int set = 1; set < DUTY_SETS; set++) {
		run(set, out);
		for (int r = 0; r < GPRS; r++) {
			if (r == RSP || r == RDI)
				continue;
			if (out[r] == GUEST(r))
				print_error("set %d (duties 0x%x): GPR %d still holds the guest's "
					    "0x%llx at the handler\n",
					    set, duty_sets[set], r, (unsigned long long)out[r]);
			assert_int_not_equal(out[r], GUEST(r));
		}
		/* the callee-saved ones are zero, not merely changed */
		assert_int_equal(out[3], 0);
		assert_int_equal(out[5], 0);
		for (int r = 12; r < GPRS; r++)
			assert_int_equal(out[r], 0);
	}
}

static void off_is_the_floor(void **state)
{
	uint64_t out[GPRS];

	(void)state;
	run(0, out);
	assert_int_equal(out[3], GUEST(3));
	assert_int_equal(out[12], GUEST(12));
	assert_int_equal(out[15], GUEST(15));
}

static void retpoline_reaches_the_handler(void **state)
{
	uint64_t out[GPRS];

	(void)state;
	for (int set = 0; set < DUTY_SETS; set++) {
		run(set, out);
		/* the table call leaves RAX: the index, or the target it loaded */
		if (duty_sets[set] & DUTY_RETPOLINE)
			assert_int_equal(out[0], (uint64_t)(uintptr_t)exit_probe_capture);
		else
			assert_int_equal(out[0], 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sets_are_the_policys),
		cmocka_unit_test(auto_sets_clear_guest_gprs),
		cmocka_unit_test(off_is_the_floor),
		cmocka_unit_test(retpoline_reaches_the_handler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
