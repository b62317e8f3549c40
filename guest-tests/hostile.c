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
	CASE_LOST_CPU,
	CASE_AFTER_LOST_CPU,
};

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

/* MSRs that would hand the host over: each #GP, and reading back shows nothing moved. */
static void msr_takeover(void)
{
	static const struct {
		u32 msr;
		u64 value;
	} writes[] = {
		{ 0xc0000080, 0xd01 | BIT(12) },       /* EFER with SVME: no nested SVM */
		{ 0xc0000080, 0xd01 | BIT(20) },       /* EFER with a reserved bit */
		{ 0xc0010117, 0x1000 },		       /* VM_HSAVE_PA */
		{ 0xc0010114, 0x10 },		       /* VM_CR: SVMDIS */
		{ 0x3a, 0x5 },			       /* IA32_FEATURE_CONTROL */
		{ 0x79, 0x200000 },		       /* IA32_BIOS_UPDT_TRIG: microcode load */
		{ 0xc0010020, 0x200000 },	       /* AMD PATCH_LOADER */
		{ 0x9e, 0x30000 },		       /* IA32_SMBASE */
		{ 0x9b, 0x1 },			       /* IA32_SMM_MONITOR_CTL */
		{ 0xc0010111, 0x30000 },	       /* AMD SMM_BASE */
		{ 0xc0010113, 0x3 },		       /* AMD SMM_MASK */
		{ 0x2ff, 0xc00 },		       /* IA32_MTRR_DEF_TYPE */
		{ 0x200, 0x6 },			       /* IA32_MTRR_PHYSBASE0 */
		{ 0x277, 0x0202020202020202ull },      /* PAT with reserved type 2 */
		{ 0x1b, 0x1000 | BIT(11) | BIT(10) },  /* APIC_BASE moved into guest RAM */
		{ 0xc0000101, 0x8000000000000000ull }, /* GS_BASE non-canonical */
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(writes); i++) {
		int v = wrmsr_safe(writes[i].msr, writes[i].value);

		if (v != VECTOR_GP)
			gprintf("MSR 0x%x write: vector %d\n", writes[i].msr, v);
		check(v == VECTOR_GP, "a host-takeover MSR write was not #GP", v);
	}
}

/* Ports that would reset or reconfigure the real machine: emulated or ignored. */
static void port_io(void)
{
	outb(0x64, 0xfe);  /* keyboard controller: pulse reset */
	outb(0xcf9, 0x06); /* reset control: hard reset */
	outb(0xcf9, 0x0e); /* full reset */
	outl(0xcf8, 0x80000000u);
	outl(0xcfc, 0xffffffffu); /* a PCI config write to device 0:0.0 */
	outb(0x70, 0x0f);
	outb(0x71, 0x0a); /* CMOS shutdown status: "jump via 40:67" */
	outb(0x92, 0x01); /* port 92 fast reset */
	check(inl(0xcfc) == 0xffffffffu, "PCI config read was not all ones", 0);
	/* Still here: the machine did not reset. */
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

u64 guest_main(u64 variant)
{
	if (variant >> GUEST_VCPU_SHIFT) {
		if ((variant & (BIT(GUEST_VCPU_SHIFT) - 1)) == CASE_LOST_CPU)
			lost_vcpu();
		for (;;)
			asm volatile("hlt");
	}
	guest_rt_init();
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
	if (variant >= CASE_READ8 && variant <= CASE_SPIN) {
		gprintf("still running after case %llu: mhv did not stop this VM\n",
			(unsigned long long)variant);
		return 1;
	}
	/* Judged by mhv from the exit code: 0 when every attempt got its answer. */
	return failures;
}
