// SPDX-License-Identifier: MIT
/*
 * The PMU geometry of a CPU from synthetic CPUID sets modelled on a hybrid
 * Intel part (an Alder Lake P-core and E-core) and on AMD Zen 5, and the
 * comparison that leaves a CPU whose PMU is not the BSP's out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pmu/pmu_geometry.h"

struct leaf {
	u32 leaf, subleaf;
	struct cpuid_regs r;
};

/* A CPUID set: the leaves listed, zeros for the rest (within the maximum). */
struct cpuid_set {
	const struct leaf *leaves;
	unsigned n;
};

static bool set_cpuid(u32 leaf, u32 subleaf, struct cpuid_regs *r, const void *arg)
{
	const struct cpuid_set *s = arg;

	*r = (struct cpuid_regs){ 0, 0, 0, 0 };
	for (unsigned i = 0; i < s->n; i++)
		if (s->leaves[i].leaf == leaf && s->leaves[i].subleaf == subleaf)
			*r = s->leaves[i].r;
	return true;
}

#define SET(a)                   \
	{                        \
		a, ARRAY_SIZE(a) \
	}

/* Alder Lake P-core (Golden Cove): v5, 8 GP of 48 bits, 4 fixed (with
 * TOPDOWN.SLOTS), hybrid, core type 0x40 */
static const struct leaf adl_p[] = {
	{ 0, 0, { 0x20, 0, 0, 0 } },
	{ 7, 0, { 0, 0, 0, 1u << 15 } },
	{ 0xa, 0, { 0x07300805, 0, 0xf, 0x8604 } },
	{ 0x1a, 0, { 0x40000001, 0, 0, 0 } },
	{ 0x80000000, 0, { 0x80000008, 0, 0, 0 } },
};

/* Alder Lake E-core (Gracemont): 6 GP, 3 fixed, core type 0x20 */
static const struct leaf adl_e[] = {
	{ 0, 0, { 0x20, 0, 0, 0 } },
	{ 7, 0, { 0, 0, 0, 1u << 15 } },
	{ 0xa, 0, { 0x07300605, 0, 0x7, 0x8603 } },
	{ 0x1a, 0, { 0x20000001, 0, 0, 0 } },
	{ 0x80000000, 0, { 0x80000008, 0, 0, 0 } },
};

/* The same E-core with the P-core's counters: only its type differs */
static const struct leaf adl_e_same_counters[] = {
	{ 0, 0, { 0x20, 0, 0, 0 } },
	{ 7, 0, { 0, 0, 0, 1u << 15 } },
	{ 0xa, 0, { 0x07300805, 0, 0xf, 0x8604 } },
	{ 0x1a, 0, { 0x20000001, 0, 0, 0 } },
	{ 0x80000000, 0, { 0x80000008, 0, 0, 0 } },
};

/* Zen 5: PerfMonV2, 6 core counters, 16-deep LBR, 16 DF counters */
static const struct leaf zen5[] = {
	{ 0, 0, { 0x10, 0, 0, 0 } },
	{ 0x80000000, 0, { 0x80000028, 0, 0, 0 } },
	{ 0x80000001, 0, { 0, 0, 1u << 23, 0 } },
	{ 0x80000022, 0, { 0x7, 0x6 | 16 << 4 | 16 << 10, 0, 0 } },
};

/* QEMU 7.2 -cpu EPYC: 8000_0022 above the maximum, whose answer (leaf
 * 0xD's) must not be read as a PMU */
static const struct leaf qemu_epyc[] = {
	{ 0, 0, { 0xd, 0, 0, 0 } },
	{ 0x80000000, 0, { 0x8000001f, 0, 0, 0 } },
	{ 0x80000001, 0, { 0, 0, 1u << 23, 0 } },
	{ 0x80000022, 0, { 0x7, 0x240, 0x340, 0 } },
};

static void read_set(struct pmu_geometry *g, const struct cpuid_set *s, bool intel)
{
	pmu_geometry_read(g, intel, !intel, set_cpuid, s);
}

static void intel_hybrid(void **state)
{
	const struct cpuid_set p = SET(adl_p), e = SET(adl_e), e2 = SET(adl_e_same_counters);
	struct pmu_geometry bsp, cpu;
	char why[112];

	read_set(&bsp, &p, true);
	assert_int_equal(bsp.version, 5);
	assert_int_equal(bsp.nr_gp, 8);
	assert_int_equal(bsp.gp_width, 48);
	assert_int_equal(bsp.nr_fixed, 4);
	assert_int_equal(bsp.fixed_width, 48);
	assert_int_equal(bsp.fixed_mask, 0xf);
	assert_int_equal(bsp.core_type, 0x40);
	/* a P-core like the BSP is the same */
	read_set(&cpu, &p, true);
	assert_true(pmu_geometry_same(&cpu, &bsp, why, sizeof(why)));
	/* an E-core: its core type is named first */
	read_set(&cpu, &e, true);
	assert_false(pmu_geometry_same(&cpu, &bsp, why, sizeof(why)));
	assert_string_equal(why, "core type 0x20 vs 0x40");
	/* not a hybrid (CPUID.7.0:EDX[15] clear): 1AH is not read; the counters differ */
	cpu.core_type = bsp.core_type;
	assert_false(pmu_geometry_same(&cpu, &bsp, why, sizeof(why)));
	assert_string_equal(why, "6 GP counters vs 8");
	cpu.nr_gp = 8;
	assert_false(pmu_geometry_same(&cpu, &bsp, why, sizeof(why)));
	assert_string_equal(why, "3 fixed counters vs 4");
	/* same counters, another core type */
	read_set(&cpu, &e2, true);
	assert_false(pmu_geometry_same(&cpu, &bsp, why, sizeof(why)));
	assert_string_equal(why, "core type 0x20 vs 0x40");
}

static void amd(void **state)
{
	const struct cpuid_set z = SET(zen5), q = SET(qemu_epyc);
	struct pmu_geometry bsp, cpu;
	char why[112];

	read_set(&bsp, &z, false);
	assert_int_equal(bsp.amd_core_counters, 6);
	assert_int_equal(bsp.amd_lbr_depth, 16);
	assert_int_equal(bsp.amd_features, 7);
	assert_int_equal(bsp.nr_gp, 0);
	read_set(&cpu, &z, false);
	assert_true(pmu_geometry_same(&cpu, &bsp, why, sizeof(why)));
	/* 8000_0022 above the maximum: PerfCtrExtCore's six, nothing else */
	read_set(&cpu, &q, false);
	assert_int_equal(cpu.amd_core_counters, 6);
	assert_int_equal(cpu.amd_features, 0);
	assert_int_equal(cpu.amd_lbr_depth, 0);
	assert_false(pmu_geometry_same(&cpu, &bsp, why, sizeof(why)));
	assert_string_equal(why, "Fn8000_0022 EAX 0x0 vs 0x7");
	/* fewer counters */
	cpu = bsp;
	cpu.amd_core_counters = 4;
	assert_false(pmu_geometry_same(&cpu, &bsp, why, sizeof(why)));
	assert_string_equal(why, "4 core counters vs 6");
}

/* The Intel leaves of an AMD CPUID set are not read, nor AMD's of Intel's. */
static void vendor_leaves(void **state)
{
	const struct cpuid_set p = SET(adl_p), z = SET(zen5);
	struct pmu_geometry g;

	read_set(&g, &z, true);
	assert_int_equal(g.amd_core_counters, 0);
	assert_int_equal(g.nr_gp, 0);
	read_set(&g, &p, false);
	assert_int_equal(g.nr_gp, 0);
	assert_int_equal(g.core_type, 0);
	assert_int_equal(g.amd_core_counters, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_hybrid),
		cmocka_unit_test(amd),
		cmocka_unit_test(vendor_leaves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
