// SPDX-License-Identifier: MIT
/*
 * The guest's CPUID view of the PMU (hv/pmu/pmu_cpuid.c), judged by the
 * manuals' bit positions restated here, not by mhv's table: the PMU-adjacent
 * features nothing in mhv virtualizes read 0 in every view, a VM with the
 * PMU off sees no PMU, a VM with one sees the geometry mhv switches, and
 * no bit outside those moves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pmu/pmu_vcpu.h"
#include "host/cpu_features.h"
#include "cpuid_cache_regs.h"

enum {
	EAX,
	EBX,
	ECX,
	EDX
};

struct feature {
	u32 leaf, subleaf;
	unsigned reg;
	u32 bits;
	const char *name;
};

/* SDM Vol 2A CPUID; APM Vol 3 Appendix E.4. */
static const struct feature hidden_always[] = {
	{ 0x6, 0, ECX, BIT(0), "APERF/MPERF" },
	{ 0x7, 0, EBX, BIT(25), "Intel PT" },
	{ 0x7, 0, EDX, BIT(19), "Arch LBR" },
	{ 0x7, 1, EAX, BIT(8), "ArchPerfmonExt" },
	{ 0xa, 0, ECX, ~0u, "fixed-counter bitmap" },
	{ 0x14, 0, EAX, ~0u, "PT leaf" },
	{ 0x14, 0, EBX, ~0u, "PT leaf" },
	{ 0x14, 0, ECX, ~0u, "PT leaf" },
	{ 0x14, 0, EDX, ~0u, "PT leaf" },
	{ 0x1c, 0, EAX, ~0u, "Arch LBR leaf" },
	{ 0x1c, 0, EBX, ~0u, "Arch LBR leaf" },
	{ 0x1c, 0, ECX, ~0u, "Arch LBR leaf" },
	{ 0x80000001, 0, ECX, BIT(10), "IBS" },
	{ 0x80000001, 0, ECX, BIT(24), "PerfCtrExtNB" },
	{ 0x80000001, 0, ECX, BIT(27), "PerfTsc" },
	{ 0x80000001, 0, ECX, BIT(28), "PerfCtrExtLLC" },
	{ 0x80000007, 0, EDX, BIT(10), "EffFreqRO" },
	{ 0x80000008, 0, EBX, BIT(1), "IRPerf" },
	{ 0x8000001b, 0, EAX, ~0u, "IBS leaf" },
	{ 0x80000022, 0, EAX, BIT(1), "LbrExtV2" },
	{ 0x80000022, 0, EAX, BIT(2), "LbrAndPmcFreeze" },
	{ 0x80000022, 0, EBX, 0x3fu << 4, "NumLbrStackSize" },
	{ 0x80000022, 0, EBX, 0x3fu << 10, "NumPerfCtrNB" },
	{ 0x80000022, 0, EBX, 0x3fu << 16, "NumPerfCtrUmc" },
	{ 0x80000022, 0, ECX, ~0u, "active UMCs" },
};

/* The PMU itself: hidden only where the VM's PMU is off. */
static const struct feature pmu_itself[] = {
	{ 0x1, 0, ECX, BIT(15), "PDCM" },
	{ 0xa, 0, EAX, ~0u, "architectural PMU" },
	{ 0xa, 0, EBX, ~0u, "architectural events" },
	{ 0xa, 0, EDX, ~0u, "fixed counters" },
	{ 0x80000001, 0, ECX, BIT(23), "PerfCtrExtCore" },
	{ 0x80000022, 0, EAX, BIT(0), "PerfMonV2" },
	{ 0x80000022, 0, EBX, 0xfu, "NumPerfCtrCore" },
};

/* A host that has every feature: all bits set. */
static void all_ones(struct cpuid_cache *c)
{
	memset(c, 0xff, sizeof(*c));
	c->max_std = CPUID_STD_CACHED - 1;
	c->max_ext = CPUID_EXT_BASE + CPUID_EXT_CACHED - 1;
}

static void check_hidden(struct cpuid_cache *c, const struct feature *f, unsigned n,
			 const char *view)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		u32 v = *reg_of(c, f[i].leaf, f[i].subleaf, f[i].reg);

		if (v & f[i].bits)
			fail_msg("%s view: %s (leaf 0x%x.%u reg %u bits 0x%x) reads 0x%x", view,
				 f[i].name, f[i].leaf, f[i].subleaf, f[i].reg, f[i].bits, v);
	}
}

static void test_adjacent_hidden_in_every_view(void **state)
{
	struct cpuid_cache c;

	all_ones(&c);
	pmu_adjust_guest_cpuid(&c, false);
	check_hidden(&c, hidden_always, ARRAY_SIZE(hidden_always), "PMU off");
	check_hidden(&c, pmu_itself, ARRAY_SIZE(pmu_itself), "PMU off");

	all_ones(&c);
	pmu_adjust_guest_cpuid(&c, true);
	check_hidden(&c, hidden_always, ARRAY_SIZE(hidden_always), "PMU on");
}

/* Off: leaves 0AH and 8000_0022 all 0, as on a CPU without a PMU. */
static void test_off_has_no_pmu_leaves(void **state)
{
	struct cpuid_cache c;

	all_ones(&c);
	pmu_adjust_guest_cpuid(&c, false);
	assert_int_equal(c.std[0xa].eax | c.std[0xa].ebx | c.std[0xa].ecx | c.std[0xa].edx, 0);
	assert_int_equal(c.ext[0x22].eax | c.ext[0x22].ebx | c.ext[0x22].ecx | c.ext[0x22].edx, 0);
}

/*
 * On: the PMU stays, clamped to what mhv switches: version 5 at most
 * (version 6's select bits are refused), 8 GP and 4 fixed counters on
 * Intel, 6 on AMD, AnyThread deprecated (CPUID.0AH:EDX[15]).
 */
static void test_on_geometry_clamped(void **state)
{
	struct cpuid_cache c;

	all_ones(&c);
	pmu_adjust_guest_cpuid(&c, true);
	assert_int_equal(c.std[0xa].eax & 0xff, 5);
	assert_int_equal((c.std[0xa].eax >> 8) & 0xff, PMU_MAX_GP);
	assert_int_equal((c.std[0xa].eax >> 16) & 0xff, 0xff); /* width: the host's */
	assert_int_equal(c.std[0xa].edx & 0x1f, PMU_MAX_FIXED);
	assert_true(c.std[0xa].edx & BIT(15));
	assert_int_equal(c.std[0xa].ecx, 0);
	assert_true(c.std[1].ecx & BIT(15));
	assert_true(c.ext[1].ecx & BIT(23));
	assert_int_equal(c.ext[0x22].eax, 1);
	assert_int_equal(c.ext[0x22].ebx, PMU_AMD_MAX_GP);
	assert_int_equal(c.ext[0x22].ecx | c.ext[0x22].edx, 0);
}

/* Real hosts: a Skylake-like v4 PMU and a Zen 4-like PerfMonV2 with LBRv2. */
static void test_on_real_hosts(void **state)
{
	struct cpuid_cache c;

	memset(&c, 0, sizeof(c));
	c.std[0xa] = (struct cpuid_regs){ 0x07300804, 0, 0x7, 0x00000603 };
	c.ext[0x22] = (struct cpuid_regs){ 0x7, 6 | 16 << 4 | 16 << 10 | 4 << 16, 0xf, 0 };
	pmu_adjust_guest_cpuid(&c, true);
	assert_int_equal(c.std[0xa].eax, 0x07300804);
	assert_int_equal(c.std[0xa].edx, 0x00000603 | BIT(15));
	assert_int_equal(c.std[0xa].ecx, 0);
	assert_int_equal(c.ext[0x22].eax, 1);
	assert_int_equal(c.ext[0x22].ebx, 6);
	assert_int_equal(c.ext[0x22].ecx, 0);
}

static void clear_listed(struct cpuid_cache *mask, const struct feature *f, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		*reg_of(mask, f[i].leaf, f[i].subleaf, f[i].reg) &= ~f[i].bits;
}

/* Nothing else moves: every bit of the cache that no list above names keeps its value. */
static void check_untouched(bool with_pmu)
{
	struct cpuid_cache ref, c, mask;
	const u8 *m = (const u8 *)&mask, *a = (const u8 *)&ref, *b = (const u8 *)&c;
	size_t i;

	all_ones(&ref);
	c = ref;
	memset(&mask, 0xff, sizeof(mask));
	clear_listed(&mask, hidden_always, ARRAY_SIZE(hidden_always));
	clear_listed(&mask, pmu_itself, ARRAY_SIZE(pmu_itself));
	/* 8000_0022's reserved EDX and bits no manual names yet; AnyThread deprecated */
	mask.ext[0x22].eax &= 1;
	mask.ext[0x22].ebx &= 0xf;
	mask.ext[0x22].edx = 0;
	mask.std[0xa].edx &= ~BIT(15);
	pmu_adjust_guest_cpuid(&c, with_pmu);
	for (i = 0; i < sizeof(c); i++)
		if ((a[i] ^ b[i]) & m[i])
			fail_msg("byte %zu of the cache changed (with_pmu %d)", i, with_pmu);
}

static void test_other_bits_untouched(void **state)
{
	check_untouched(false);
	check_untouched(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adjacent_hidden_in_every_view),
		cmocka_unit_test(test_off_has_no_pmu_leaves),
		cmocka_unit_test(test_on_geometry_clamped),
		cmocka_unit_test(test_on_real_hosts),
		cmocka_unit_test(test_other_bits_untouched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
