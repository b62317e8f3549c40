// SPDX-License-Identifier: MIT
/* array_index_nospec(): the index below the bound, 0 at or above it;
 * the power-of-two form: the index modulo the size, always inside. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/nospec.h"

static void in_bounds(void **state)
{
	(void)state;
	assert_int_equal(array_index_nospec(0ull, 1ull), 0);
	assert_int_equal(array_index_nospec(5ull, 9ull), 5);
	assert_int_equal(array_index_nospec(31ull, 32ull), 31);
	assert_int_equal(index_mask_nospec(7, 8), ~0ull);
	assert_int_equal(array_index_nospec(0xfffffffeull, 0xffffffffull), 0xfffffffeull);
}

static void out_of_bounds(void **state)
{
	(void)state;
	assert_int_equal(array_index_nospec(32ull, 32ull), 0);
	assert_int_equal(array_index_nospec(33ull, 32ull), 0);
	assert_int_equal(array_index_nospec(~0ull, 32ull), 0);
	assert_int_equal(array_index_nospec(1ull << 63, 32ull), 0);
	assert_int_equal(array_index_nospec(0ull, 0ull), 0);
	assert_int_equal(index_mask_nospec(8, 8), 0);
}

/* Unsigned compare: an index with bit 63 set is never "negative, so small". */
static void sweep(void **state)
{
	(void)state;
	for (uint64_t size = 0; size < 70; size++)
		for (uint64_t i = 0; i < 80; i++)
			assert_int_equal(array_index_nospec(i, size), i < size ? i : 0);
}

static void pow2(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 256; i++)
		assert_int_equal(array_index_nospec_pow2(i, 256), i);
	assert_int_equal(array_index_nospec_pow2(256ull, 256), 0);
	assert_int_equal(array_index_nospec_pow2(0x400ull, 256), 0);
	assert_int_equal(array_index_nospec_pow2(~0ull, 32), 31);
	assert_int_equal(array_index_nospec_pow2(33ull, 32), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_bounds),
		cmocka_unit_test(out_of_bounds),
		cmocka_unit_test(sweep),
		cmocka_unit_test(pow2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
