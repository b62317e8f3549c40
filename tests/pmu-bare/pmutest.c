/* SPDX-License-Identifier: MIT */
/*
 * The bare test of the patched Bochs' PMU models (tests/emu/bochs/), run
 * with no hypervisor: a UEFI application that checks the model against the
 * APM (zen5_pmu; skylake_pmu in pmutest_intel.c against the SDM) before mhv
 * is tested against the model.  It reports on port 0xE9 and
 * ends the emulator through port 0x8900.  Every expected count is derived in
 * pmuasm.asm from the instructions the sequence retires.
 */
#include <efi.h>

#include "pmutest.h"

u64 pmu_loop(u64 n, u64 global_ctl);
void pmu_loop_sti(u64 n, u64 global_ctl);
u64 svm_run(u64 vmcb_pa, u64 global_ctl, u64 n);
void guest_code(void);

/* APM Vol 2 13.2 and Linux msr-index.h */
#define MSR_K7_PERF_CTL0 0xc0010000u
#define MSR_K7_PERF_CTR0 0xc0010004u
#define MSR_PERF_CTL(n) (0xc0010200u + 2 * (n))
#define MSR_PERF_CTR(n) (0xc0010201u + 2 * (n))
#define MSR_GLOBAL_STATUS 0xc0000300u
#define MSR_GLOBAL_CTL 0xc0000301u
#define MSR_GLOBAL_STATUS_CLR 0xc0000302u
#define MSR_GLOBAL_STATUS_SET 0xc0000303u
#define MSR_EFER 0xc0000080u
#define MSR_VM_HSAVE_PA 0xc0010117u
#define MSR_APIC_BASE 0x1bu

#define CTL_USR (1ull << 16)
#define CTL_OS (1ull << 17)
#define CTL_INT (1ull << 20)
#define CTL_EN (1ull << 22)
#define CTL_GUESTONLY (1ull << 40)
#define CTL_HOSTONLY (1ull << 41)
#define EV_CYCLES 0x76ull
#define EV_INSNS 0xc0ull
#define EV_BRANCHES 0xc2ull
#define ALL_COUNTERS 0x3full
#define CTR_MASK ((1ull << 48) - 1)

/* ---- port output and the end of the run ---- */

__attribute__((no_caller_saved_registers)) void puts_e9(const char *s)
{
	while (*s)
		outb(0xe9, (u8)*s++);
}

__attribute__((no_caller_saved_registers)) void put_hex(u64 v)
{
	char buf[19] = "0x";
	int i;

	for (i = 0; i < 16; i++)
		buf[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
	buf[18] = 0;
	puts_e9(buf);
}

void put_dec(u64 v)
{
	char buf[21];
	int i = 20;

	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	puts_e9(buf + i);
}

__attribute__((noreturn, no_caller_saved_registers)) static void shutdown(void)
{
	const char *s = "Shutdown";

	while (*s)
		outb(0x8900, (u8)*s++);
	for (;;)
		__asm__ volatile("cli; hlt");
}

static unsigned checks, failures;

/* the handler of an interrupt a counter raised retires instructions too */
void check_range(const char *what, u64 got, u64 lo, u64 hi)
{
	checks++;
	if (got >= lo && got <= hi) {
		puts_e9("pmutest: ok   ");
		puts_e9(what);
		puts_e9("\n");
		return;
	}
	failures++;
	puts_e9("pmutest: FAIL ");
	puts_e9(what);
	puts_e9(": got ");
	put_dec(got);
	puts_e9(" (");
	put_hex(got);
	puts_e9("), want ");
	put_dec(lo);
	if (hi != lo) {
		puts_e9("..");
		put_dec(hi);
	}
	puts_e9("\n");
}

void check(const char *what, u64 got, u64 want)
{
	check_range(what, got, want, want);
}

volatile u32 pmi_count, nmi_count;

/* ---- interrupts: our own IDT, the PIC masked, the firmware never resumed ---- */

struct frame {
	u64 rip, cs, rflags, rsp, ss;
};

struct idt_gate {
	u16 off0, sel;
	u8 ist, type;
	u16 off1;
	u32 off2, zero;
} __attribute__((packed));

static struct idt_gate idt[256] __attribute__((aligned(16)));
volatile u32 *lapic;

__attribute__((interrupt)) static void unexpected_handler(struct frame *f)
{
	puts_e9("pmutest: FAIL unexpected interrupt or exception at ");
	put_hex(f->rip);
	puts_e9("\npmutest: FAIL\n");
	shutdown();
}

void gp_handler(void); /* pmuasm.asm */

__attribute__((interrupt)) static void pmi_handler(struct frame *f)
{
	pmi_count++;
	lapic[0xb0 / 4] = 0;
}

__attribute__((interrupt)) static void nmi_handler(struct frame *f)
{
	nmi_count++;
}

static void set_gate(unsigned v, void *fn, u16 cs)
{
	u64 a = (u64)fn;

	idt[v] = (struct idt_gate){ (u16)a, cs, 0, 0x8e, (u16)(a >> 16), (u32)(a >> 32), 0 };
}

static void setup_idt(void)
{
	struct {
		u16 limit;
		u64 base;
	} __attribute__((packed)) idtr = { sizeof(idt) - 1, (u64)idt };
	u16 cs;
	unsigned v;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	for (v = 0; v < 256; v++)
		set_gate(v, (void *)unexpected_handler, cs);
	set_gate(2, (void *)nmi_handler, cs);
	set_gate(13, (void *)gp_handler, cs);
	set_gate(PMI_VECTOR, (void *)pmi_handler, cs);
	__asm__ volatile("lidt %0" : : "m"(idtr));
	/* the 8259s stay silent: the firmware's timer must not reach our IDT */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

/* ---- the checks ---- */

static void pmu_clear(void)
{
	unsigned n;

	wrmsr(MSR_GLOBAL_CTL, 0);
	for (n = 0; n < 6; n++) {
		wrmsr(MSR_PERF_CTL(n), 0);
		wrmsr(MSR_PERF_CTR(n), 0);
	}
	wrmsr(MSR_GLOBAL_STATUS_CLR, ALL_COUNTERS);
}

static void test_cpuid(void)
{
	u32 a, b, c, d;

	cpuid(0x80000000, &a, &b, &c, &d);
	check("cpuid: extended leaves reach 0x80000022", a >= 0x80000022, 1);
	cpuid(0x80000001, &a, &b, &c, &d);
	check("cpuid: PerfCtrExtCore (8000_0001 ECX[23])", (c >> 23) & 1, 1);
	cpuid(0x80000022, &a, &b, &c, &d);
	check("cpuid: PerfMonV2 (8000_0022 EAX[0])", a & 1, 1);
	check("cpuid: NumPerfCtrCore (8000_0022 EBX[3:0])", b & 15, 6);
	cpuid(0x8000000a, &a, &b, &c, &d);
	check("cpuid: PerfCtrVirt (8000_000A EDX[8])", (d >> 8) & 1, 1);
	check("cpuid: VNMI (8000_000A EDX[25])", (d >> 25) & 1, 1);
}

static void test_msrs(void)
{
	u32 gp;

	check("reset: PerfCntrGlobalCtl has every counter enabled", rdmsr(MSR_GLOBAL_CTL),
	      ALL_COUNTERS);
	pmu_clear();
	wrmsr(MSR_PERF_CTR(2), 0xff0123456789ull);
	check("PERF_CTR2 keeps 48 bits", rdmsr(MSR_PERF_CTR(2)), 0xff0123456789ull);
	wrmsr(MSR_PERF_CTR(3), ~0ull);
	check("PERF_CTR3 drops bits 63:48", rdmsr(MSR_PERF_CTR(3)), CTR_MASK);
	wrmsr(MSR_K7_PERF_CTR0 + 1, 1234);
	check("K7 PERF_CTR1 aliases PERF_CTR1", rdmsr(MSR_PERF_CTR(1)), 1234);
	wrmsr(MSR_PERF_CTL(3), EV_INSNS | CTL_OS);
	check("K7 PERF_CTL3 aliases PERF_CTL3", rdmsr(MSR_K7_PERF_CTL0 + 3), EV_INSNS | CTL_OS);
	check("RDPMC 2 reads PERF_CTR2", rdpmc(2), 0xff0123456789ull);
	gp = gp_count;
	rdpmc(6);
	check("RDPMC 6 is #GP", gp_count - gp, 1);
	gp = gp_count;
	rdpmc(64);
	check("RDPMC 64 is #GP", gp_count - gp, 1);
	gp = gp_count;
	wrmsr(MSR_PERF_CTL(0), EV_INSNS | (1ull << 21));
	check("PERF_CTL reserved bit 21 is #GP", gp_count - gp, 1);
	gp = gp_count;
	wrmsr(MSR_GLOBAL_CTL, 1ull << 6);
	check("PerfCntrGlobalCtl bit 6 (no counter 6) is #GP", gp_count - gp, 1);
	gp = gp_count;
	wrmsr(MSR_GLOBAL_STATUS, 1);
	check("PerfCntrGlobalStatus is read-only (#GP)", gp_count - gp, 1);
	wrmsr(MSR_GLOBAL_STATUS_SET, 0x21);
	check("StatusSet sets status bits", rdmsr(MSR_GLOBAL_STATUS), 0x21);
	wrmsr(MSR_GLOBAL_STATUS_CLR, 0x01);
	check("StatusClr clears status bits", rdmsr(MSR_GLOBAL_STATUS), 0x20);
	/* bits of no status flag are ignored, no #GP, as on hardware: Linux's
	 * amd_pmu_cpu_reset writes LbrFreeze (bit 58) with the counter bits
	 * (commit 23d2626b841c; issue 28) */
	gp = gp_count;
	wrmsr(MSR_GLOBAL_STATUS_SET, (1ull << 58) | 0x02);
	check("StatusSet ignores bit 58 (no #GP)", gp_count - gp, 0);
	check("StatusSet sets only counter bits", rdmsr(MSR_GLOBAL_STATUS), 0x22);
	wrmsr(MSR_GLOBAL_STATUS_CLR, 0x040000000000003full);
	check("StatusClr takes Linux's 0x040000000000003f (no #GP)", gp_count - gp, 0);
	check("StatusClr clears the counter bits", rdmsr(MSR_GLOBAL_STATUS), 0);
	pmu_clear();
}

static void test_counting(void)
{
	pmu_clear();
	wrmsr(MSR_PERF_CTL(0), EV_INSNS | CTL_OS | CTL_USR | CTL_EN);
	wrmsr(MSR_PERF_CTL(1), EV_BRANCHES | CTL_OS | CTL_EN);
	wrmsr(MSR_PERF_CTL(2), EV_CYCLES | CTL_OS | CTL_EN);
	wrmsr(MSR_PERF_CTL(3), EV_INSNS | CTL_USR | CTL_EN); /* CPL 0: nothing */
	wrmsr(MSR_PERF_CTL(4), EV_INSNS | CTL_OS);	     /* EN clear: nothing */
	wrmsr(MSR_PERF_CTL(5), EV_INSNS | CTL_OS | CTL_EN);  /* not in GlobalCtl */
	pmu_loop(N, 0x0f);
	check("retired instructions: loop of N counts 2N+5", rdmsr(MSR_PERF_CTR(0)), 2 * N + 5);
	check("retired branches: loop of N counts N", rdmsr(MSR_PERF_CTR(1)), N);
	check("cycles: one per retired instruction", rdmsr(MSR_PERF_CTR(2)), 2 * N + 5);
	check("USR only at CPL 0 counts nothing", rdmsr(MSR_PERF_CTR(3)), 0);
	check("EN clear counts nothing", rdmsr(MSR_PERF_CTR(4)), 0);
	check("GlobalCtl bit clear counts nothing", rdmsr(MSR_PERF_CTR(5)), 0);
	check("RDPMC 0 reads the count", rdpmc(0), 2 * N + 5);
	/* counting resumes from the written value: the K7 alias controls counter 0 too */
	wrmsr(MSR_PERF_CTR(0), 100);
	wrmsr(MSR_PERF_CTL(1), 0);
	wrmsr(MSR_K7_PERF_CTL0 + 1, EV_INSNS | CTL_OS | CTL_EN);
	wrmsr(MSR_PERF_CTR(1), 0);
	pmu_loop(N, 0x03);
	check("a written counter counts on from its value", rdmsr(MSR_PERF_CTR(0)),
	      100 + 2 * N + 5);
	check("K7 PERF_CTL1 programs counter 1", rdmsr(MSR_PERF_CTR(1)), 2 * N + 5);
	check("no overflow: GlobalStatus stays 0", rdmsr(MSR_GLOBAL_STATUS), 0);
	pmu_clear();
}

static void test_overflow(void)
{
	u64 lvtpc_fixed = PMI_VECTOR, lvtpc_nmi = 4u << 8;
	u64 left = 100;

	/* fixed delivery through LVTPC */
	pmu_clear();
	lapic[0x340 / 4] = (u32)lvtpc_fixed;
	wrmsr(MSR_PERF_CTR(0), (1ull << 48) - left);
	wrmsr(MSR_PERF_CTL(0), EV_INSNS | CTL_OS | CTL_EN | CTL_INT);
	wrmsr(MSR_PERF_CTR(1), (1ull << 48) - left);
	wrmsr(MSR_PERF_CTL(1), EV_INSNS | CTL_OS | CTL_EN); /* INT clear: status only */
	pmi_count = 0;
	pmu_loop_sti(N, 0x03);
	check("overflow: one PMI through LVTPC (fixed)", pmi_count, 1);
	check_range("overflow: counter wrapped past 2^48 (plus the handler)",
		    rdmsr(MSR_PERF_CTR(1)), 2 * N + 5 - left, 2 * N + 5 - left + HANDLER_MAX);
	check("overflow: GlobalStatus bits 0 and 1", rdmsr(MSR_GLOBAL_STATUS), 0x03);
	check("overflow: AMD leaves LVTPC unmasked after delivery", lapic[0x340 / 4] & 0x10000, 0);
	wrmsr(MSR_GLOBAL_STATUS_CLR, 0x03);
	check("overflow: StatusClr clears it", rdmsr(MSR_GLOBAL_STATUS), 0);

	/* masked LVTPC: status, no interrupt */
	pmu_clear();
	lapic[0x340 / 4] = (u32)(lvtpc_fixed | 0x10000);
	wrmsr(MSR_PERF_CTR(0), (1ull << 48) - left);
	wrmsr(MSR_PERF_CTL(0), EV_INSNS | CTL_OS | CTL_EN | CTL_INT);
	pmi_count = 0;
	pmu_loop_sti(N, 0x01);
	check("overflow, LVTPC masked: no PMI", pmi_count, 0);
	check("overflow, LVTPC masked: GlobalStatus bit 0", rdmsr(MSR_GLOBAL_STATUS), 0x01);

	/* NMI delivery through LVTPC (how Linux programs it) */
	pmu_clear();
	lapic[0x340 / 4] = (u32)lvtpc_nmi;
	wrmsr(MSR_PERF_CTR(2), (1ull << 48) - left);
	wrmsr(MSR_PERF_CTL(2), EV_BRANCHES | CTL_OS | CTL_EN | CTL_INT);
	nmi_count = 0;
	pmu_loop(N, 0x04);
	check("overflow: one NMI through LVTPC (NMI delivery)", nmi_count, 1);
	check("overflow: branches counter wrapped (plus the handler's IRET)",
	      rdmsr(MSR_PERF_CTR(2)), N - left + 1);
	lapic[0x340 / 4] = 0x10000;
	pmu_clear();
}

/* ---- SVM ---- */

static u8 vmcb[4096] __attribute__((aligned(4096)));
static u8 hsave[4096] __attribute__((aligned(4096)));
static u8 guest_stack[4096] __attribute__((aligned(16)));

#define VMCB64(off) (*(volatile u64 *)(vmcb + (off)))
#define VMCB32(off) (*(volatile u32 *)(vmcb + (off)))
#define VMCB16(off) (*(volatile u16 *)(vmcb + (off)))
#define VMCB8(off) (*(volatile u8 *)(vmcb + (off)))

static void vmcb_segment(unsigned off, u16 sel, const u64 *gdt)
{
	u64 d = sel ? gdt[sel >> 3] : 0;

	VMCB16(off) = sel;
	/* VMCB attribute: descriptor bits 47:40 and 55:52 (APM Vol 2 15.5.1) */
	VMCB16(off + 2) = sel ? (u16)(((d >> 40) & 0xff) | (((d >> 52) & 0xf) << 8)) : 0;
	VMCB32(off + 4) = 0xffffffff;
	VMCB64(off + 8) = 0;
}

/* A guest that shares the host's address space, GDT and IDT (APM Vol 2 15.5) */
static void vmcb_init(void)
{
	struct {
		u16 limit;
		u64 base;
	} __attribute__((packed)) gdtr, idtr;
	u16 cs, ss, ds, es;
	u64 cr0, cr3, cr4;
	unsigned i;

	for (i = 0; i < sizeof(vmcb); i++)
		vmcb[i] = 0;
	__asm__ volatile("sgdt %0; sidt %1" : "=m"(gdtr), "=m"(idtr));
	__asm__ volatile("mov %%cs, %0; mov %%ss, %1; mov %%ds, %2; mov %%es, %3"
			 : "=r"(cs), "=r"(ss), "=r"(ds), "=r"(es));
	__asm__ volatile("mov %%cr0, %0; mov %%cr3, %1; mov %%cr4, %2"
			 : "=r"(cr0), "=r"(cr3), "=r"(cr4));
	VMCB32(0x10) = 3; /* intercept VMRUN and VMMCALL */
	VMCB32(0x58) = 1; /* ASID */
	vmcb_segment(0x400, es, (const u64 *)gdtr.base);
	vmcb_segment(0x410, cs, (const u64 *)gdtr.base);
	vmcb_segment(0x420, ss, (const u64 *)gdtr.base);
	vmcb_segment(0x430, ds, (const u64 *)gdtr.base);
	VMCB32(0x464) = gdtr.limit;
	VMCB64(0x468) = gdtr.base;
	VMCB32(0x484) = idtr.limit;
	VMCB64(0x488) = idtr.base;
	VMCB64(0x4d0) = rdmsr(MSR_EFER);
	VMCB64(0x548) = cr4;
	VMCB64(0x550) = cr3;
	VMCB64(0x558) = cr0;
	VMCB64(0x560) = 0x400;
	VMCB64(0x568) = 0xffff0ff0;
	VMCB64(0x570) = 2; /* RFLAGS: IF clear */
	VMCB64(0x578) = (u64)guest_code;
	VMCB64(0x5d8) = (u64)(guest_stack + sizeof(guest_stack));
}

static u64 guest_run(u64 host_global_ctl, u64 n)
{
	VMCB64(0x578) = (u64)guest_code;
	VMCB64(0x70) = 0;
	svm_run((u64)vmcb, host_global_ctl, n);
	return VMCB64(0x70);
}

static void test_host_guest(void)
{
	u64 exitcode;

	pmu_clear();
	wrmsr(MSR_PERF_CTL(0), EV_INSNS | CTL_OS | CTL_EN | CTL_GUESTONLY);
	wrmsr(MSR_PERF_CTL(1), EV_INSNS | CTL_OS | CTL_EN | CTL_HOSTONLY);
	wrmsr(MSR_PERF_CTL(2), EV_INSNS | CTL_OS | CTL_EN | CTL_HOSTONLY | CTL_GUESTONLY);
	wrmsr(MSR_PERF_CTL(3), EV_INSNS | CTL_OS | CTL_EN);
	wrmsr(MSR_PERF_CTL(4), EV_BRANCHES | CTL_OS | CTL_EN | CTL_GUESTONLY);
	exitcode = guest_run(0x1f, N);
	check("SVM guest exits by VMMCALL (0x81)", exitcode, 0x81);
	check("GuestOnly: the guest's 2N+1 (VMRUN retires in the guest)", rdmsr(MSR_PERF_CTR(0)),
	      2 * N + 1);
	check("HostOnly: the host's 6", rdmsr(MSR_PERF_CTR(1)), 6);
	check("HostOnly|GuestOnly: both, 2N+7", rdmsr(MSR_PERF_CTR(2)), 2 * N + 7);
	check("neither: both, 2N+7", rdmsr(MSR_PERF_CTR(3)), 2 * N + 7);
	check("GuestOnly branches: N+1 (VMRUN is a branch)", rdmsr(MSR_PERF_CTR(4)), N + 1);

	/*
	 * EFER.SVME=0: a counter with HostOnly or GuestOnly set counts nothing
	 * (the PPR's HostGuestOnly encodings count "if [SVME]==1"; Linux commit
	 * 1018faa6cf23 saw it on hardware), one with neither counts.
	 */
	pmu_clear();
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) & ~(1ull << 12));
	wrmsr(MSR_PERF_CTL(0), EV_INSNS | CTL_OS | CTL_EN | CTL_GUESTONLY);
	wrmsr(MSR_PERF_CTL(1), EV_INSNS | CTL_OS | CTL_EN | CTL_HOSTONLY);
	wrmsr(MSR_PERF_CTL(2), EV_INSNS | CTL_OS | CTL_EN | CTL_HOSTONLY | CTL_GUESTONLY);
	wrmsr(MSR_PERF_CTL(3), EV_INSNS | CTL_OS | CTL_EN);
	pmu_loop(N, 0x0f);
	check("EFER.SVME=0: GuestOnly counts nothing", rdmsr(MSR_PERF_CTR(0)), 0);
	check("EFER.SVME=0: HostOnly counts nothing", rdmsr(MSR_PERF_CTR(1)), 0);
	check("EFER.SVME=0: HostOnly|GuestOnly counts nothing", rdmsr(MSR_PERF_CTR(2)), 0);
	check("EFER.SVME=0: neither counts, 2N+5", rdmsr(MSR_PERF_CTR(3)), 2 * N + 5);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | (1ull << 12));
	pmu_clear();
}

static void test_pmc_virtualization(void)
{
	u64 exitcode, left = 50;

	/* the host's counters, to be lost (swap type C) */
	pmu_clear();
	wrmsr(MSR_PERF_CTL(0), EV_INSNS | CTL_OS | CTL_EN);
	wrmsr(MSR_PERF_CTR(0), 5000);
	wrmsr(MSR_GLOBAL_STATUS_SET, 0x20); /* the host's status, to be kept (type A) */

	VMCB64(0xb8) = 1ull << 3;		       /* PMC virtualization enable */
	VMCB64(0x4e0) = EV_INSNS | CTL_OS | CTL_EN;    /* guest PERF_CTL0 */
	VMCB64(0x4e8) = 100;			       /* guest PERF_CTR0 */
	VMCB64(0x4f0) = EV_BRANCHES | CTL_OS | CTL_EN; /* guest PERF_CTL1 */
	VMCB64(0x4f8) = 0;
	VMCB64(0x500) = EV_INSNS | CTL_OS | CTL_EN; /* PERF_CTL2, not in guest GlobalCtl */
	VMCB64(0x508) = 7;
	/* the guest's EFER.SVME is 1 (VMRUN requires it) and it runs in guest
	 * mode: GuestOnly counts, HostOnly does not (tests/emu/bochs/0005) */
	VMCB64(0x510) = EV_INSNS | CTL_OS | CTL_EN | CTL_GUESTONLY; /* PERF_CTL3 */
	VMCB64(0x518) = 0;
	VMCB64(0x520) = EV_INSNS | CTL_OS | CTL_EN | CTL_HOSTONLY; /* PERF_CTL4 */
	VMCB64(0x528) = 0;
	VMCB64(0x5c8) = 0x10; /* guest GlobalStatus */
	VMCB64(0x5d0) = 0x1b; /* guest GlobalCtl */

	exitcode = guest_run(0x01, N);
	check("VMRUN with host GlobalCtl != 0 fails: VMEXIT_INVALID_PMC (-4)", exitcode, (u64)-4);
	check("failed VMRUN left the guest's counter alone", VMCB64(0x4e8), 100);

	exitcode = guest_run(0, N);
	check("PMC virtualization: guest exits by VMMCALL", exitcode, 0x81);
	check("VMCB PERF_CTR0: 100 + the guest's 2N+1", VMCB64(0x4e8), 100 + 2 * N + 1);
	check("VMCB PERF_CTR1: the guest's N+1 branches", VMCB64(0x4f8), N + 1);
	check("VMCB PERF_CTR2: not in the guest's GlobalCtl, unchanged", VMCB64(0x508), 7);
	check("VMCB PERF_CTL0 stored back", VMCB64(0x4e0), EV_INSNS | CTL_OS | CTL_EN);
	check("VMCB GlobalStatus stored back", VMCB64(0x5c8), 0x10);
	check("VMCB PERF_CTR3: GuestOnly counts in the guest, 2N+1", VMCB64(0x518), 2 * N + 1);
	check("VMCB PERF_CTR4: HostOnly counts nothing in the guest", VMCB64(0x528), 0);
	check("VMCB GlobalCtl stored back", VMCB32(0x5d0), 0x1b);
	check("host PERF_CTL0 at reset (0) after #VMEXIT", rdmsr(MSR_PERF_CTL(0)), 0);
	check("host PERF_CTR0 at reset (0) after #VMEXIT", rdmsr(MSR_PERF_CTR(0)), 0);
	check("host GlobalStatus restored after #VMEXIT", rdmsr(MSR_GLOBAL_STATUS), 0x20);

	/* a guest overflow with INT: a virtual NMI to the guest, no host PMI */
	wrmsr(MSR_GLOBAL_STATUS_CLR, ALL_COUNTERS);
	lapic[0x340 / 4] = PMI_VECTOR;
	VMCB64(0x4e0) = EV_INSNS | CTL_OS | CTL_EN | CTL_INT;
	VMCB64(0x4e8) = (1ull << 48) - left;
	VMCB64(0x5c8) = 0;
	VMCB32(0x60) = 1u << 26; /* V_NMI_ENABLE */
	nmi_count = 0;
	pmi_count = 0;
	exitcode = guest_run(0, N);
	check("guest overflow: guest exits by VMMCALL", exitcode, 0x81);
	check("guest overflow: one virtual NMI taken by the guest", nmi_count, 1);
	check("guest overflow: no host PMI", pmi_count, 0);
	check("guest overflow: VMCB GlobalStatus bit 0", VMCB64(0x5c8), 0x01);
	check_range("guest overflow: VMCB PERF_CTR0 wrapped (plus the guest's handler)",
		    VMCB64(0x4e8), 2 * N + 1 - left, 2 * N + 1 - left + HANDLER_MAX);
	check("guest overflow: V_NMI and V_NMI_MASK clear after the guest's IRET",
	      VMCB32(0x60) & (3u << 11), 0);
	check("guest overflow: host GlobalStatus untouched", rdmsr(MSR_GLOBAL_STATUS), 0);

	/* V_NMI pending at VMRUN: delivered at once; V_NMI_MASK blocks it */
	VMCB64(0x4e0) = 0;
	VMCB32(0x60) = (1u << 26) | (1u << 11) | (1u << 12);
	nmi_count = 0;
	guest_run(0, 10);
	check("VNMI: V_NMI_MASK blocks a pending virtual NMI", nmi_count, 0);
	check("VNMI: still pending and masked at #VMEXIT", VMCB32(0x60) & (3u << 11), 3u << 11);
	VMCB32(0x60) = (1u << 26) | (1u << 11);
	guest_run(0, 10);
	check("VNMI: a pending virtual NMI is taken", nmi_count, 1);
	VMCB32(0x60) = 0;
	VMCB64(0xb8) = 0;
	lapic[0x340 / 4] = 0x10000;
	pmu_clear();
}

static int is_intel(void)
{
	u32 a, b, c, d;

	cpuid(0, &a, &b, &c, &d);
	return b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e; /* GenuineIntel */
}

EFI_STATUS EFIAPI efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	__asm__ volatile("cli");
	puts_e9("pmutest: the Bochs PMU model, bare (no hypervisor)\n");
	setup_idt();
	lapic = (volatile u32 *)(rdmsr(MSR_APIC_BASE) & ~0xfffull);
	lapic[0xf0 / 4] = 0x1ff; /* APIC software-enabled, spurious vector 0xff */
	lapic[0x340 / 4] = 0x10000;

	if (is_intel()) {
		pmutest_intel();
		goto done;
	}
	test_cpuid();
	test_msrs();
	test_counting();
	test_overflow();
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | (1ull << 12));
	wrmsr(MSR_VM_HSAVE_PA, (u64)hsave);
	vmcb_init();
	test_host_guest();
	test_pmc_virtualization();
done:
	puts_e9("pmutest: ");
	put_dec(checks);
	puts_e9(" checks, ");
	put_dec(failures);
	puts_e9(" failed\n");
	puts_e9(failures ? "pmutest: FAIL\n" : "pmutest: PASS\n");
	shutdown();
}
