// SPDX-License-Identifier: MIT
/* A CPU's PMU geometry and the comparison with the BSP's (see pmu_geometry.h). */
#include "pmu_geometry.h"
#include "lib/fmt.h"

#define LEAF_PERFMON 0xa
#define LEAF_HYBRID 0x1a
#define LEAF_AMD_PERFMON 0x80000022u
#define CPUID7_EDX_HYBRID BIT(15)
#define AMD_PERFCTR_CORE BIT(23) /* Fn8000_0001 ECX: six core counters */

/* Leaves above the maximum answer with another leaf's contents (QEMU 7.2
 * gives leaf 0xD's for 8000_0022): read only below the maximum. */
static bool leaf(pmu_cpuid_fn cpuid, const void *arg, u32 nr, u32 sub, struct cpuid_regs *r)
{
	struct cpuid_regs max = { 0, 0, 0, 0 };

	*r = (struct cpuid_regs){ 0, 0, 0, 0 };
	if (!cpuid(nr & 0x80000000u, 0, &max, arg) || max.eax < nr)
		return false;
	return cpuid(nr, sub, r, arg);
}

void pmu_geometry_read(struct pmu_geometry *g, bool intel, bool amd, pmu_cpuid_fn cpuid,
		       const void *arg)
{
	struct cpuid_regs r;

	*g = (struct pmu_geometry){ 0 };
	if (intel && leaf(cpuid, arg, LEAF_PERFMON, 0, &r)) {
		g->version = field32(r.eax, 0, 8);
		g->nr_gp = field32(r.eax, 8, 8);
		g->gp_width = field32(r.eax, 16, 8);
		g->events_missing = r.ebx & (BIT(field32(r.eax, 24, 8)) - 1);
		g->fixed_mask = g->version >= 5 ? r.ecx : 0;
		g->nr_fixed = field32(r.edx, 0, 5);
		g->fixed_width = field32(r.edx, 5, 8);
	}
	if (intel && leaf(cpuid, arg, 7, 0, &r) && (r.edx & CPUID7_EDX_HYBRID) &&
	    leaf(cpuid, arg, LEAF_HYBRID, 0, &r))
		g->core_type = field32(r.eax, 24, 8);
	if (amd) {
		if (leaf(cpuid, arg, 0x80000001u, 0, &r))
			g->amd_core_counters = r.ecx & AMD_PERFCTR_CORE ? 6 : 4;
		if (leaf(cpuid, arg, LEAF_AMD_PERFMON, 0, &r)) {
			g->amd_features = r.eax;
			if (r.eax & BIT(0)) /* PerfMonV2: the count is in EBX */
				g->amd_core_counters = field32(r.ebx, 0, 4);
			g->amd_lbr_depth = field32(r.ebx, 4, 6);
		}
	}
}

/* The fields compared, in the order a difference is reported. */
static const struct {
	size_t offset;
	const char *fmt; /* this CPU's value, then the BSP's */
} fields[] = {
	{ offsetof(struct pmu_geometry, core_type), "core type 0x%x vs 0x%x" },
	{ offsetof(struct pmu_geometry, version), "architectural PMU version %u vs %u" },
	{ offsetof(struct pmu_geometry, nr_gp), "%u GP counters vs %u" },
	{ offsetof(struct pmu_geometry, gp_width), "GP counters of %u bits vs %u" },
	{ offsetof(struct pmu_geometry, nr_fixed), "%u fixed counters vs %u" },
	{ offsetof(struct pmu_geometry, fixed_width), "fixed counters of %u bits vs %u" },
	{ offsetof(struct pmu_geometry, fixed_mask), "fixed counter mask 0x%x vs 0x%x" },
	{ offsetof(struct pmu_geometry, events_missing), "missing events 0x%x vs 0x%x" },
	{ offsetof(struct pmu_geometry, amd_core_counters), "%u core counters vs %u" },
	{ offsetof(struct pmu_geometry, amd_features), "Fn8000_0022 EAX 0x%x vs 0x%x" },
	{ offsetof(struct pmu_geometry, amd_lbr_depth), "LBR stack of %u vs %u" },
};

bool pmu_geometry_same(const struct pmu_geometry *cpu, const struct pmu_geometry *bsp, char *why,
		       size_t size)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		u32 mine = *(const u32 *)((const u8 *)cpu + fields[i].offset);
		u32 theirs = *(const u32 *)((const u8 *)bsp + fields[i].offset);

		if (mine != theirs) {
			fmt_snprintf(why, size, fields[i].fmt, mine, theirs);
			return false;
		}
	}
	return true;
}
