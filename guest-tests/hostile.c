// SPDX-License-Identifier: MIT
/*
 * hostile: a guest that tries to take the host over, one case per VM
 * (the variant).  Cases that the guest can judge itself report what it
 * saw (every attempt must get the hardware's answer: #UD, #GP, an error
 * code, or an ignored write); cases that must end the VM (an access
 * outside its RAM, a walk through a page table outside it) never get to
 * report, and mhv judges them by how the VM stopped.  After every case
 * mhv checks its own code, page tables and stacks (hv/host/selfcheck.c).
 */
#include "rt.h"
#include "xstate/xstate.h"
#include "lib/fmt.h"

#define VECTOR_UD 6
#define VECTOR_GP 13
#define IPI_VECTOR 0xe1
#define MSR_X2APIC_ICR 0x830
#define MSR_X2APIC_SELF_IPI 0x83f
#define OUTSIDE_GPA 0x90000000ull /* neither RAM nor a device */

enum hostile_case {
	CASE_VIRT_INSN = 1,
	CASE_MSR_TAKEOVER,
	CASE_PORT_IO,
	CASE_HYPERCALL_ARGS,
	CASE_IPI_STORM,
	CASE_INIT_SIPI_SELF,
	CASE_CR_INVALID,
	CASE_READ8,
	CASE_READ16,
	CASE_READ32,
	CASE_READ64,
	CASE_WRITE,
	CASE_FETCH,
	CASE_PTE_OUTSIDE,
	CASE_IDT_OUTSIDE,
	CASE_GDT_OUTSIDE,
	CASE_TRIPLE_FAULT,
	CASE_SPIN,
	CASE_PMU_RESERVED,
	CASE_STATE_PLANT, /* these two run back to back on one CPU */
	CASE_STATE_FRESH,
	CASE_CONSOLE_STORM, /* two vCPUs */
	CASE_FORGED_RESULTS,
	CASE_LONG_SPIN,
	CASE_LOST_CPU,
	CASE_AFTER_LOST_CPU,
};

/* the forged row must reach the tables (as a skip); the bad buffers of
 * CASE_HYPERCALL_ARGS are refused before they are rows */
GUEST_BENCH_ROWS([CASE_FORGED_RESULTS] = 1);

static unsigned failures;

static void check(bool ok, const char *what, int got)
{
	if (ok)
		return;
	failures++;
	gprintf("FAILED: %s (got %d)\n", what, got);
}

/* Both vendors' virtualization instructions: #UD, no nested virtualization. */
static void virt_insn(void)
{
	static int (*const probes[])(void) = {
		vmrun_probe,   vmload_probe,   vmsave_probe,   stgi_probe,    clgi_probe,
		invlpga_probe, vmxon_probe,    vmclear_probe,  vmptrld_probe, vmread_probe,
		vmwrite_probe, vmlaunch_probe, vmresume_probe, invept_probe,  invvpid_probe,
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		int v = probes[i]();

		check(v == VECTOR_UD, "a virtualization instruction did not raise #UD", v);
	}
}

/* MSRs that would hand the host over: each #GP, and reading back shows
 * nothing moved.  The MTRRs are the guest's own (storage under nested
 * paging): only bad values #GP, as on a CPU. */
static void msr_takeover(void)
{
	static const struct {
		u32 msr;
		u64 value;
	} writes[] = {
		{ 0xc0000080, 0xd01 | BIT(12) },      /* EFER with SVME: no nested SVM */
		{ 0xc0000080, 0xd01 | BIT(20) },      /* EFER with a reserved bit */
		{ 0xc0010117, 0x1000 },		      /* VM_HSAVE_PA */
		{ 0xc0010114, 0x10 },		      /* VM_CR: SVMDIS */
		{ 0x3a, 0x5 },			      /* IA32_FEATURE_CONTROL */
		{ 0x79, 0x200000 },		      /* IA32_BIOS_UPDT_TRIG: microcode load */
		{ 0xc0010020, 0x200000 },	      /* AMD PATCH_LOADER */
		{ 0x9e, 0x30000 },		      /* IA32_SMBASE */
		{ 0x9b, 0x1 },			      /* IA32_SMM_MONITOR_CTL */
		{ 0xc0010111, 0x30000 },	      /* AMD SMM_BASE */
		{ 0xc0010113, 0x3 },		      /* AMD SMM_MASK */
		{ 0x2ff, 0xc06 | BIT(12) },	      /* MTRR_DEF_TYPE: reserved bit */
		{ 0x200, 0x2 },			      /* MTRR_PHYSBASE0: invalid type */
		{ 0x277, 0x0202020202020202ull },     /* PAT with reserved type 2 */
		{ 0x1b, 0x1000 | BIT(11) | BIT(10) }, /* APIC_BASE moved into guest RAM */
		/* not GS_BASE: the guest's own, passed through, the CPU checks it
		 * is canonical (QEMU TCG does not: kvm-unit-tests' msr.flat) */
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(writes); i++) {
		int v = wrmsr_safe(writes[i].msr, writes[i].value);

		if (v != VECTOR_GP)
			gprintf("MSR 0x%x write: vector %d\n", writes[i].msr, v);
		check(v == VECTOR_GP, "a host-takeover MSR write was not #GP", v);
	}
}

/*
 * Ports that would reset or reconfigure the real machine: emulated or
 * ignored.  A reset request resets the VM (mhv stops it with "reset"),
 * never the machine: the last write here must end this VM, and mhv
 * must outlive it.
 */
static void port_io(void)
{
	outl(0xcf8, 0x80000000u);
	outl(0xcfc, 0xffffffffu); /* a PCI config write to device 0:0.0 */
	outb(0x70, 0x0f);
	outb(0x71, 0x0a);  /* CMOS shutdown status: "jump via 40:67" */
	outb(0xcf9, 0x02); /* reset control: SYS_RST alone resets nothing */
	outb(0x92, 0x00);  /* port 92: fast reset bit stays 0 */
	check(inl(0xcfc) == 0xffffffffu, "PCI config read was not all ones", 0);
	check(!(inb(0x64) & 0x02), "the keyboard controller never takes a command", 0);
	if (failures)
		return;
	outb(0x64, 0xfe); /* keyboard controller: pulse the reset line */
	check(false, "the keyboard controller's reset left the VM running", 0);
}

/* Unknown numbers, pointers outside RAM, lengths across its end, overlaps. */
static void hypercall_args(void)
{
	static struct hc_bench_result r;
	u64 v;

	v = hypercall(HC_COUNT, 0, 0);
	check(v == HC_ERROR, "an unknown hypercall number", (int)v);
	v = hypercall(~0ull, 0, 0);
	check(v == HC_ERROR, "hypercall number ~0", (int)v);
	v = hypercall(HC_PRINT, GUEST_RAM_SIZE, 1);
	check(v == HC_ERROR, "print from outside RAM", (int)v);
	v = hypercall(HC_PRINT, GUEST_RAM_SIZE - 8, 16);
	check(v == HC_ERROR, "print across the end of RAM", (int)v);
	v = hypercall(HC_PRINT, 0x1000, ~0ull);
	check(v == HC_ERROR, "print of ~0 bytes", (int)v);
	v = hypercall(HC_TEST_RESULT, ~0ull - 16, 0);
	check(v == HC_ERROR, "a result struct at the top of the address space", (int)v);
	v = hypercall(HC_PARAMS, GUEST_RAM_SIZE - 4, 0);
	check(v == HC_ERROR, "params written across the end of RAM", (int)v);
	v = hypercall(HC_EXIT_COUNT, ~0ull, 0);
	check(v == HC_ERROR, "an exit count out of range", (int)v);
	/* the samples of a benchmark result overlapping the result itself */
	__builtin_memset(&r, 0, sizeof(r));
	r.nr_samples = 4;
	r.samples_gpa = (u64)(uintptr_t)&r;
	v = hypercall(HC_BENCH_RESULT, (u64)(uintptr_t)&r, 0);
	check(v == HC_ERROR, "overlapping hypercall buffers", (int)v);
	r.samples_gpa = GUEST_RAM_SIZE - 8;
	v = hypercall(HC_BENCH_RESULT, (u64)(uintptr_t)&r, 0);
	check(v == HC_ERROR, "samples across the end of RAM", (int)v);
}

/* A storm of self-IPIs, with interrupts off (they coalesce) and on (each taken). */
#define STORM 20000
static void ipi_storm(void)
{
	u64 before = guest_irqs;
	unsigned i;

	for (i = 0; i < STORM; i++)
		wrmsr(MSR_X2APIC_SELF_IPI, IPI_VECTOR);
	asm volatile("sti; nop; nop; cli");
	check(guest_irqs - before <= 1, "self-IPIs with IF=0 did not coalesce",
	      (int)(guest_irqs - before));
	before = guest_irqs;
	asm volatile("sti");
	for (i = 0; i < STORM; i++)
		wrmsr(MSR_X2APIC_SELF_IPI, IPI_VECTOR);
	asm volatile("cli");
	/* at most 1% coalesced where interrupt windows are loose (QEMU TCG) */
	check(guest_irqs - before >= STORM - STORM / 100, "self-IPIs with IF=1 were lost",
	      (int)(guest_irqs - before));
}

/* INIT and SIPI to itself: mhv's APIC delivers only fixed IPIs, the rest is dropped. */
static void init_sipi_self(void)
{
	wrmsr(MSR_X2APIC_ICR, 0x500 | (1u << 18)); /* INIT, self shorthand */
	wrmsr(MSR_X2APIC_ICR, 0x600 | 0x10);	   /* SIPI to APIC ID 0 */
	wrmsr(MSR_X2APIC_ICR, 0x4500);		   /* INIT assert to ID 0 */
	/* Still here and still in long mode with our stack. */
}

/* Invalid control-register values: the hardware's #GP, inside the guest. */
static void cr_invalid(void)
{
	u64 cr4, cr0;
	int v;

	asm volatile("mov %%cr4, %0" : "=r"(cr4));
	asm volatile("mov %%cr0, %0" : "=r"(cr0));
	v = cr4_write_probe(cr4 | BIT(31)); /* reserved bit */
	check(v == VECTOR_GP, "CR4 with a reserved bit", v);
	v = cr4_write_probe(cr4 & ~BIT(5)); /* PAE off in long mode */
	check(v == VECTOR_GP, "CR4.PAE cleared in long mode", v);
	v = wrmsr_safe(0xc0000080, 0); /* EFER.LME off while paging */
	check(v == VECTOR_GP, "EFER.LME cleared while paging", v);
	(void)cr0;
}

static void access_outside(enum hostile_case c)
{
	volatile u8 *p8 = (volatile u8 *)(uintptr_t)OUTSIDE_GPA;

	gprintf("touching guest-physical 0x%llx: mhv must stop this VM\n",
		(unsigned long long)OUTSIDE_GPA);
	switch (c) {
	case CASE_READ8:
		(void)*p8;
		break;
	case CASE_READ16:
		(void)*(volatile u16 *)p8;
		break;
	case CASE_READ32:
		(void)*(volatile u32 *)p8;
		break;
	case CASE_READ64:
		(void)*(volatile u64 *)p8;
		break;
	case CASE_WRITE:
		*(volatile u64 *)p8 = 0x4141414141414141ull;
		break;
	case CASE_FETCH:
		((void (*)(void))(uintptr_t)OUTSIDE_GPA)();
		break;
	default:
		break;
	}
}

/* A PML4 entry naming a page table outside RAM: the walk itself must stop the VM. */
static void pte_outside(void)
{
	volatile u64 *pml4 = (volatile u64 *)(uintptr_t)GUEST_PML4;

	pml4[1] = OUTSIDE_GPA | 0x3; /* PDPT for 512 GiB .. 1 TiB, outside RAM */
	(void)*(volatile u64 *)(uintptr_t)(1ull << 39);
}

/* The IDT (or GDT) outside RAM: the next exception (segment load) reads it. */
static void table_outside(bool idt)
{
	struct {
		u16 limit;
		u64 base;
	} __attribute__((packed)) desc = { 0xfff, OUTSIDE_GPA };

	if (idt) {
		asm volatile("lidt %0; ud2" ::"m"(desc));
	} else {
		asm volatile("lgdt %0; mov $0x10, %%ax; mov %%ax, %%ds" ::"m"(desc) : "rax");
	}
}

/* The PMU MSRs (SDM Vol 4 Table 2-2; APM Vol 2 Appendix A) */
#define INTEL_PERFEVTSEL(i) (0x186u + (i))
#define INTEL_FIXED_CTR_CTRL 0x38du
#define INTEL_GLOBAL_CTRL 0x38fu
#define INTEL_PMC(i) (0xc1u + (i))    /* legacy: 32 bits, sign-extended */
#define INTEL_A_PMC(i) (0x4c1u + (i)) /* full width */
#define AMD_PERF_CTL(i) (0xc0010200u + 2 * (i))
#define AMD_PERF_CTR(i) (0xc0010201u + 2 * (i))
#define AMD_K7_PERF_CTL(i) (0xc0010000u + (i))
#define AMD_K7_PERF_CTR(i) (0xc0010004u + (i))
#define AMD_CTR_WIDTH 48
/* instructions retired at CPL 0 and 3, not enabled: nothing counts */
#define EVTSEL_QUIET 0x300c0ull

static void pmu_report(u32 msr, u64 bad, int v, u64 now)
{
	gprintf("PMU MSR 0x%x <- 0x%llx: vector %d, reads back 0x%llx\n", msr,
		(unsigned long long)bad, v, (unsigned long long)now);
}

/* A write the CPU refuses: #GP, and the register keeps its value. */
static void pmu_refused(u32 msr, u64 keep, u64 bad, const char *what)
{
	u64 now = ~0ull;
	int v;

	wrmsr(msr, keep);
	v = wrmsr_safe(msr, bad);
	rdmsr_safe(msr, &now);
	if (v != VECTOR_GP || now != keep)
		pmu_report(msr, bad, v, now);
	check(v == VECTOR_GP && now == keep, what, v);
}

/*
 * Bits that do not stick: written with keep, they are dropped without a
 * fault, or (may_gp: the CPU refuses or drops them) the write #GPs.
 */
static void pmu_not_kept_as(u32 msr, u64 keep, u64 bits, bool may_gp, const char *what)
{
	u64 now = ~0ull;
	int v;
	bool ok;

	wrmsr(msr, keep);
	v = wrmsr_safe(msr, keep | bits);
	rdmsr_safe(msr, &now);
	ok = (v < 0 || (may_gp && v == VECTOR_GP)) && now == keep;
	if (!ok)
		pmu_report(msr, keep | bits, v, now);
	check(ok, what, v);
}

static void pmu_not_kept(u32 msr, u64 keep, u64 bad_bits, const char *what)
{
	pmu_not_kept_as(msr, keep, bad_bits, true, what);
}

/* Bits the guest may write but that do not stick: no fault, and dropped. */
static void pmu_dropped(u32 msr, u64 keep, u64 bits, const char *what)
{
	pmu_not_kept_as(msr, keep, bits, false, what);
}

/*
 * A counter value wider than the counter: #GP, or no fault and only the
 * counter's width is kept (KVM masks as AMD's PPRs have the upper bits
 * read as zero); never a value beyond the width.
 */
static void pmu_ctr_width(u32 msr, unsigned width, const char *what)
{
	u64 now = ~0ull;
	int v;

	wrmsr(msr, 0);
	v = wrmsr_safe(msr, ~0ull);
	rdmsr_safe(msr, &now);
	if (now >> width)
		pmu_report(msr, ~0ull, v, now);
	check((v == VECTOR_GP || v < 0) && !(now >> width), what, v);
	wrmsr(msr, 0);
}

/*
 * Intel counters (SDM Vol 3 §21.2.6): the legacy IA32_PMCi take 32 bits,
 * bit 31 sign-extended to the width; the full-width IA32_A_PMCi take the
 * width, and a bit beyond it is #GP.
 */
static void pmu_counters_intel(unsigned nr_gp, unsigned width)
{
	u64 mask = width >= 64 ? ~0ull : BIT(width) - 1, now = 0;
	int v;

	v = wrmsr_safe(INTEL_PMC(0), 0x80000000ull);
	rdmsr_safe(INTEL_PMC(0), &now);
	if (now != ((~0ull << 31) & mask))
		pmu_report(INTEL_PMC(0), 0x80000000ull, v, now);
	check(v < 0 && now == ((~0ull << 31) & mask),
	      "IA32_PMC0 <- 0x80000000 was not sign-extended to the counter width", v);
	if (width < 64)
		pmu_refused(INTEL_A_PMC(nr_gp - 1), 0, BIT(width),
			    "the last IA32_A_PMC with a bit beyond the width was not #GP");
	pmu_ctr_width(INTEL_PMC(nr_gp - 1), width, "the last IA32_PMC kept bits beyond the width");
	wrmsr(INTEL_PMC(0), 0);
}

/*
 * Intel: reserved bits of the event selects, FIXED_CTR_CTRL and
 * GLOBAL_CTRL are #GP (SDM Vol 3 §21.2.1-21.2.2); AnyThread, which counts
 * the sibling hyperthread (§21.2.3), is dropped, not #GP (Linux writes it
 * on a version 3 or later PMU: issue 41), and CPUID.0AH:EDX[15] says it
 * is deprecated.
 */
static void pmu_reserved_intel(void)
{
	struct cpuid_regs a;
	unsigned version, nr_gp, nr_fixed;

	cpuid_count(0xa, 0, &a);
	version = a.eax & 0xff;
	nr_gp = (a.eax >> 8) & 0xff;
	nr_fixed = a.edx & 0x1f;
	check(nr_gp > 0, "the guest PMU has no counters", 0);
	if (!nr_gp)
		return;
	check(version < 3 || (a.edx & BIT(15)), "CPUID.0AH:EDX[15] (AnyThread deprecated) clear",
	      (int)a.edx);
	pmu_dropped(INTEL_PERFEVTSEL(0), EVTSEL_QUIET, BIT(21),
		    "PERFEVTSEL0 with AnyThread was #GP or kept it");
	/* not 32 or 33: IN_TX and IN_TXCP where the CPU has TSX */
	pmu_refused(INTEL_PERFEVTSEL(0), EVTSEL_QUIET, EVTSEL_QUIET | BIT(34),
		    "PERFEVTSEL0 with reserved bit 34 was not #GP");
	pmu_refused(INTEL_PERFEVTSEL(nr_gp - 1), EVTSEL_QUIET, EVTSEL_QUIET | BIT(63),
		    "the last PERFEVTSEL with reserved bit 63 was not #GP");
	/* PC (bit 19) is reserved, not writeable, since Sandy Bridge (§21.2.1.1) */
	pmu_not_kept(INTEL_PERFEVTSEL(0), EVTSEL_QUIET, BIT(19), "PERFEVTSEL0 kept PC");
	wrmsr(INTEL_PERFEVTSEL(0), 0);
	wrmsr(INTEL_PERFEVTSEL(nr_gp - 1), 0);
	if (nr_fixed) {
		pmu_dropped(INTEL_FIXED_CTR_CTRL, 0x1, BIT(2),
			    "FIXED_CTR_CTRL with AnyThread of counter 0 was #GP or kept it");
		pmu_dropped(INTEL_FIXED_CTR_CTRL, 0x1, BIT(4 * (nr_fixed - 1) + 2),
			    "FIXED_CTR_CTRL with AnyThread of the last counter was #GP or kept it");
		pmu_refused(INTEL_FIXED_CTR_CTRL, 0x1, 0x1 | BIT(4 * nr_fixed),
			    "FIXED_CTR_CTRL for a counter that does not exist was not #GP");
		pmu_refused(INTEL_FIXED_CTR_CTRL, 0x1, 0x1 | BIT(63),
			    "FIXED_CTR_CTRL with reserved bit 63 was not #GP");
		wrmsr(INTEL_FIXED_CTR_CTRL, 0);
	}
	if (nr_gp < 32)
		pmu_refused(INTEL_GLOBAL_CTRL, 1, 1 | BIT(nr_gp),
			    "GLOBAL_CTRL for a counter that does not exist was not #GP");
	pmu_refused(INTEL_GLOBAL_CTRL, 1, 1 | BIT(32 + nr_fixed),
		    "GLOBAL_CTRL for a fixed counter that does not exist was not #GP");
	pmu_refused(INTEL_GLOBAL_CTRL, 1, 1 | BIT(63), "GLOBAL_CTRL with bit 63 was not #GP");
	pmu_counters_intel(nr_gp, (a.eax >> 16) & 0xff);
}

/*
 * AMD: PerfEvtSeln bits 19, 21, 39:36 and 63:42 are reserved (APM Vol 2
 * §13.2.1); the legacy K7 selects are the same registers.  HostOnly and
 * GuestOnly (41:40) do not stick either: the guest has no SVM, and mhv
 * drops them as KVM does.
 */
static void pmu_reserved_amd(void)
{
	static const u64 reserved[] = { BIT(19), BIT(21), BIT(36), BIT(39), BIT(42), BIT(63) };
	struct cpuid_regs e1;
	unsigned i, last;

	cpuid_count(0x80000001, 0, &e1);
	last = e1.ecx & BIT(23) ? 5 : 3; /* PerfCtrExtCore: six counters (APM Vol 2 §13.2.2) */
	for (i = 0; i < ARRAY_SIZE(reserved); i++)
		pmu_not_kept(AMD_PERF_CTL(0), EVTSEL_QUIET, reserved[i],
			     "PERF_CTL0 kept a reserved bit");
	pmu_not_kept(AMD_PERF_CTL(last), EVTSEL_QUIET, BIT(21) | BIT(42),
		     "the last PERF_CTL kept reserved bits");
	pmu_not_kept(AMD_PERF_CTL(1), EVTSEL_QUIET, BIT(40), "PERF_CTL1 kept GuestOnly");
	pmu_not_kept(AMD_K7_PERF_CTL(2), EVTSEL_QUIET, BIT(41), "K7 PERF_CTL2 kept HostOnly");
	pmu_not_kept(AMD_K7_PERF_CTL(1), EVTSEL_QUIET, BIT(19) | BIT(63),
		     "K7 PERF_CTL1 kept reserved bits");
	wrmsr(AMD_PERF_CTL(0), 0);
	wrmsr(AMD_PERF_CTL(last), 0);
	wrmsr(AMD_K7_PERF_CTL(1), 0);
	/* PERF_CTR is 48 bits wide (APM Vol 2 §13.2.1) */
	pmu_ctr_width(AMD_K7_PERF_CTR(0), AMD_CTR_WIDTH, "K7 PERF_CTR0 kept bits beyond 48");
	pmu_ctr_width(AMD_K7_PERF_CTR(3), AMD_CTR_WIDTH, "K7 PERF_CTR3 kept bits beyond 48");
	pmu_ctr_width(AMD_PERF_CTR(last), AMD_CTR_WIDTH, "the last PERF_CTR kept bits beyond 48");
}

/* A guest PMU (the VM's configuration gives it one): its reserved bits never stick. */
static void pmu_reserved(void)
{
	struct cpuid_regs hv;

	cpuid_count(0x40000001, 0, &hv);
	check(hv.ecx != HV_PMU_OFF, "the VM has no guest PMU to try", (int)hv.ecx);
	if (hv.ecx == HV_PMU_OFF)
		return;
	if (guest_is_amd)
		pmu_reserved_amd();
	else
		pmu_reserved_intel();
}

/*
 * CPU state that VM entry does not switch: x87/SSE/AVX registers and
 * MXCSR, DR0-3, DR6 and CR2 (VMX keeps neither in the VMCS),
 * KERNEL_GS_BASE, the hardware IA32_XSS, XCR0, the supervisor state
 * components IA32_XSS offers (CET_U, CET_S).  One VM plants markers in
 * all of it; the next VM on the same CPU must find the reset values
 * (SDM Vol 3 §10.1 Table 10-1; x87/SSE init state: SDM Vol 1 §13.6).
 */
#define MARKER 0x00004d48564d4b00ull /* canonical: DR0-3 and KERNEL_GS_BASE take it */
#define FCW_MARKER 0x0f7f	     /* round toward zero */
#define FCW_INIT 0x037f
#define MXCSR_MARKER 0xff80 /* flush to zero, round toward zero; all masked */
#define MXCSR_INIT 0x1f80
#define DR6_MARKER (DR6_INIT | 0xf | BIT(13) | BIT(14)) /* B0-B3, BD, BS */
#define SIMD_BYTES (32 * 64 + 8 * 8)			/* zmm0-31, k0-7 */
#define FS_GS_SEL_INIT 0x10 /* the flat data selector mhv's guests start with */

/*
 * The segment and system-call MSRs: the VMCB (VMLOAD/VMSAVE) or the VMCS
 * holds some, nothing switches the others; all start at 0.  Markers fit
 * the architectural widths (SYSENTER_CS, SFMASK, TSC_AUX: 32 bits).
 * CSTAR and TSC_AUX may be missing: planted only where WRMSR takes them.
 */
static const struct {
	u32 index;
	const char *name;
	u64 marker;
} state_msrs[] = {
	{ MSR_KERNEL_GS_BASE, "KERNEL_GS_BASE", MARKER },
	{ MSR_FS_BASE, "FS_BASE", MARKER + 0x100 },
	{ MSR_GS_BASE, "GS_BASE", MARKER + 0x200 },
	{ MSR_STAR, "STAR", MARKER + 0x300 },
	{ MSR_LSTAR, "LSTAR", MARKER + 0x400 },
	{ MSR_CSTAR, "CSTAR", MARKER + 0x500 },
	{ MSR_SFMASK, "SFMASK", 0x4d484b00 },
	{ MSR_IA32_SYSENTER_CS, "SYSENTER_CS", 0x4b08 },
	{ MSR_IA32_SYSENTER_ESP, "SYSENTER_ESP", MARKER + 0x600 },
	{ MSR_IA32_SYSENTER_EIP, "SYSENTER_EIP", MARKER + 0x700 },
	{ MSR_TSC_AUX, "TSC_AUX", 0x4d48 },
};

static u16 read_fs_sel(void)
{
	u16 v;

	asm volatile("mov %%fs, %0" : "=r"(v));
	return v;
}

static u16 read_gs_sel(void)
{
	u16 v;

	asm volatile("mov %%gs, %0" : "=r"(v));
	return v;
}

struct fxsave_area {
	u16 fcw, fsw;
	u8 ftw, reserved0;
	u16 fop;
	u64 fip, fdp;
	u32 mxcsr, mxcsr_mask;
	u8 st[8][16];
	u8 xmm[16][16];
	u8 reserved1[96];
};

static u8 simd_buf[SIMD_BYTES] __aligned(64);
static u8 xsaves_buf[16384] __aligned(64);

/* The widest XCR0 of x87, SSE, AVX and AVX-512 this CPU offers. */
static u64 vector_xcr0(void)
{
	struct cpuid_regs r;
	u64 supported, xcr0 = XSTATE_LEGACY;

	if (!guest_has_xsave)
		return 0;
	cpuid_count(0xd, 0, &r);
	supported = (u64)r.edx << 32 | r.eax;
	if (supported & XSTATE_AVX)
		xcr0 |= XSTATE_AVX;
	if ((xcr0 & XSTATE_AVX) && (supported & XSTATE_AVX512) == XSTATE_AVX512)
		xcr0 |= XSTATE_AVX512;
	return xcr0;
}

/* IA32_XSS bits this CPU has, 0 when it has no XSAVES (SDM Vol 1 §13.3). */
static u64 xss_supported(void)
{
	struct cpuid_regs r;

	if (!guest_has_xsave)
		return 0;
	cpuid_count(0xd, 1, &r);
	return r.eax & XSTATE_LEAF1_XSAVES ? (u64)r.edx << 32 | r.ecx : 0;
}

/*
 * Supervisor state components, planted with XRSTORS and read back with
 * XSAVES: their registers are MSRs no VM entry or exit switches.  CET_U is
 * IA32_U_CET then IA32_PL3_SSP, CET_S is IA32_PL0_SSP..PL2_SSP, all zero in
 * the init state (SDM Vol 1 §13.5, CET state).  The markers are canonical,
 * the SSPs 4-byte aligned, U_CET has ENDBR_EN, NO_TRACK_EN and a legacy
 * bitmap base and no reserved bit (SDM Vol 4 Table 2-2, IA32_U_CET): values
 * XRSTORS loads without #GP (it checks them as WRMSR does).  The guest never
 * sets CR4.CET, so they stay inert.
 */
#define SUP_QWORDS 3
static const struct {
	u64 bit;
	unsigned qwords;
	const char *reg[SUP_QWORDS];
	u64 marker[SUP_QWORDS];
} sup_components[] = {
	{ XSTATE_CET_U, 2, { "U_CET", "PL3_SSP" }, { (MARKER & ~0xfffull) | 0x14, MARKER + 0x30 } },
	{ XSTATE_CET_S,
	  3,
	  { "PL0_SSP", "PL1_SSP", "PL2_SSP" },
	  { MARKER + 0x800, MARKER + 0x810, MARKER + 0x820 } },
};

static u8 sup_buf[4096] __aligned(64);

/* Where component n starts in a compacted area of xcomp_bv (SDM Vol 1 §13.4.3). */
static u32 compacted_offset(u64 xcomp_bv, unsigned n)
{
	struct cpuid_regs r;
	u32 off = XSAVE_EXT_OFFSET;
	unsigned i;

	for (i = 2; i < n; i++) {
		if (!(xcomp_bv & BIT(i)))
			continue;
		cpuid_count(0xd, i, &r);
		if (r.ecx & 2)
			off = ALIGN_UP(off, 64);
		off += r.eax;
	}
	cpuid_count(0xd, n, &r);
	return r.ecx & 2 ? ALIGN_UP(off, 64) : off;
}

/* The supervisor components of xss this test knows the layout of. */
static u64 sup_known(u64 xss)
{
	u64 m = 0;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(sup_components); i++)
		m |= sup_components[i].bit;
	return xss & m;
}

/* XRSTORS the markers into every known supervisor component CPUID offers. */
static u64 sup_plant(u64 xss)
{
	u64 mask = sup_known(xss), xcomp = BIT(63) | mask;
	unsigned i, q;
	u32 off;
	int vec;

	if (!mask)
		return 0;
	if ((vec = wrmsr_safe(MSR_IA32_XSS, mask)) >= 0) {
		gprintf("WRMSR IA32_XSS 0x%llx raised vector %d: nothing planted there\n",
			(unsigned long long)mask, vec);
		return 0;
	}
	__builtin_memset(sup_buf, 0, sizeof(sup_buf));
	*(u64 *)(sup_buf + XSAVE_LEGACY_SIZE) = mask;	   /* XSTATE_BV */
	*(u64 *)(sup_buf + XSAVE_LEGACY_SIZE + 8) = xcomp; /* XCOMP_BV, compacted */
	for (i = 0; i < ARRAY_SIZE(sup_components); i++) {
		if (!(mask & sup_components[i].bit))
			continue;
		off = compacted_offset(xcomp, __builtin_ctzll(sup_components[i].bit));
		for (q = 0; q < sup_components[i].qwords; q++)
			*(u64 *)(sup_buf + off + 8 * q) = sup_components[i].marker[q];
	}
	if ((vec = xrstors_safe(sup_buf, mask)) >= 0) {
		gprintf("XRSTORS of 0x%llx raised vector %d: nothing planted there\n",
			(unsigned long long)mask, vec);
		return 0;
	}
	return mask;
}

static void state_plant(void)
{
	static const u64 marker = MARKER;
	const u16 fcw = FCW_MARKER;
	const u32 mxcsr = MXCSR_MARKER;
	u64 xcr0 = vector_xcr0(), xss = xss_supported(), bit, sup;
	unsigned i;

	for (i = 0; i < SIMD_BYTES / 8; i++)
		((u64 *)simd_buf)[i] = MARKER;
	write_cr2(MARKER);
	write_dr0(MARKER);
	write_dr1(MARKER + 8);
	write_dr2(MARKER + 16);
	write_dr3(MARKER + 24);
	write_dr6(DR6_MARKER);
	/* null FS/GS selectors (allowed in 64-bit mode) before their bases:
	 * loading a selector loads the base too */
	asm volatile("mov %0, %%fs; mov %0, %%gs" ::"r"(0));
	for (i = 0; i < ARRAY_SIZE(state_msrs); i++)
		wrmsr_safe(state_msrs[i].index, state_msrs[i].marker);
	asm volatile("fninit; fldcw %0" ::"m"(fcw));
	for (i = 0; i < 8; i++)
		asm volatile("fildq %0" ::"m"(marker));
	asm volatile("ldmxcsr %0" ::"m"(mxcsr));
	simd_load_xmm(simd_buf);
	if (xcr0 && xsetbv_safe(0, xcr0) >= 0)
		check(false, "XSETBV of the vector components", 0);
	if (xcr0 & XSTATE_AVX)
		simd_load_ymm(simd_buf);
	if (xcr0 & XSTATE_AVX512)
		simd_load_zmm(simd_buf);
	sup = sup_plant(xss);
	/* one supervisor component the hypervisor lets the guest enable */
	for (bit = 1; xss && bit; bit <<= 1)
		if ((xss & bit) && wrmsr_safe(MSR_IA32_XSS, bit) < 0)
			break;
	gprintf("planted: CR2, DR0-3, DR6, FS/GS selectors, segment and syscall MSRs, x87, MXCSR, "
		"XMM%s%s, XCR0 0x%llx, "
		"IA32_XSS 0x%llx, supervisor components 0x%llx\n",
		xcr0 & XSTATE_AVX ? ", YMM" : "", xcr0 & XSTATE_AVX512 ? ", ZMM, k0-7" : "",
		(unsigned long long)xcr0, (unsigned long long)(xss ? bit : 0),
		(unsigned long long)sup);
}

static void expect_reset(const char *what, u64 got, u64 reset, bool planted)
{
	if (got == reset)
		return;
	failures++;
	gprintf("FAILED: %s is 0x%llx, not its reset value 0x%llx%s\n", what,
		(unsigned long long)got, (unsigned long long)reset,
		planted ? ": the previous VM's value" : "");
}

static void expect_zero_bytes(const char *what, const u8 *p, u32 n)
{
	u32 i;

	for (i = 0; i < n; i += 8)
		if (*(const u64 *)(p + i)) {
			expect_reset(what, *(const u64 *)(p + i), 0,
				     *(const u64 *)(p + i) == MARKER);
			return;
		}
}

/* XSAVES every known supervisor component CPUID offers: each in its init state. */
static u64 sup_check(u64 xss)
{
	u64 mask = sup_known(xss), xstate_bv, xcomp, v;
	unsigned i, q;
	u32 off;
	int vec;

	if (!mask)
		return 0;
	if ((vec = wrmsr_safe(MSR_IA32_XSS, mask)) >= 0) {
		check(false, "WRMSR IA32_XSS of a component CPUID offers", vec);
		return 0;
	}
	__builtin_memset(sup_buf, 0, sizeof(sup_buf));
	if ((vec = xsaves_safe(sup_buf, mask)) >= 0) {
		check(false, "XSAVES of the supervisor components", vec);
		return 0;
	}
	xstate_bv = *(u64 *)(sup_buf + XSAVE_LEGACY_SIZE);
	xcomp = *(u64 *)(sup_buf + XSAVE_LEGACY_SIZE + 8);
	for (i = 0; i < ARRAY_SIZE(sup_components); i++) {
		if (!(xstate_bv & mask & sup_components[i].bit))
			continue; /* XINUSE clear: in its init state */
		off = compacted_offset(xcomp, __builtin_ctzll(sup_components[i].bit));
		for (q = 0; q < sup_components[i].qwords; q++) {
			v = *(u64 *)(sup_buf + off + 8 * q);
			expect_reset(sup_components[i].reg[q], v, 0,
				     v == sup_components[i].marker[q]);
		}
	}
	wrmsr_safe(MSR_IA32_XSS, 0);
	return mask;
}

static void state_fresh(void)
{
	static const char *const dr_names[4] = { "DR0", "DR1", "DR2", "DR3" };
	u64 dr[4] = { read_dr0(), read_dr1(), read_dr2(), read_dr3() };
	u64 cr2 = read_cr2(), dr6 = read_dr6();
	u64 xcr0 = guest_has_xsave ? xgetbv(0) : XSTATE_X87, wide = vector_xcr0();
	u64 xss = xss_supported(), v, sup = 0;
	static struct fxsave_area fx __aligned(16);
	unsigned i;
	int vec;

	asm volatile("fxsave64 %0" : "=m"(fx));
	expect_reset("CR2", cr2, 0, cr2 == MARKER);
	for (i = 0; i < 4; i++)
		expect_reset(dr_names[i], dr[i], 0, dr[i] == MARKER + 8 * i);
	expect_reset("DR6", dr6, DR6_INIT, dr6 == DR6_MARKER);
	expect_reset("FS selector", read_fs_sel(), FS_GS_SEL_INIT, read_fs_sel() == 0);
	expect_reset("GS selector", read_gs_sel(), FS_GS_SEL_INIT, read_gs_sel() == 0);
	for (i = 0; i < ARRAY_SIZE(state_msrs); i++)
		if (rdmsr_safe(state_msrs[i].index, &v) < 0)
			expect_reset(state_msrs[i].name, v, 0, v == state_msrs[i].marker);
	expect_reset("XCR0", xcr0, XSTATE_X87, xcr0 != XSTATE_X87);
	expect_reset("x87 FCW", fx.fcw, FCW_INIT, fx.fcw == FCW_MARKER);
	expect_reset("x87 FSW", fx.fsw, 0, fx.fsw != 0);
	expect_reset("x87 tags (FXSAVE abridged FTW)", fx.ftw, 0, fx.ftw == 0xff);
	expect_reset("x87 FIP", fx.fip, 0, false);
	expect_reset("x87 FDP", fx.fdp, 0, false);
	expect_zero_bytes("an x87 data register", &fx.st[0][0], sizeof(fx.st));
	expect_reset("MXCSR", fx.mxcsr, MXCSR_INIT, fx.mxcsr == MXCSR_MARKER);
	expect_zero_bytes("an XMM register", &fx.xmm[0][0], sizeof(fx.xmm));
	if (wide && xsetbv_safe(0, wide) >= 0)
		check(false, "XSETBV of the vector components", 0);
	__builtin_memset(simd_buf, 0, sizeof(simd_buf));
	if (wide & XSTATE_AVX512) {
		simd_store_zmm(simd_buf);
		expect_zero_bytes("a ZMM or opmask register", simd_buf, SIMD_BYTES);
	} else if (wide & XSTATE_AVX) {
		simd_store_ymm(simd_buf);
		expect_zero_bytes("a YMM register", simd_buf, 16 * 32);
	}
	if (xss) {
		/* XSAVES writes XCOMP_BV = XCR0 | the hardware IA32_XSS, masked
		 * (SDM Vol 1 §13.11): what the CPU really holds, unlike RDMSR,
		 * which the hypervisor answers. */
		vec = xsaves_safe(xsaves_buf, ~0ull);
		v = *(u64 *)(xsaves_buf + 520) & xss;
		if (vec < 0)
			expect_reset("IA32_XSS as XSAVES sees it", v, 0, v != 0);
		else
			gprintf("XSAVES raised vector %d: the hardware IA32_XSS is out of reach\n",
				vec);
		if (rdmsr_safe(MSR_IA32_XSS, &v) < 0)
			expect_reset("IA32_XSS", v, 0, v != 0);
		sup = sup_check(xss);
	}
	gprintf("checked: CR2, DR0-3, DR6, FS/GS selectors, segment and syscall MSRs, XCR0, x87, "
		"MXCSR, XMM%s%s%s, supervisor components 0x%llx\n",
		wide & XSTATE_AVX ? ", YMM" : "", wide & XSTATE_AVX512 ? ", ZMM, k0-7" : "",
		xss ? ", IA32_XSS" : "; not IA32_XSS: CPUID offers no supervisor component",
		(unsigned long long)sup);
}

/*
 * Both vCPUs print at once, so that the host's line buffer for the VM is
 * appended from two CPUs across its 160-byte flush.  Each round vCPU 0
 * fills the line to 20 bytes below the flush, then both write a burst of
 * 40 at the same time: vCPU 0 through HC_PRINT (a tight host loop),
 * vCPU 1 through HC_PRINT or port 0x3F8 (an exit per byte) in turn.
 * Few rounds: every byte is printed, and printing is slow under TCG.
 * mhv judges it: every byte printed once, its .bss tables unchanged
 * (hv/host/selfcheck.c).
 */
#define STORM_ROUNDS 64
#define STORM_FILL 140
#define STORM_BURST 40
#define STORM_SPINS 200000000ull
#define STORM_LATCH 0x5aa55aa5u

static char storm_text[STORM_FILL];
static volatile u32 storm_round, storm_taken;
static volatile bool storm_over;

static void storm_burst(bool port)
{
	unsigned i;

	if (port) {
		for (i = 0; i < STORM_BURST; i++)
			outb(GUEST_SERIAL_PORT, (u8)storm_text[i]);
	} else {
		hypercall(HC_PRINT, (u64)(uintptr_t)storm_text, STORM_BURST);
	}
}

/* vCPU 1: a burst each time vCPU 0 starts a round, until it says stop. */
static u64 storm_vcpu1(void)
{
	u32 seen = 0;

	for (;;) {
		while (storm_round == seen && !storm_over)
			asm volatile("pause" ::: "memory");
		if (storm_over)
			break;
		seen = storm_round;
		storm_burst(seen & 1);
		storm_taken = seen;
	}
	for (;;)
		asm volatile("pause"); /* vCPU 0's exit ends the VM */
}

static void console_storm(void)
{
	u64 spins;
	u32 r;

	for (r = 0; r < STORM_FILL; r++)
		storm_text[r] = (char)('a' + r % 26);
	outl(GUEST_TEST_PORT, STORM_LATCH);
	for (r = 1; r <= STORM_ROUNDS; r++) {
		outb(GUEST_SERIAL_PORT, '\n');
		hypercall(HC_PRINT, (u64)(uintptr_t)storm_text, STORM_FILL);
		storm_round = r;
		storm_burst(false);
		for (spins = 0; storm_taken != r && spins < STORM_SPINS; spins++)
			asm volatile("pause" ::: "memory");
		if (storm_taken != r) {
			check(false, "vCPU 1 did not take its turn in round", (int)r);
			break;
		}
	}
	storm_over = true;
	outb(GUEST_SERIAL_PORT, '\n');
	/* the latch lies right after the line buffer in struct vm */
	check(inl(GUEST_TEST_PORT) == STORM_LATCH, "the test port's latch changed", 0);
}

/*
 * Result names and reasons that would forge mhv's own lines if printed
 * as they are: a PASS, a summary, a measurement line for mhv-report, a
 * carriage return and an escape sequence that wipes the line.  The same
 * text through HC_PRINT and port 0x3F8.  mhv judges that none of it
 * reached its results unfiltered; tests/report that such lines in a log
 * are not read as measurements.
 */
#define FORGED_JSON \
	"MHV-JSON {\"suite\":\"vmexit\",\"test\":\"null\",\"config\":\"default\",\"median\":1}"

static void forged_results(void)
{
	static const char text[] =
	    "\nmhv: PASS forged\r\x1b[2K\nmhv: summary: 99 passed, 0 failed, "
	    "0 skipped\n" FORGED_JSON "\n";
	static struct hc_test_result t;
	static struct hc_bench_result b;
	unsigned i;
	u64 v;

	__builtin_memcpy(t.name, "f\nmhv: PASS forged\r\x1b[2K",
			 sizeof("f\nmhv: PASS forged\r\x1b[2K"));
	fmt_snprintf(t.reason, sizeof(t.reason), "\n%s", FORGED_JSON);
	t.status = TEST_PASS;
	v = hypercall(HC_TEST_RESULT, (u64)(uintptr_t)&t, 0);
	check(v == 0, "a test result with control characters was refused", (int)v);
	/* a skipped row: the exit-path gate reads only measured ones */
	__builtin_memcpy(b.name,
			 "q\"\\\n"
			 "MHV-JSON {}",
			 sizeof("q\"\\\n"
				"MHV-JSON {}"));
	fmt_snprintf(b.skip_reason, sizeof(b.skip_reason), "\t\"}\n%s", FORGED_JSON);
	v = hypercall(HC_BENCH_RESULT, (u64)(uintptr_t)&b, 0);
	check(v == 0, "a benchmark row with control characters was refused", (int)v);
	/* one more than this variant declares (GUEST_BENCH_ROWS): it would
	 * take a row the plan counted for another VM */
	v = hypercall(HC_BENCH_RESULT, (u64)(uintptr_t)&b, 0);
	check(v == HC_ERROR, "a benchmark row past the declared count was taken", (int)v);
	hypercall(HC_PRINT, (u64)(uintptr_t)text, sizeof(text) - 1);
	for (i = 0; i < sizeof(text) - 1; i++)
		outb(GUEST_SERIAL_PORT, (u8)text[i]);
}

/*
 * Spin without exits, past the host timer's reach: only a time limit that
 * is re-armed each time the timer fires early ends it.  Interrupts on
 * (the guest has no interrupt source): Bochs' SVM takes the host's INTR
 * intercept only then.
 */
static void long_spin(void)
{
	asm volatile("sti");
	for (;;)
		asm volatile("" ::: "memory");
}

/*
 * A VM whose CPU never comes back: vCPU 1 says it is in the guest, then
 * spins with interrupts off (mhv makes its CPU deaf, see hv/lab/suites.c);
 * vCPU 0 waits for that and exits, leaving vCPU 1 in guest mode for good.
 */
#define LOST_CPU_SPIN_BOUND 100000000ull
static volatile bool lost_vcpu_in_guest;

static void lost_vcpu(void)
{
	asm volatile("cli" ::: "memory");
	lost_vcpu_in_guest = true;
	for (;;)
		asm volatile("" ::: "memory");
}

static void lost_cpu(void)
{
	u64 spins;

	for (spins = 0; !lost_vcpu_in_guest && spins < LOST_CPU_SPIN_BOUND; spins++)
		asm volatile("pause" ::: "memory");
	check(lost_vcpu_in_guest, "vCPU 1 did not start", 0);
}

/* The cases that must end the VM before they can report. */
static bool must_stop(u64 variant)
{
	return variant >= CASE_READ8 && variant <= CASE_SPIN;
}

u64 guest_main(u64 variant)
{
	u64 vcpu = variant >> GUEST_VCPU_SHIFT;

	variant &= (1u << GUEST_VCPU_SHIFT) - 1;
	/* the lost CPU's vCPU never returns, and needs nothing of the runtime */
	if (vcpu && variant == CASE_LOST_CPU)
		lost_vcpu();
	guest_rt_init();
	if (vcpu)
		return variant == CASE_CONSOLE_STORM ? storm_vcpu1() : 1;
	switch (variant) {
	case CASE_VIRT_INSN:
		virt_insn();
		break;
	case CASE_MSR_TAKEOVER:
		msr_takeover();
		break;
	case CASE_PORT_IO:
		port_io();
		break;
	case CASE_HYPERCALL_ARGS:
		hypercall_args();
		break;
	case CASE_IPI_STORM:
		ipi_storm();
		break;
	case CASE_INIT_SIPI_SELF:
		init_sipi_self();
		break;
	case CASE_CR_INVALID:
		cr_invalid();
		break;
	case CASE_PTE_OUTSIDE:
		pte_outside();
		break;
	case CASE_IDT_OUTSIDE:
		table_outside(true);
		break;
	case CASE_GDT_OUTSIDE:
		table_outside(false);
		break;
	case CASE_TRIPLE_FAULT:
		guest_idt_clear();
		asm volatile("ud2");
		break;
	case CASE_SPIN:
		asm volatile("cli");
		for (;;)
			asm volatile("pause" ::: "memory");
	case CASE_PMU_RESERVED:
		pmu_reserved();
		break;
	case CASE_STATE_PLANT:
		state_plant();
		break;
	case CASE_STATE_FRESH:
		state_fresh();
		break;
	case CASE_CONSOLE_STORM:
		console_storm();
		break;
	case CASE_FORGED_RESULTS:
		forged_results();
		break;
	case CASE_LONG_SPIN:
		long_spin();
		break;
	case CASE_LOST_CPU:
		lost_cpu();
		break;
	case CASE_AFTER_LOST_CPU:
		/* judged by mhv: its memory must lie apart from the lost VM's */
		break;
	default:
		access_outside(variant);
		break;
	}
	if (must_stop(variant)) {
		gprintf("still running after case %llu: mhv did not stop this VM\n",
			(unsigned long long)variant);
		return 1;
	}
	/* Judged by mhv from the exit code: 0 when every attempt got its answer. */
	return failures;
}
