// SPDX-License-Identifier: MIT
/* The sub-leaf cache against a fake CPU whose ECX-indexed leaves end the
 * way the SDM (Vol 2A CPUID) and the APM (Vol 3 Appendix E) say: cache
 * leaves at the first type 0, topology leaves at the first level type 0,
 * leaf 7 at the highest sub-leaf its sub-leaf 0 reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "host/cpuid_subleaf.h"

static struct cpuid_subleaves cache;
static unsigned reads;

/* A two-socket-free Zen-like CPU: four caches in 8000_001D and in 4 (L1d,
 * L1i, L2, L3), two topology levels in 0xB and 0x1F, 7.0 EAX = 2.
 * Sub-leaves past the end answer a marker so a wrong cache shows. */
static void fake_cpu(uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	static const uint32_t cache_types[] = { 1, 2, 3, 3 };

	reads++;
	*r = (struct cpuid_regs){ 0xdead, 0xdead, 0xdead, 0xdead };
	switch (leaf) {
	case 0x4:
	case 0x8000001d:
		if (sub < 4)
			*r = (struct cpuid_regs){ cache_types[sub] | (1 + (sub > 1)) << 5, sub, 0,
						  0 };
		else
			*r = (struct cpuid_regs){ 0, 0, 0, 0 };
		break;
	case 0xb:
	case 0x1f:
		if (sub < 2)
			*r = (struct cpuid_regs){ sub ? 4 : 1, sub ? 16 : 2, (sub + 1) << 8 | sub,
						  7 };
		else
			*r = (struct cpuid_regs){ 0, 0, sub, 7 };
		break;
	case 0x7:
		*r = (struct cpuid_regs){ sub == 0 ? 2 : 0, 0x100 + sub, 0, 0 };
		break;
	}
}

static int setup(void **state)
{
	(void)state;
	reads = 0;
	cpuid_subleaves_fill(&cache, 0x1f, 0x80000026, fake_cpu);
	return 0;
}

static void cache_leaves_end_at_type_zero(void **state)
{
	const struct cpuid_regs *r;

	(void)state;
	for (uint32_t leaf = 0x4; leaf; leaf = leaf == 0x4 ? 0x8000001d : 0) {
		for (uint32_t sub = 1; sub < 4; sub++) {
			r = cpuid_subleaf_find(&cache, leaf, sub);
			assert_non_null(r);
			assert_int_equal(r->ebx, sub);
		}
		/* the terminator is cached (type 0): Linux's loop stops there */
		r = cpuid_subleaf_find(&cache, leaf, 4);
		assert_non_null(r);
		assert_int_equal(r->eax & 0x1f, 0);
		/* past it: not cached, the guest reads zeros */
		assert_null(cpuid_subleaf_find(&cache, leaf, 5));
	}
}

static void topology_levels_end_at_level_type_zero(void **state)
{
	const struct cpuid_regs *r;

	(void)state;
	r = cpuid_subleaf_find(&cache, 0xb, 1);
	assert_non_null(r);
	assert_int_equal((r->ecx >> 8) & 0xff, 2); /* core level */
	r = cpuid_subleaf_find(&cache, 0x1f, 2);
	assert_non_null(r);
	assert_int_equal(r->ecx, 2); /* invalid level echoes the sub-leaf in ECX[7:0] */
	assert_null(cpuid_subleaf_find(&cache, 0x1f, 3));
}

static void leaf7_ends_at_its_eax0(void **state)
{
	(void)state;
	assert_int_equal(cpuid_subleaf_find(&cache, 7, 1)->ebx, 0x101);
	assert_int_equal(cpuid_subleaf_find(&cache, 7, 2)->ebx, 0x102);
	assert_null(cpuid_subleaf_find(&cache, 7, 3));
}

static void sub_leaf_zero_is_never_cached(void **state)
{
	(void)state;
	assert_null(cpuid_subleaf_find(&cache, 0x4, 0));
	assert_null(cpuid_subleaf_find(&cache, 0x1, 1)); /* not an indexed leaf */
}

static void leaves_above_the_maximum_are_not_read(void **state)
{
	(void)state;
	reads = 0;
	cpuid_subleaves_fill(&cache, 0xa, 0x80000008, fake_cpu);
	assert_null(cpuid_subleaf_find(&cache, 0xb, 1));
	assert_null(cpuid_subleaf_find(&cache, 0x8000001d, 1));
	assert_non_null(cpuid_subleaf_find(&cache, 0x4, 1));
	assert_non_null(cpuid_subleaf_find(&cache, 0x7, 2));
	/* 4: sub-leaves 1..4; 7: sub-leaf 0 for the count, 1..2 */
	assert_int_equal(reads, 4 + 3);
}

static void indexed_leaves_are_the_documented_ones(void **state)
{
	(void)state;
	assert_true(cpuid_leaf_indexed(0x4));
	assert_true(cpuid_leaf_indexed(0xd));
	assert_true(cpuid_leaf_indexed(0x1f));
	assert_true(cpuid_leaf_indexed(0x8000001d));
	assert_true(cpuid_leaf_indexed(0x80000026));
	assert_false(cpuid_leaf_indexed(0x1));
	assert_false(cpuid_leaf_indexed(0x6));
	assert_false(cpuid_leaf_indexed(0x80000001));
	assert_false(cpuid_leaf_indexed(0x40000000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(cache_leaves_end_at_type_zero, setup),
		cmocka_unit_test_setup(topology_levels_end_at_level_type_zero, setup),
		cmocka_unit_test_setup(leaf7_ends_at_its_eax0, setup),
		cmocka_unit_test_setup(sub_leaf_zero_is_never_cached, setup),
		cmocka_unit_test(leaves_above_the_maximum_are_not_read),
		cmocka_unit_test(indexed_leaves_are_the_documented_ones),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
