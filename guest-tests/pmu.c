// SPDX-License-Identifier: MIT
/*
 * pmu: the guest PMU as each mode promises it, after kvm-unit-tests'
 * x86/pmu.c checks.  mhv tells the guest its mode and
 * accounting in CPUID 0x40000001 ECX/EDX.  With the PMU off the guest must
 * see a CPU without a PMU, consistently in CPUID, MSRs and RDPMC; with a
 * PMU it checks written values, counting, overflow with its PMI, writes to
 * running counters and the counts of instructions mhv emulates.
 */
#include "rt.h"

#define VECTOR_GP 13
#define PMI_VECTOR 0xf0
#define MSR_X2APIC_LVTPC 0x834 /* x2APIC 0x800 + (0x340 >> 4) */
#define LVT_MASKED BIT(16)
#define LVT_DELIVERY_NMI (4u << 8)

/* APM Vol 2 §13.2.1; SDM Vol 3 §21.2.1 */
#define EVTSEL_INSTRUCTIONS 0xc0
#define EVTSEL_USR BIT(16)
#define EVTSEL_OS BIT(17)
#define EVTSEL_INT BIT(20)
#define EVTSEL_EN BIT(22)
#define AMD_K7_PERF_CTL0 0xc0010000u
#define AMD_K7_PERF_CTR0 0xc0010004u

#define LOOPS 10000
#define EMULATED 5

static struct {
	u32 mode, account;
	unsigned nr_gp, width;
	u32 ctl0, ctr0, global_ctrl, global_status, status_clr;
} pmu;

static u64 width_mask(void)
{
	return pmu.width >= 64 ? ~0ull : BIT(pmu.width) - 1;
}

static u32 ctl_msr(unsigned i)
{
	return pmu.ctl0 + (guest_is_amd ? 2 * i : i);
}

static u32 ctr_msr(unsigned i)
{
	return pmu.ctr0 + (guest_is_amd ? 2 * i : i);
}

static void read_geometry(void)
{
	struct cpuid_regs hv, a, e1, max, e22 = { 0, 0, 0, 0 };

	cpuid_count(0x40000001, 0, &hv);
	pmu.mode = hv.ecx;
	pmu.account = hv.edx;
	if (guest_is_amd) {
		cpuid_count(0x80000001, 0, &e1);
		cpuid_count(0x80000000, 0, &max);
		if (max.eax >= 0x80000022)
			cpuid_count(0x80000022, 0, &e22);
		/* PerfMonV2: its count; else PerfCtrExtCore: 6 (APM Vol 2 §13.2.2) */
		pmu.nr_gp = e22.eax & 1 ? e22.ebx & 0xf : e1.ecx & BIT(23) ? 6 : 0;
		pmu.width = 48;
		pmu.ctl0 = 0xc0010200;
		pmu.ctr0 = 0xc0010201;
		pmu.global_status = 0xc0000300;
		pmu.global_ctrl = 0xc0000301;
		pmu.status_clr = 0xc0000302;
	} else {
		cpuid_count(0xa, 0, &a);
		pmu.nr_gp = (a.eax >> 8) & 0xff;
		pmu.width = (a.eax >> 16) & 0xff;
		pmu.ctl0 = 0x186;
		pmu.ctr0 = 0x4c1; /* full-width alias */
		pmu.global_status = 0x38e;
		pmu.global_ctrl = 0x38f;
		pmu.status_clr = 0x390;
	}
}

static bool pmu_on(const char *name)
{
	if (pmu.mode != HV_PMU_OFF)
		return true;
	test_report(name, TEST_SKIP, "%s", "the PMU is off in this VM");
	return false;
}

static void t_cpuid(const char *name)
{
	struct cpuid_regs l1, a, e1, ea;

	cpuid_count(1, 0, &l1);
	cpuid_count(0xa, 0, &a);
	cpuid_count(0x80000001, 0, &e1);
	cpuid_count(0x8000000a, 0, &ea);
	if (pmu.mode == HV_PMU_OFF)
		expect(name,
		       !a.eax && !a.ebx && !a.ecx && !a.edx && !(e1.ecx & BIT(23)) && !pmu.nr_gp &&
			   !(l1.ecx & BIT(15)) && !ea.edx,
		       "CPUID.0AH eax 0x%x, PerfCtrExtCore %d, %u counters, PDCM %d, "
		       "8000_000A edx 0x%x",
		       a.eax, !!(e1.ecx & BIT(23)), pmu.nr_gp, !!(l1.ecx & BIT(15)), ea.edx);
	else if (guest_is_amd)
		expect(name, pmu.nr_gp >= 1 && (e1.ecx & BIT(23)) && !ea.edx,
		       "%u counters, PerfCtrExtCore %d, 8000_000A edx 0x%x (PerfCtrVirt must "
		       "stay hidden)",
		       pmu.nr_gp, !!(e1.ecx & BIT(23)), ea.edx);
	else
		expect(name,
		       (a.eax & 0xff) >= 4 && pmu.nr_gp >= 1 && pmu.width && (l1.ecx & BIT(15)),
		       "version %u, %u counters of %u bits, PDCM %d", a.eax & 0xff, pmu.nr_gp,
		       pmu.width, !!(l1.ecx & BIT(15)));
}

/* Off: every PMU MSR is #GP as on a CPU without one, except AMD's K7
 * MSRs, which take writes and read 0 as on KVM with its PMU off. */
static void t_msrs(const char *name)
{
	u64 v = 1, k7 = 1;
	int sel, k7w, k7r;

	if (pmu.mode == HV_PMU_OFF) {
		sel = rdmsr_safe(guest_is_amd ? 0xc0010200 : 0x186, &v);
		if (!guest_is_amd) {
			expect(name, sel == VECTOR_GP, "PERFEVTSEL0 read gave %d", sel);
			return;
		}
		k7w = wrmsr_safe(AMD_K7_PERF_CTL0, EVTSEL_INSTRUCTIONS | EVTSEL_EN);
		k7r = rdmsr_safe(AMD_K7_PERF_CTL0, &k7);
		expect(name, sel == VECTOR_GP && k7w < 0 && k7r < 0 && k7 == 0,
		       "PERF_CTL0 read %d; K7 PERF_CTL0 write %d, read %d value 0x%llx", sel, k7w,
		       k7r, (unsigned long long)k7);
		return;
	}
	/* A select reads back as written; a counter as written, masked. */
	wrmsr(ctl_msr(0), EVTSEL_INSTRUCTIONS | EVTSEL_OS);
	wrmsr(ctr_msr(0), 0x123456789ull & width_mask());
	v = rdmsr(ctl_msr(0));
	k7 = rdmsr(ctr_msr(0));
	wrmsr(ctl_msr(0), 0);
	expect(name,
	       v == (EVTSEL_INSTRUCTIONS | EVTSEL_OS) && k7 == (0x123456789ull & width_mask()),
	       "select read 0x%llx, counter read 0x%llx", (unsigned long long)v,
	       (unsigned long long)k7);
}

/* kvm-unit-tests "rdpmc": written values come back masked; RDPMC of a
 * counter that does not exist is #GP (and any RDPMC with the PMU off). */
static void t_rdpmc(const char *name)
{
	u64 want = 0xff0123456789ull & width_mask(), got = 0;
	int bad = rdpmc_safe(pmu.mode == HV_PMU_OFF ? 0 : 64, &got);
	unsigned i;

	if (pmu.mode == HV_PMU_OFF) {
		expect(name, bad == VECTOR_GP, "RDPMC(0) gave %d, want #GP", bad);
		return;
	}
	for (i = 0; i < pmu.nr_gp; i++) {
		wrmsr(ctr_msr(i), want);
		if (rdpmc_safe(i, &got) >= 0 || got != want) {
			test_report(name, TEST_FAIL, "RDPMC(%u) 0x%llx, want 0x%llx", i,
				    (unsigned long long)got, (unsigned long long)want);
			return;
		}
		wrmsr(ctr_msr(i), 0);
	}
	expect(name, bad == VECTOR_GP, "RDPMC(64) gave %d, want #GP", bad);
}

static void spin(u64 n)
{
	asm volatile("1: dec %0; jnz 1b" : "+r"(n)::"cc");
}

/* Counter 0 counts kernel instructions around fn(n); the enabling and
 * disabling writes are the same for every call, so differences are exact. */
static u64 count_instructions(void (*fn)(u64), u64 n, u64 preset, u64 extra_sel)
{
	wrmsr(pmu.global_ctrl, 0);
	wrmsr(ctr_msr(0), preset);
	wrmsr(ctl_msr(0), EVTSEL_INSTRUCTIONS | EVTSEL_OS | EVTSEL_EN | extra_sel);
	wrmsr(pmu.global_ctrl, 1);
	fn(n);
	wrmsr(pmu.global_ctrl, 0);
	return rdmsr(ctr_msr(0));
}

/* The loop is two instructions per iteration (a window, as kvm-unit-tests checks). */
static void t_counting(const char *name)
{
	u64 got;

	if (!pmu_on(name))
		return;
	got = count_instructions(spin, LOOPS, 0, 0);
	wrmsr(ctl_msr(0), 0);
	expect(name, got >= 2 * LOOPS && got <= 2 * LOOPS + 100,
	       "%llu instructions counted for a loop of %u", (unsigned long long)got, 2 * LOOPS);
}

/*
 * Preset to overflow inside the loop: status bit 0 and one PMI at the
 * overflow, taken inside the loop, before the voluntary exit of the
 * disabling WRMSR (kvm-unit-tests' "overflow" disables the counter before
 * any).  The PMI goes through the LVTPC as programmed
 * (lvtpc: fixed vector or NMI delivery); Intel's LVTPC then masks itself,
 * AMD's does not (SDM Vol 3 §11.5.1; Linux's amd_pmu_v2_handle_irq).
 * Mode hw: the CPU delivers it as a virtual NMI whatever the LVTPC says
 * (APM Vol 2 §15.39, VNMI without AVIC).  STATUS_CLR clears the bit.
 */
static void overflow(const char *name, u64 lvtpc_set)
{
	u64 irqs = guest_irqs, nmis = guest_nmis, status, cleared, lvtpc, want_lvtpc, in_loop;
	bool nmi = pmu.mode == HV_PMU_HW || (lvtpc_set & LVT_DELIVERY_NMI);

	if (!pmu_on(name))
		return;
	wrmsr(MSR_X2APIC_LVTPC, lvtpc_set);
	asm volatile("sti");
	/* count_instructions, with the PMIs taken before the disabling WRMSR */
	wrmsr(pmu.global_ctrl, 0);
	wrmsr(ctr_msr(0), (0 - (u64)LOOPS) & width_mask());
	wrmsr(ctl_msr(0), EVTSEL_INSTRUCTIONS | EVTSEL_OS | EVTSEL_EN | EVTSEL_INT);
	wrmsr(pmu.global_ctrl, 1);
	spin(LOOPS);
	asm volatile("" ::: "memory");
	in_loop = guest_irqs - irqs + guest_nmis - nmis;
	wrmsr(pmu.global_ctrl, 0);
	asm volatile("nop; nop; cli");
	status = rdmsr(pmu.global_status);
	wrmsr(pmu.status_clr, 1);
	cleared = rdmsr(pmu.global_status);
	lvtpc = rdmsr(MSR_X2APIC_LVTPC);
	wrmsr(ctl_msr(0), 0);
	want_lvtpc = lvtpc_set | (!guest_is_amd && pmu.mode != HV_PMU_HW ? LVT_MASKED : 0);
	expect(name,
	       (status & 1) && !(cleared & 1) && guest_irqs == irqs + !nmi &&
		   guest_nmis == nmis + nmi && in_loop == 1 && lvtpc == want_lvtpc,
	       "status 0x%llx, after clear 0x%llx, %llu PMIs, %llu NMIs (%llu in the loop), "
	       "LVTPC 0x%llx (want 0x%llx)",
	       (unsigned long long)status, (unsigned long long)cleared,
	       (unsigned long long)(guest_irqs - irqs), (unsigned long long)(guest_nmis - nmis),
	       (unsigned long long)in_loop, (unsigned long long)lvtpc,
	       (unsigned long long)want_lvtpc);
	wrmsr(MSR_X2APIC_LVTPC, LVT_MASKED);
}

static void t_overflow(const char *name)
{
	overflow(name, PMI_VECTOR);
}

/* Linux programs its LVTPC with NMI delivery. */
static void t_overflow_nmi(const char *name)
{
	overflow(name, LVT_DELIVERY_NMI);
}

/*
 * A PMI per overflow, not per status bit (issue 28: perf test 35 lost its
 * cycles samples under sw and sw-lazy).  Counter 0 overflows inside the
 * loop three times, re-armed by writing the counter alone (no exit: the
 * counters and StatusClr are not intercepted): the second time while its
 * status bit from the first is still set, the third after the guest
 * cleared it through StatusClr/OVF_CTRL, with no exit between the clear
 * and the overflow.  Each overflow is one PMI, as the CPU raises one for
 * each (mode hw: a virtual NMI).  The LVTPC is written again after each
 * PMI (Intel's masks itself).  Before mhv counted host PMIs only a new
 * status bit made a PMI, and the second and third never came.
 */
static void t_overflow_again(const char *name)
{
	u64 base = guest_irqs + guest_nmis, pmis[3], status[3];
	unsigned i;

	if (!pmu_on(name))
		return;
	wrmsr(MSR_X2APIC_LVTPC, PMI_VECTOR);
	wrmsr(pmu.global_ctrl, 0);
	wrmsr(pmu.status_clr, 1);
	wrmsr(ctr_msr(0), (0 - (u64)LOOPS) & width_mask());
	wrmsr(ctl_msr(0), EVTSEL_INSTRUCTIONS | EVTSEL_OS | EVTSEL_EN | EVTSEL_INT);
	asm volatile("sti");
	wrmsr(pmu.global_ctrl, 1);
	for (i = 0; i < 3; i++) {
		if (i == 2)
			wrmsr(pmu.status_clr, 1);
		if (i)
			wrmsr(ctr_msr(0), (0 - (u64)LOOPS) & width_mask());
		spin(LOOPS);
		asm volatile("nop; nop" ::: "memory");
		pmis[i] = guest_irqs + guest_nmis - base;
		status[i] = rdmsr(pmu.global_status);
		wrmsr(MSR_X2APIC_LVTPC, PMI_VECTOR);
	}
	wrmsr(pmu.global_ctrl, 0);
	asm volatile("cli");
	wrmsr(pmu.status_clr, 1);
	wrmsr(ctl_msr(0), 0);
	wrmsr(MSR_X2APIC_LVTPC, LVT_MASKED);
	expect(name,
	       pmis[0] == 1 && pmis[1] == 2 && pmis[2] == 3 && (status[0] & 1) && (status[1] & 1) &&
		   (status[2] & 1),
	       "PMIs after each overflow %llu, %llu, %llu (want 1, 2, 3: the second with "
	       "status still set, the third after StatusClr); status 0x%llx 0x%llx 0x%llx",
	       (unsigned long long)pmis[0], (unsigned long long)pmis[1],
	       (unsigned long long)pmis[2], (unsigned long long)status[0],
	       (unsigned long long)status[1], (unsigned long long)status[2]);
}

/*
 * AMD's PerfCntrGlobalStatusClr/Set ignore the bits of no status flag, no
 * #GP (hardware takes all-ones; Linux's amd_pmu_cpu_reset writes LbrFreeze,
 * bit 58, to StatusClr on every PerfMonV2 CPU: 0x040000000000003f with six
 * counters, and a #GP was Linux's "unchecked MSR access error: WRMSR to
 * 0xc0000302", issue 28).  Intel's OVF_CTRL refuses a reserved bit.
 */
static void t_status_clr_reserved(const char *name)
{
	u64 counters = BIT(pmu.nr_gp) - 1, after_set = 0, after_clr = 0;
	int clr, set;

	if (!pmu_on(name))
		return;
	if (!guest_is_amd) {
		clr = wrmsr_safe(pmu.status_clr, BIT(57));
		expect(name, clr == VECTOR_GP, "OVF_CTRL bit 57 gave %d, want #GP", clr);
		return;
	}
	set = wrmsr_safe(0xc0000303, BIT(58) | 1);
	after_set = rdmsr(pmu.global_status);
	clr = wrmsr_safe(pmu.status_clr, BIT(58) | counters);
	after_clr = rdmsr(pmu.global_status);
	expect(name, set < 0 && clr < 0 && after_set == 1 && after_clr == 0,
	       "StatusSet 0x%llx gave %d, status 0x%llx; StatusClr 0x%llx gave %d, status 0x%llx",
	       (unsigned long long)(BIT(58) | 1), set, (unsigned long long)after_set,
	       (unsigned long long)(BIT(58) | counters), clr, (unsigned long long)after_clr);
}

/* kvm-unit-tests "running counter wrmsr": 0 restarts it; all-ones overflows. */
static void t_running_write(const char *name)
{
	u64 small, status;

	if (!pmu_on(name))
		return;
	wrmsr(pmu.global_ctrl, 0);
	wrmsr(ctl_msr(0), EVTSEL_INSTRUCTIONS | EVTSEL_OS | EVTSEL_EN);
	wrmsr(pmu.global_ctrl, 1);
	spin(LOOPS);
	wrmsr(ctr_msr(0), 0);
	spin(10);
	small = rdmsr(ctr_msr(0));
	wrmsr(ctr_msr(0), width_mask());
	spin(10);
	wrmsr(pmu.global_ctrl, 0);
	status = rdmsr(pmu.global_status);
	wrmsr(pmu.status_clr, 1);
	wrmsr(ctl_msr(0), 0);
	expect(name, small < 100 && (status & 1), "count after writing 0: %llu, status 0x%llx",
	       (unsigned long long)small, (unsigned long long)status);
}

static void five_cpuids(u64 n)
{
	u32 a, b, c, d;

	asm volatile(".rept 5\n xor %%eax, %%eax\n cpuid\n .endr"
		     : "=a"(a), "=b"(b), "=c"(c), "=d"(d)::"memory");
}

static void five_nops(u64 n)
{
	u32 a, b, c, d;

	asm volatile(".rept 5\n xor %%eax, %%eax\n nop\n .endr"
		     : "=a"(a), "=b"(b), "=c"(c), "=d"(d)::"memory");
}

/*
 * The intercepted CPUIDs never retire in hardware: with accounting mhv
 * adds one each, so they count as the NOPs do; without, five fewer.  AMD
 * may count the VMRUN of each exit too (a comment in kvm-unit-tests'
 * x86/pmu.c): up to 5 more.
 */
static void t_emulated_count(const char *name)
{
	s64 diff, want;

	if (!pmu_on(name))
		return;
	diff = (s64)(count_instructions(five_cpuids, 0, 0, 0) -
		     count_instructions(five_nops, 0, 0, 0));
	wrmsr(ctl_msr(0), 0);
	want = pmu.account & HV_PMU_ACCOUNT_INSN ? 0 : -EMULATED;
	expect(name, diff == want || (guest_is_amd && diff > want && diff <= want + EMULATED),
	       "5 CPUIDs counted %lld against 5 NOPs, want %lld (accounting %s)", (long long)diff,
	       (long long)want, pmu.account & HV_PMU_ACCOUNT_INSN ? "on" : "off");
}

/*
 * An overflow on an instruction mhv emulates: counter 0 one short of
 * wrapping once the enabling WRMSR has counted, then a CPUID.  With
 * accounting mhv wraps it and raises the PMI (mode hw: a virtual NMI, as
 * the CPU's own); without, the next instruction that retires in guest mode
 * wraps it in hardware.  Either way exactly one PMI: not one from each.
 */
static void t_emulated_overflow(const char *name)
{
	u64 irqs = guest_irqs, nmis = guest_nmis, status, pmis;
	u32 a, b, c, d;

	if (!pmu_on(name))
		return;
	wrmsr(MSR_X2APIC_LVTPC, PMI_VECTOR);
	wrmsr(pmu.global_ctrl, 0);
	wrmsr(ctr_msr(0), (width_mask() - 1) & width_mask());
	wrmsr(ctl_msr(0), EVTSEL_INSTRUCTIONS | EVTSEL_OS | EVTSEL_EN | EVTSEL_INT);
	asm volatile("sti\n wrmsr\n xor %%eax, %%eax\n cpuid\n nop; nop; nop; nop"
		     : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
		     : "c"(pmu.global_ctrl), "a"(1), "d"(0)
		     : "memory");
	wrmsr(pmu.global_ctrl, 0);
	asm volatile("cli");
	status = rdmsr(pmu.global_status);
	wrmsr(pmu.status_clr, 1);
	wrmsr(ctl_msr(0), 0);
	wrmsr(MSR_X2APIC_LVTPC, LVT_MASKED);
	pmis = guest_irqs - irqs + guest_nmis - nmis;
	expect(name, (status & 1) && pmis == 1,
	       "status 0x%llx, %llu PMIs, %llu NMIs (accounting %s)", (unsigned long long)status,
	       (unsigned long long)(guest_irqs - irqs), (unsigned long long)(guest_nmis - nmis),
	       pmu.account & HV_PMU_ACCOUNT_INSN ? "on" : "off");
}

/*
 * In every mode: the PMU-adjacent features mhv does not virtualize are
 * absent from CPUID (SDM Vol 2A; APM Vol 3 Appendix E.4), and their MSRs
 * and XSAVE state components #GP as on a CPU without them.  IA32_MISC_ENABLE (SDM Vol 4 Table 2-2):
 * PERFMON (7) as CPUID.0AH has a PMU, BTS (11) and PEBS (12) unavailable.
 */
static void t_adjacent_hidden(const char *name)
{
	static const struct {
		u32 leaf, subleaf;
		unsigned reg; /* 0 EAX .. 3 EDX */
		u32 bits;
		const char *what;
	} bits[] = {
		{ 0x6, 0, 2, BIT(0), "APERF/MPERF" },
		{ 0x7, 0, 1, BIT(25), "Intel PT" },
		{ 0x7, 0, 3, BIT(19), "Arch LBR" },
		{ 0x7, 1, 0, BIT(8), "ArchPerfmonExt" },
		{ 0xa, 0, 2, ~0u, "fixed-counter bitmap" },
		{ 0xd, 1, 2, BIT(8) | BIT(15), "PT and Arch LBR XSAVE state" },
		{ 0x14, 0, 1, ~0u, "PT leaf" },
		{ 0x1c, 0, 0, ~0u, "Arch LBR leaf" },
		{ 0x80000001, 0, 2, BIT(10) | BIT(24) | BIT(27) | BIT(28),
		  "IBS, PerfCtrExtNB, PerfTsc, PerfCtrExtLLC" },
		{ 0x80000007, 0, 3, BIT(10), "EffFreqRO" },
		{ 0x80000008, 0, 1, BIT(1), "IRPerf" },
		{ 0x8000001b, 0, 0, ~0u, "IBS leaf" },
		{ 0x80000022, 0, 0, ~1u, "LbrExtV2, LbrAndPmcFreeze" },
		{ 0x80000022, 0, 1, ~0xfu, "LBR stack, NB and UMC counters" },
	};
	static const struct {
		u32 msr;
		const char *what;
	} msrs[] = {
		{ 0xe7, "IA32_MPERF" },		 { 0x570, "IA32_RTIT_CTL" },
		{ 0x14ce, "IA32_LBR_CTL" },	 { 0xc00000e9, "IRPerfCount" },
		{ 0xc0010230, "L3 PERF_CTL0" },	 { 0xc0010240, "DF PERF_CTL0" },
		{ 0xc0010280, "PTSC" },		 { 0xc000010f, "DBG_EXTN_CFG (LbrExtV2)" },
		{ 0xc0011030, "IBS_FETCH_CTL" },
	};
	struct cpuid_regs r, a;
	u64 misc = 0, v;
	unsigned i;
	int vec;

	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		u32 regs[4];

		cpuid_count(bits[i].leaf, bits[i].subleaf, &r);
		regs[0] = r.eax;
		regs[1] = r.ebx;
		regs[2] = r.ecx;
		regs[3] = r.edx;
		if (regs[bits[i].reg] & bits[i].bits) {
			test_report(name, TEST_FAIL, "CPUID 0x%x.%u shows %s (0x%x)", bits[i].leaf,
				    bits[i].subleaf, bits[i].what, regs[bits[i].reg]);
			return;
		}
	}
	for (i = 0; i < ARRAY_SIZE(msrs); i++) {
		vec = rdmsr_safe(msrs[i].msr, &v);
		if (vec != VECTOR_GP) {
			test_report(name, TEST_FAIL, "RDMSR %s (0x%x) gave %d, want #GP",
				    msrs[i].what, msrs[i].msr, vec);
			return;
		}
	}
	/* IA32_XSS: nor their XSAVE state (SDM Vol 1 §13.5.6, §13.5.9) */
	for (i = 0; i < 2; i++) {
		vec = wrmsr_safe(0xda0, i ? BIT(15) : BIT(8));
		if (vec != VECTOR_GP) {
			test_report(name, TEST_FAIL, "IA32_XSS <- 0x%llx gave %d, want #GP",
				    (unsigned long long)(i ? BIT(15) : BIT(8)), vec);
			return;
		}
	}
	cpuid_count(0xa, 0, &a);
	vec = rdmsr_safe(0x1a0, &misc);
	expect(name,
	       vec < 0 && !!(misc & BIT(7)) == !!(a.eax & 0xff) && (misc & BIT(11)) &&
		   (misc & BIT(12)),
	       "IA32_MISC_ENABLE read %d: 0x%llx, CPUID.0AH version %u", vec,
	       (unsigned long long)misc, a.eax & 0xff);
}

static const struct {
	const char *name;
	void (*fn)(const char *name);
} pmu_tests[] = {
	{ "cpuid_matches_mode", t_cpuid },
	{ "msrs_match_mode", t_msrs },
	{ "adjacent_hidden", t_adjacent_hidden },
	{ "rdpmc", t_rdpmc },
	{ "counting", t_counting },
	{ "overflow_pmi", t_overflow },
	{ "overflow_nmi", t_overflow_nmi },
	{ "overflow_again", t_overflow_again },
	{ "status_clr_reserved", t_status_clr_reserved },
	{ "running_counter_write", t_running_write },
	{ "emulated_insn_count", t_emulated_count },
	{ "emulated_overflow_pmi", t_emulated_overflow },
};

/* its results are tests, no benchmark rows */
GUEST_BENCH_ROWS();

u64 guest_main(u64 variant)
{
	static const char *const modes[] = PMU_MODE_WORDS;
	unsigned i;

	guest_rt_init();
	guest_nmi_ok = true; /* a PMI may be an NMI (t_overflow) */
	read_geometry();
	gprintf("pmu guest: mode %s, accounting 0x%x, %u counters of %u bits\n",
		pmu.mode < ARRAY_SIZE(modes) ? modes[pmu.mode] : "?", pmu.account, pmu.nr_gp,
		pmu.width);
	for (i = 0; i < ARRAY_SIZE(pmu_tests); i++)
		if (test_wanted(pmu_tests[i].name))
			pmu_tests[i].fn(pmu_tests[i].name);
	return 0;
}
