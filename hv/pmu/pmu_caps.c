// SPDX-License-Identifier: MIT
#include "pmu_caps.h"
#include "console.h"
#include "cpu.h"

struct pmu_caps pmu_caps;

#define CPUID_AMD_PERFMON 0x80000022u

static u32 bits(u32 v, unsigned lo, unsigned n)
{
	return (v >> lo) & ((1u << n) - 1);
}

void pmu_caps_probe(void)
{
	struct pmu_caps *c = &pmu_caps;
	struct cpuid_regs r;

	c->amd = host_cpu.vendor == VENDOR_AMD;
	c->intel = host_cpu.vendor == VENDOR_INTEL;
	if (c->amd) {
		/* Fn8000_0001_ECX[23] PerfCtrExtCore: 6 counters at C001_0200 */
		c->perfctr_core = host_cpu.has.perfctr_core;
		c->amd_counters = c->perfctr_core ? 6 : 4;
		/* Fn8000_0022: above the maximum extended leaf QEMU answers with
		 * another leaf, so check the maximum first (ref/emulators.md) */
		if (cpuid_cached(CPUID_AMD_PERFMON, 0, &r)) {
			c->perfmon_v2 = r.eax & BIT(0);
			if (c->perfmon_v2)
				c->amd_counters = bits(r.ebx, 0, 4);
		}
		/* Fn8000_000A_EDX: [8] PerfCtrVirt, [13] AVIC, [25] VNMI (APM Vol 2 §15.4) */
		if (host_cpu.has.svm && cpuid_cached(0x8000000a, 0, &r)) {
			c->perfctr_virt = r.edx & BIT(8);
			c->avic = r.edx & BIT(13);
			c->vnmi = r.edx & BIT(25);
		}
	}
	if (c->intel && cpuid_cached(0xa, 0, &r)) {
		/* CPUID.0AH: EAX version/#GP/width, EDX #fixed/width (SDM Vol 2A) */
		c->version = bits(r.eax, 0, 8);
		c->nr_gp = bits(r.eax, 8, 8);
		c->gp_width = bits(r.eax, 16, 8);
		c->nr_fixed = bits(r.edx, 0, 5);
		c->fixed_width = bits(r.edx, 5, 8);
	}
	if (cpuid_cached(1, 0, &r))
		c->pdcm = r.ecx & BIT(15); /* IA32_PERF_CAPABILITIES exists */
}

/* Why a software world switch cannot run on this host, or NULL. */
static const char *sw_unsupported(void)
{
	const struct pmu_caps *c = &pmu_caps;

	if (c->amd && !c->perfmon_v2)
		return "needs PerfMonV2 (CPUID 8000_0022 EAX[0]) to restore guest overflow "
		       "status (pmu-virt.md §1.5)";
	if (c->intel && c->version < 4)
		return "needs architectural PMU version 4 (CPUID 0AH EAX[7:0]) for "
		       "GLOBAL_STATUS_SET";
	if (c->intel && !c->pdcm)
		return "needs IA32_PERF_CAPABILITIES (CPUID 1 ECX[15]) with full-width writes";
	if (!c->amd && !c->intel)
		return "unknown CPU vendor";
	return NULL;
}

const char *pmu_mode_unsupported(const char *mode)
{
	const char *why;

	if (!__builtin_strcmp(mode, "off"))
		return NULL;
	why = sw_unsupported();
	if (!__builtin_strcmp(mode, "hw")) {
		if (!pmu_caps.amd)
			return "hardware PMC switching is AMD's (PerfCtrVirt)";
		if (!pmu_caps.perfctr_virt)
			return "needs PerfCtrVirt (CPUID 8000_000A EDX[8], Zen 5 and later)";
		if (!pmu_caps.vnmi && !pmu_caps.avic)
			return "needs VNMI or AVIC for guest PMIs (APM Vol 2 §15.39)";
	}
	if (why)
		return why;
	/* The host side of the world switch (hv/pmu) is not wired into the
	 * entry/exit path yet: refuse rather than pretend. */
	return "the PMU world switch is not wired into the entry path yet (issue 5)";
}

void pmu_caps_describe(void)
{
	static const char *const modes[] = { "off", "sw", "sw-noelide", "sw-lazy", "hw" };
	const struct pmu_caps *c = &pmu_caps;
	unsigned i;

	if (c->amd)
		console_printf("mhv: pmu: AMD, %u core counters, PerfCtrExtCore %s, PerfMonV2 %s, "
			       "PerfCtrVirt %s, VNMI %s, AVIC %s\n",
			       c->amd_counters, c->perfctr_core ? "yes" : "no",
			       c->perfmon_v2 ? "yes" : "no", c->perfctr_virt ? "yes" : "no",
			       c->vnmi ? "yes" : "no", c->avic ? "yes" : "no");
	else if (c->intel)
		console_printf("mhv: pmu: Intel architectural PMU version %u, %u GP counters of %u "
			       "bits, %u fixed of %u bits, PERF_CAPABILITIES %s\n",
			       c->version, c->nr_gp, c->gp_width, c->nr_fixed, c->fixed_width,
			       c->pdcm ? "yes" : "no");
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		const char *why = pmu_mode_unsupported(modes[i]);

		console_printf("mhv: pmu mode %-10s %s%s\n", modes[i],
			       why ? "cannot run: " : "available", why ? why : "");
	}
}
