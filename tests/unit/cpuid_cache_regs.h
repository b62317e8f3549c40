/* SPDX-License-Identifier: MIT */
/*
 * The unit tests' access to one register of a struct cpuid_cache
 * (host/cpuid_cache.h) by leaf, sub-leaf and register: the cached
 * sub-leaves are 7.0 (std[7]) and 7.1 (leaf7_1); any other sub-leaf but 0
 * fails the test.  Included after cmocka.h by the tests that feed CPUID
 * values to a filter (test_cpuid_allow.c, test_pmu_cpuid.c).
 */
#ifndef MHV_TESTS_CPUID_CACHE_REGS_H
#define MHV_TESTS_CPUID_CACHE_REGS_H

static inline struct cpuid_regs *regs_of(struct cpuid_cache *c, u32 leaf, u32 subleaf)
{
	if (leaf == 7 && subleaf == 1)
		return &c->leaf7_1;
	assert_int_equal(subleaf, 0);
	if (leaf < CPUID_EXT_BASE) {
		assert_true(leaf < CPUID_STD_CACHED);
		return &c->std[leaf];
	}
	assert_true(leaf - CPUID_EXT_BASE < CPUID_EXT_CACHED);
	return &c->ext[leaf - CPUID_EXT_BASE];
}

/* @reg: 0 EAX, 1 EBX, 2 ECX, 3 EDX */
static inline u32 *reg_of(struct cpuid_cache *c, u32 leaf, u32 subleaf, unsigned reg)
{
	struct cpuid_regs *r = regs_of(c, leaf, subleaf);
	u32 *regs[] = { &r->eax, &r->ebx, &r->ecx, &r->edx };

	return regs[reg];
}

#endif
