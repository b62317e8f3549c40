// SPDX-License-Identifier: MIT
#include "smp.h"
#include "smp_cpus.h"
#include "platform/acpi.h"
#include "lib/boot_info.h"
#include "platform/console.h"
#include "cpu_features.h"
#include "cpu_tables.h"
#include "lib/fmt.h"
#include "platform/host_timer.h"
#include "platform/lapic.h"
#include "page_alloc.h"
#include "numa.h"
#include "selfcheck.h"
#include "smp_stacks.h"
#include "smp_state.h"
#include "finish.h"
#include "platform/tsc.h"
#include "arch/apic.h"
#include "arch/msr.h"
#include "arch/pagetable.h"
#include "arch/regs.h"
#include "arch/x86.h"

#define WAKE_VECTOR 0xee /* a fixed IPI that only ends an AP's HLT */

/* APIC ID bits that number the threads of a core (CPUID.0BH.0:EAX[4:0], SDM Vol 3 §9.9.1) */
static u32 smt_shift;

static struct smp_ap_ops ap_ops;

/* The BSP's control state, copied by every AP. */
static u64 bsp_cr0, bsp_cr4, bsp_efer, bsp_pat, bsp_xcr0;

/*
 * MTRRs: every CPU must have the BSP's (SDM Vol 3 §12.11.8).  Firmware
 * sets them on the APs it started, but mhv's INIT may reset them (QEMU
 * does: an AP then runs with MTRRs off, all uncached), so the BSP's are
 * copied: the fixed ranges, the variable ranges MTRRCAP counts, DEF_TYPE.
 */
#define MTRR_MAX 64
static const u32 fixed_mtrrs[] = {
	MSR_MTRR_FIX64K_00000, MSR_MTRR_FIX16K_80000, MSR_MTRR_FIX16K_A0000, MSR_MTRR_FIX4K(0),
	MSR_MTRR_FIX4K(1),     MSR_MTRR_FIX4K(2),     MSR_MTRR_FIX4K(3),     MSR_MTRR_FIX4K(4),
	MSR_MTRR_FIX4K(5),     MSR_MTRR_FIX4K(6),     MSR_MTRR_FIX4K(7),
};
static struct {
	u32 msr;
	u64 val;
} bsp_mtrrs[MTRR_MAX];
static unsigned nr_bsp_mtrrs;
static u64 bsp_mtrr_def_type;
static bool bsp_has_mtrrs;

static void save_mtrrs(void)
{
	u64 cap, v;
	unsigned i;

	if (rdmsr_safe(MSR_MTRRCAP, &cap) || rdmsr_safe(MSR_MTRR_DEF_TYPE, &bsp_mtrr_def_type))
		return;
	bsp_has_mtrrs = true;
	for (i = 0; i < ARRAY_SIZE(fixed_mtrrs) && (cap & MTRRCAP_FIX); i++)
		if (!rdmsr_safe(fixed_mtrrs[i], &v))
			bsp_mtrrs[nr_bsp_mtrrs++] = (typeof(bsp_mtrrs[0])){ fixed_mtrrs[i], v };
	for (i = 0; i < (cap & MTRRCAP_VCNT) && nr_bsp_mtrrs + 2 <= MTRR_MAX; i++) {
		if (!rdmsr_safe(MSR_MTRR_PHYSBASE(i), &v))
			bsp_mtrrs[nr_bsp_mtrrs++] =
			    (typeof(bsp_mtrrs[0])){ MSR_MTRR_PHYSBASE(i), v };
		if (!rdmsr_safe(MSR_MTRR_PHYSMASK(i), &v))
			bsp_mtrrs[nr_bsp_mtrrs++] =
			    (typeof(bsp_mtrrs[0])){ MSR_MTRR_PHYSMASK(i), v };
	}
}

/* With caches off and MTRRs disabled while they change (§12.11.7.2). */
static void load_mtrrs(void)
{
	u64 cr0 = read_cr0();
	unsigned i;

	if (!bsp_has_mtrrs)
		return;
	write_cr0(cr0 | CR0_CD);
	asm volatile("wbinvd" ::: "memory");
	wrmsr_safe(MSR_MTRR_DEF_TYPE, 0);
	for (i = 0; i < nr_bsp_mtrrs; i++)
		wrmsr_safe(bsp_mtrrs[i].msr, bsp_mtrrs[i].val);
	wrmsr_safe(MSR_MTRR_DEF_TYPE, bsp_mtrr_def_type);
	asm volatile("wbinvd" ::: "memory");
	write_cr0(cr0);
}

extern const u8 smp_trampoline_start[], smp_trampoline_end[];
extern const u32 smp_tramp_off_gdtr, smp_tramp_off_gdt, smp_tramp_off_pm32, smp_tramp_off_pm32_ptr,
    smp_tramp_off_lm64, smp_tramp_off_lm64_ptr, smp_tramp_off_cr3_low, smp_tramp_off_efer,
    smp_tramp_off_cr3, smp_tramp_off_boot_stack, smp_tramp_off_boot, smp_tramp_off_entry,
    smp_tramp_off_slots, smp_tramp_off_max_slots, smp_tramp_off_park, smp_tramp_off_park_nmi,
    smp_tramp_off_parked, smp_tramp_off_park_stacks, smp_tramp_off_gdtr64, smp_tramp_off_park_idtr,
    smp_tramp_off_park_idt;

static u8 *tramp;

static void put32(u32 off, u32 v)
{
	__builtin_memcpy(tramp + off, &v, 4);
}

static void put64(u32 off, u64 v)
{
	__builtin_memcpy(tramp + off, &v, 8);
}

static void put16(u32 off, u16 v)
{
	__builtin_memcpy(tramp + off, &v, 2);
}

static u64 ticks_per_ms(void)
{
	return host_tsc.clock_hz / 1000;
}

static void delay_us(u64 us)
{
	u64 end = rdtsc() + ticks_per_ms() * us / 1000;

	while (rdtsc() < end)
		cpu_relax();
}

/*
 * Code at base, then the temporary tables: PML4 at +1 page, PDPT at +2,
 * four page directories of 2 MiB pages at +3..+6 mapping 0-4 GiB one to
 * one; the AP leaves them for mhv's own tables as soon as it is in long
 * mode (SDM Vol 3 §9.8.5).  At +7 the APs' shared boot stack
 * (smp_stacks.h).
 */
#define TRAMP_BOOT_STACK_PAGE 7
#define TRAMP_PARK_PAGE 8 /* the parked CPUs' stacks (smp_trampoline.asm) */
_Static_assert(TRAMP_PARK_PAGE < TRAMPOLINE_PAGES, "the park page is in the trampoline");
#define TRAMP_CODE64 0x18   /* the trampoline GDT's 64-bit code */
#define GATE_INTERRUPT 0x8e /* present, DPL 0, 64-bit interrupt gate (SDM Vol 3 §6.14.1) */

/* The park IDT's NMI gate (vector 2) -> the trampoline's IRETQ. */
static void build_park_idt(u64 base)
{
	u64 handler = base + smp_tramp_off_park_nmi;
	u32 gate = smp_tramp_off_park_idt + 2 * 16;

	put16(gate, (u16)handler);
	put16(gate + 2, TRAMP_CODE64);
	tramp[gate + 5] = GATE_INTERRUPT;
	put16(gate + 6, (u16)(handler >> 16));
	put32(gate + 8, (u32)(handler >> 32));
	put64(smp_tramp_off_park_idtr + 2, base + smp_tramp_off_park_idt);
	put64(smp_tramp_off_gdtr64 + 2, base + smp_tramp_off_gdt);
	put64(smp_tramp_off_park_stacks, base + TRAMP_PARK_PAGE * PAGE_SIZE);
}

static void build_trampoline(u64 base)
{
	u64 *pml4 = (u64 *)(uintptr_t)(base + PAGE_SIZE);
	u64 *pdpt = pml4 + 512;
	u64 *pd = pdpt + 512;
	unsigned i;

	tramp = (u8 *)(uintptr_t)base;
	__builtin_memset(tramp, 0, TRAMPOLINE_PAGES * PAGE_SIZE);
	__builtin_memcpy(tramp, smp_trampoline_start, smp_trampoline_end - smp_trampoline_start);
	pml4[0] = (u64)(uintptr_t)pdpt | PTE_P | PTE_RW;
	for (i = 0; i < 4; i++)
		pdpt[i] = (u64)(uintptr_t)(pd + 512 * i) | PTE_P | PTE_RW;
	for (i = 0; i < 4 * 512; i++)
		pd[i] = ((u64)i << 21) | PTE_P | PTE_RW | PTE_PS;
	put32(smp_tramp_off_gdtr + 2, (u32)base + smp_tramp_off_gdt);
	put32(smp_tramp_off_pm32_ptr, (u32)base + smp_tramp_off_pm32);
	put32(smp_tramp_off_lm64_ptr, (u32)base + smp_tramp_off_lm64);
	put64(smp_tramp_off_cr3_low, (u64)(uintptr_t)pml4);
	put64(smp_tramp_off_efer, bsp_efer & (EFER_LME | EFER_NXE));
	put64(smp_tramp_off_cr3, read_cr3());
	put64(smp_tramp_off_boot, (u64)(uintptr_t)smp_ap_boot);
	put64(smp_tramp_off_entry, (u64)(uintptr_t)smp_ap_entry);
	smp_stacks_set_boot(tramp + TRAMP_BOOT_STACK_PAGE * PAGE_SIZE);
	put64(smp_tramp_off_boot_stack, base + (TRAMP_BOOT_STACK_PAGE + 1) * PAGE_SIZE);
	build_park_idt(base);
}

u32 smp_parked(void)
{
	return tramp ? __atomic_load_n((volatile u32 *)(tramp + smp_tramp_off_parked),
				       __ATOMIC_ACQUIRE)
		     : 0;
}

void percpu_stray(u32 apic_id)
{
	cli();
	if (tramp)
		((void (*)(void))(tramp + smp_tramp_off_park))();
	for (;;)
		asm volatile("hlt");
}

/* Stacks and tables for n APs, from their nodes; false when memory ran out. */
static bool provision(unsigned n)
{
	unsigned i;

	if (!smp_stacks_alloc(n))
		return false;
	put32(smp_tramp_off_max_slots, n);
	for (i = 1; i <= n; i++) {
		cpus[i].tables = alloc_pages_zeroed_node(1, cpus[i].node);
		if (!cpus[i].tables)
			return false;
	}
	return true;
}

static bool broadcast; /* no MADT: each AP claims its slot's struct cpu */

/* A retired AP that got out of its work after all: it stays here for good. */
static __noreturn void park(void)
{
	for (;;)
		ap_ops.idle_wait();
}

struct smp_ap_start smp_ap_boot(u32 slot)
{
	struct cpu *c = NULL;
	u32 id;
	unsigned i;

	/* INIT kept this APIC's mode, which may not be the BSP's: first of all */
	lapic_init_ap();
	id = lapic_id();
	if (broadcast) {
		/* its APIC ID before its claim: the BSP, which indexes the
		 * CPUs by it, sees the ID of every CPU that claimed */
		c = &cpus[slot + 1];
		c->node = numa_cpu_node(id);
		__atomic_store_n(&c->apic_id, id, __ATOMIC_RELEASE);
	} else {
		/* not the slot: the APs take them in the order they arrive */
		for (i = 1; i < nr_cpus; i++)
			if (cpus[i].apic_id == id)
				c = &cpus[i];
	}
	/* a CPU the BSP did not start has no stack, and one that answers
	 * after the BSP gave up on it is no longer its: they park in the
	 * trampoline (smp_state.h) */
#if defined(MHV_TEST_LATE_AP) && MHV_TEST_LATE_AP == 1 /* test builds: answer after the time-out */
	if (slot == 0)
		delay_us(1500000);
#endif
	if (!c || !c->stack || !smp_ap_claim(c))
		return (struct smp_ap_start){ 0, NULL };
	return (struct smp_ap_start){ smp_stack_top(c), c };
}

void smp_ap_entry(struct cpu *c)
{
	host_timer_init_ap();
	c->stack_node = numa_stack_node();
	cpu_tables_load(c->tables);
	load_mtrrs();
	write_cr0(bsp_cr0);
	write_cr4(bsp_cr4 & ~CR4_VMXE);
	wrmsr(MSR_EFER, bsp_efer & ~EFER_SVME);
	wrmsr(MSR_IA32_PAT, bsp_pat);
	if (bsp_cr4 & CR4_OSXSAVE)
		asm volatile("xsetbv" ::"c"(0), "a"((u32)bsp_xcr0), "d"((u32)(bsp_xcr0 >> 32)));
#if defined(MHV_TEST_LATE_AP) && MHV_TEST_LATE_AP == 2 /* test builds: set-up past the time-out */
	if (c->index == 1)
		delay_us(1500000);
#endif
	/* the BSP gave up on it during its set-up: parked, never used */
	if (!smp_ap_ready(c, ap_ops.enable(c->why, sizeof(c->why))))
		percpu_stray(c->apic_id);
	for (;;) {
		/* a retired CPU takes no work, and one that ends its work after
		 * it was retired touches nothing more */
		if (cpu_state_change(c, CPU_GIVEN, CPU_BUSY)) {
			c->work(c->work_arg);
			c->work = NULL;
			if (!cpu_state_change(c, CPU_BUSY, CPU_IDLE) &&
			    !cpu_state_change(c, CPU_FINISHING, CPU_IDLE))
				park();
			__atomic_add_fetch(&c->done, 1, __ATOMIC_RELEASE);
			continue;
		}
		ap_ops.idle_wait();
	}
}

static unsigned nr_unsettled(void)
{
	unsigned i, n = 0;

	for (i = 1; i < nr_cpus; i++)
		n += smp_unsettled(&cpus[i]);
	return n;
}

static bool any_unsettled(void)
{
	return nr_unsettled() != 0;
}

/*
 * Until every AP has settled, or none has for @quiet_ms, and @max_ms at
 * most: hardware's APs all answer within milliseconds, but an emulator's
 * hundred vCPUs on two host cores come up one after another over
 * seconds, and one that is merely slow must not be given up on (it would
 * then park for good).  A CPU that never answers costs @quiet_ms once.
 */
static void wait_settled(u64 quiet_ms, u64 max_ms)
{
	u64 now = rdtsc(), end = now + ticks_per_ms() * max_ms;
	u64 deadline = now + ticks_per_ms() * quiet_ms;
	unsigned left = nr_unsettled(), n;

	while (left && now < deadline && now < end) {
		cpu_relax();
		now = rdtsc();
		n = nr_unsettled();
		if (n < left)
			deadline = now + ticks_per_ms() * quiet_ms;
		left = n;
	}
}

/*
 * INIT, then up to two SIPIs, as the MP start-up protocol has it (SDM Vol
 * 3 §9.4.4.1), sent to every AP in turn at each step: one 10 ms wait for
 * all of them, and a CPU the MADT lists that never answers costs its
 * 1.2 s once, not once per CPU.  The APs claim their stacks in the
 * trampoline and find their struct cpu by APIC ID (smp_ap_entry).
 */
static void start_aps(u64 base)
{
	u64 deadline;
	unsigned i, sipi;

	for (i = 1; i < nr_cpus; i++)
		cpus[i].state = CPU_STARTING;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 1; i < nr_cpus; i++)
		lapic_send_ipi(cpus[i].apic_id, ICR_INIT | ICR_LEVEL_ASSERT);
	delay_us(10000);
	for (sipi = 0; sipi < 2 && any_unsettled(); sipi++) {
		for (i = 1; i < nr_cpus; i++)
			if (cpus[i].state == CPU_STARTING)
				lapic_send_ipi(cpus[i].apic_id, ICR_STARTUP | (u32)(base >> 12));
		deadline = rdtsc() + ticks_per_ms() * (sipi ? 200 : 1);
		while (any_unsettled() && rdtsc() < deadline)
			cpu_relax();
	}
	/* Wait for the APs' own set-up (tables, LAPIC, virtualization). */
	wait_settled(1000, 30000);
	for (i = 1; i < nr_cpus; i++)
		smp_give_up(&cpus[i],
			    "no answer to INIT-SIPI-SIPI within 1.2 s (1 s after the last CPU "
			    "that answered)",
			    "answered, but its set-up did not end within 1.2 s (1 s after the "
			    "last CPU that settled)");
}

/*
 * Without a MADT (OVMF under Bochs installs no ACPI tables) every other
 * CPU gets INIT-SIPI-SIPI at once through the all-excluding-self shorthand
 * and claims a slot; the ones that answer within a second are the CPUs.
 */
static void start_all_broadcast(u64 base)
{
	u64 deadline;
	unsigned i;
	u32 taken;

	broadcast = true;
	for (i = 1; i <= BROADCAST_APS; i++)
		cpus[i] = (struct cpu){ .index = i,
					.apic_id = APIC_ID_NONE,
					.stack_node = STACK_NODE_UNSEEN,
					.state = CPU_STARTING,
					.tables = cpus[i].tables,
					.stack = cpus[i].stack };
	/* while the slots are open this_cpu() looks through all of them:
	 * an AP in its set-up finds its own by the ID it wrote there */
	nr_cpus = 1 + BROADCAST_APS;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	lapic_send_ipi(0, ICR_ALL_BUT_SELF | ICR_INIT | ICR_LEVEL_ASSERT);
	delay_us(10000);
	lapic_send_ipi(0, ICR_ALL_BUT_SELF | ICR_STARTUP | (u32)(base >> 12));
	delay_us(200);
	lapic_send_ipi(0, ICR_ALL_BUT_SELF | ICR_STARTUP | (u32)(base >> 12));
	deadline = rdtsc() + ticks_per_ms() * 1000;
	while (rdtsc() < deadline)
		cpu_relax();
	/* closed at once: an AP that comes later takes no slot and parks */
	taken = smp_slots_close((u32 *)(tramp + smp_tramp_off_slots));
	nr_cpus = 1 + (taken < BROADCAST_APS ? taken : BROADCAST_APS);
	for (i = 1; i < nr_cpus; i++) {
		/* answered late, after the second: wait for its set-up once more */
		deadline = rdtsc() + ticks_per_ms() * 1000;
		while (smp_unsettled(&cpus[i]) && rdtsc() < deadline)
			cpu_relax();
		smp_give_up(&cpus[i], "took a slot but did not claim it within 1 s",
			    "took a slot but did not finish its set-up");
	}
}

static void save_bsp_state(void)
{
	save_mtrrs();
	bsp_cr0 = read_cr0();
	bsp_cr4 = read_cr4();
	bsp_efer = rdmsr(MSR_EFER);
	bsp_pat = rdmsr(MSR_IA32_PAT);
	if (bsp_cr4 & CR4_OSXSAVE) {
		u32 lo, hi;

		asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		bsp_xcr0 = (u64)hi << 32 | lo;
	}
}

void smp_init(const struct boot_info *bi, const struct smp_ap_ops *ops)
{
	struct smp_cpus plan;
	struct cpuid_regs topo;
	unsigned i, up = 0;

	/* Leaf 0xB sub-leaf 0 is the SMT level when ECX[15:8] says type 1. */
	if (cpuid_cached(0xb, 0, &topo) && ((topo.ecx >> 8) & 0xff) == 1)
		smt_shift = topo.eax & 0x1f;
	smp_cpus_plan(bi, &plan);
	cpus[0] = (struct cpu){ .index = 0,
				.apic_id = plan.bsp_id,
				.node = numa_cpu_node(plan.bsp_id),
				.stack_node = numa_stack_node(),
				.state = CPU_IDLE };
	cpus[0].tables = cpu_tables_bsp();
	nr_cpus = 1;
	if (plan.n > 0 && !plan.aps) {
		smp_cpus_say(&plan, 0, 0, smt_shift);
		return;
	}
	if (!bi->trampoline_base || !lapic_present()) {
		console_printf("mhv: cpus: APs not started: %s\n",
			       !lapic_present() ? "the local APIC is off"
						: "no memory below 1 MiB for the trampoline");
		return;
	}
	if (!percpu_alloc(1 + plan.aps)) {
		console_printf("mhv: cpus: APs not started: out of memory for %u CPUs' data\n",
			       1 + plan.aps);
		return;
	}
	if (plan.n > 0)
		smp_cpus_list(&plan);
	ap_ops = *ops;
	selfcheck_watch("the APs' start-up ops", &ap_ops, sizeof(ap_ops));
	save_bsp_state();
	build_trampoline(bi->trampoline_base);
	if (!provision(plan.aps)) {
		console_printf("mhv: cpus: APs not started: out of memory for their stacks\n");
		nr_cpus = 1;
		return;
	}
	if (plan.n > 0)
		start_aps(bi->trampoline_base);
	else
		start_all_broadcast(bi->trampoline_base);
	if (!console_lines_alloc(nr_cpus))
		console_printf("mhv: cpus: no memory for a console line per CPU: their lines may "
			       "mix\n");
	if (!percpu_index_apic_ids())
		console_printf("mhv: cpus: no memory for the table by APIC ID: this_cpu() scans\n");
	for (i = 1; i < nr_cpus; i++) {
		if (cpus[i].state == CPU_IDLE)
			up++;
		else
			console_printf("mhv: cpu %u (APIC ID %u) cannot be used: %s\n", i,
				       cpus[i].apic_id, cpus[i].why);
	}
	smp_cpus_say(&plan, up, smp_parked(), smt_shift);
}

bool smp_same_core(const struct cpu *a, const struct cpu *b)
{
	return a->apic_id >> smt_shift == b->apic_id >> smt_shift;
}

void smp_kick(struct cpu *c)
{
	lapic_send_ipi(c->apic_id, ICR_FIXED | WAKE_VECTOR);
}

bool smp_start(struct cpu *c, cpu_work_fn *fn, void *arg)
{
	if (c == &cpus[0] || c->state != CPU_IDLE)
		return false;
	c->started = c->done;
	c->work_arg = arg;
	c->work = fn;
	/* only the BSP gives work: this fails only for a CPU that failed */
	if (!cpu_state_change(c, CPU_IDLE, CPU_GIVEN))
		return false;
	smp_kick(c);
	return true;
}

bool smp_wait(struct cpu *c, u64 timeout_ms)
{
	u64 deadline = rdtsc() + ticks_per_ms() * timeout_ms;

	while (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) == c->started) {
		if (rdtsc() >= deadline)
			return false;
		cpu_relax();
	}
	return true;
}

void smp_work_left_guest(void)
{
	struct cpu *c = this_cpu();

	if (c != &cpus[0] && !cpu_state_change(c, CPU_BUSY, CPU_FINISHING))
		park();
}

bool smp_retire(struct cpu *c, u64 finish_ms, const char *why)
{
	if (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) != c->started)
		return false;
	/* GIVEN: it has not even taken the work; FINISHING or IDLE: it is
	 * out of its guest, and the rest is mhv's own code */
	if (cpu_state_change(c, CPU_BUSY, CPU_FAILED) ||
	    cpu_state_change(c, CPU_GIVEN, CPU_FAILED)) {
		fmt_snprintf(c->why, sizeof(c->why), "retired: %s", why);
		return true;
	}
	if (!smp_wait(c, finish_ms))
		hv_fatal(MHV_FATAL, "cpu %u left its guest but did not end its work in %llu ms",
			 c->index, finish_ms);
	return false;
}
