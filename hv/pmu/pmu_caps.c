// SPDX-License-Identifier: MIT
#include "pmu_caps.h"
#include "platform/console.h"
#include "host/cpu_features.h"
#include "lib/fmt.h"
#include "pmu.h"
#include "pmu_geometry.h"
#include "arch/x86.h"

struct pmu_caps pmu_caps;
/* The BSP's, which every CPU that runs guests must have. */
static struct pmu_geometry bsp_geometry;

#define CPUID_AMD_PERFMON 0x80000022u

static const char *sw_unsupported(void);
static const char *probe_counting(void);

/* CPUID of the CPU this runs on: not the BSP's cache */
static bool this_cpu_cpuid(u32 leaf, u32 subleaf, struct cpuid_regs *r, const void *arg)
{
	cpuid_raw(leaf, subleaf, r);
	return true;
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
		/* Fn8000_0022: above the maximum extended leaf QEMU 7.2 answers
		 * with leaf 0xD's contents, so check the maximum first */
		if (cpuid_cached(CPUID_AMD_PERFMON, 0, &r)) {
			c->perfmon_v2 = r.eax & BIT(0);
			if (c->perfmon_v2)
				c->amd_counters = field32(r.ebx, 0, 4);
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
		c->version = field32(r.eax, 0, 8);
		c->nr_gp = field32(r.eax, 8, 8);
		c->gp_width = field32(r.eax, 16, 8);
		c->nr_fixed = field32(r.edx, 0, 5);
		c->fixed_width = field32(r.edx, 5, 8);
	}
	if (cpuid_cached(1, 0, &r))
		c->pdcm = r.ecx & BIT(15); /* IA32_PERF_CAPABILITIES exists */
	c->not_counting = NULL;
	if (!sw_unsupported())
		c->not_counting = probe_counting();
	pmu_geometry_read(&bsp_geometry, c->intel, c->amd, this_cpu_cpuid, NULL);
}

/* On an AP, before it takes guests: guests and their PMU modes were set
 * up from the BSP's PMU, so a CPU with another (a hybrid part's E-core)
 * is left out, as one with another XSTATE layout is. */
bool pmu_matches_this_cpu(char *why, size_t size)
{
	struct pmu_geometry mine;
	char diff[80];

	pmu_geometry_read(&mine, pmu_caps.intel, pmu_caps.amd, this_cpu_cpuid, NULL);
	if (pmu_geometry_same(&mine, &bsp_geometry, diff, sizeof(diff)))
		return true;
	fmt_snprintf(why, size, "PMU differs from the BSP's: %s", diff);
	return false;
}

/* Why a software world switch cannot run on this host, or NULL. */
static const char *sw_unsupported(void)
{
	const struct pmu_caps *c = &pmu_caps;

	if (c->amd && !c->perfmon_v2)
		return "needs PerfMonV2 (CPUID 8000_0022 EAX[0]) to restore guest overflow "
		       "status (APM Vol 2 §13.2.1, PerfCntGlobalStatusSet)";
	if (c->intel && c->version < 4)
		return "needs architectural PMU version 4 (CPUID 0AH EAX[7:0]) for "
		       "GLOBAL_STATUS_SET";
	if (c->intel && !c->pdcm)
		return "needs IA32_PERF_CAPABILITIES (CPUID 1 ECX[15]) with full-width writes";
	if (c->intel && !c->vm_global_ctrl_switch)
		return "needs the VM-entry/VM-exit controls that load IA32_PERF_GLOBAL_CTRL "
		       "(SDM Vol 3 §25.7.1, §25.8.1)";
	if (!c->amd && !c->intel)
		return "unknown CPU vendor";
	return c->not_counting;
}

const char *pmu_mode_unsupported(enum pmu_mode mode)
{
	if (!pmu_mode_guest_pmu(mode))
		return NULL;
	if (mode == PMU_HW) {
		if (!pmu_caps.amd)
			return "hardware PMC switching is AMD's (PerfCtrVirt)";
		if (!pmu_caps.perfctr_virt)
			return "needs PerfCtrVirt (CPUID 8000_000A EDX[8], Zen 5 and later)";
		/* PMC virtualization delivers overflows through AVIC or VNMI
		 * (APM Vol 2 §15.39); mhv has no AVIC */
		if (!pmu_caps.vnmi)
			return "needs VNMI (CPUID 8000_000A EDX[25]) for guest PMIs";
	}
	return sw_unsupported();
}

#define PROBE_LOOPS 1000

/*
 * CPUID can promise a PMU that does not count (Bochs 2.7 advertises an
 * architectural PMU and implements none), so before any
 * mode relies on it, counter 0 counts instructions over a known loop.  The
 * accesses are #GP-safe: a missing MSR also means "does not count".
 */
static const char *probe_counting(void)
{
	struct pmu_caps *c = &pmu_caps;
	u32 ctl = c->amd ? MSR_AMD_PERF_CTL(0) : MSR_INTEL_PERFEVTSEL(0);
	u32 ctr = c->amd ? MSR_AMD_PERF_CTR(0) : MSR_INTEL_A_PMC(0);
	u32 global = c->amd ? MSR_AMD_GLOBAL_CTL : MSR_INTEL_GLOBAL_CTRL;
	u64 count = 0;
	unsigned i;
	int err;

	err = wrmsr_safe(global, 0) | wrmsr_safe(ctr, 0) |
	      wrmsr_safe(ctl, PMU_EVENT_INSTRUCTIONS | PMU_EVTSEL_OS | PMU_EVTSEL_EN) |
	      wrmsr_safe(global, 1);
	for (i = 0; i < PROBE_LOOPS; i++)
		asm volatile("" ::: "memory");
	err |= wrmsr_safe(global, 0) | rdmsr_safe(ctr, &count);
	wrmsr_safe(ctl, 0);
	wrmsr_safe(ctr, 0);
	if (err)
		return "a PMU MSR raised #GP although CPUID announces the PMU";
	if (count < PROBE_LOOPS) {
		fmt_snprintf(c->why_buf, sizeof(c->why_buf),
			     "the PMU does not count: %llu instructions counted in a loop of "
			     "%u or more (an emulator without a PMU?)",
			     count, PROBE_LOOPS);
		return c->why_buf;
	}
	return NULL;
}

void pmu_caps_describe(void)
{
	const struct pmu_caps *c = &pmu_caps;
	enum pmu_mode m;

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
	for (m = 0; m < PMU_MODE_COUNT; m++) {
		const char *why = pmu_mode_unsupported(m);

		console_printf("mhv: pmu mode %-10s %s%s\n", pmu_mode_name(m),
			       why ? "cannot run: " : "available", why ? why : "");
	}
}
