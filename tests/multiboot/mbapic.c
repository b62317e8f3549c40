// SPDX-License-Identifier: MIT
/*
 * mbtest's local APIC part (issue 8's LAPIC and SMP contract), from 32-bit
 * protected mode with paging off, as a kernel that has just booted:
 * xAPIC MMIO, IA32_APIC_BASE modes, a self-IPI and TPR, the one-shot,
 * periodic and TSC-deadline timer, and an INIT-SIPI start of the APs.
 */
#include "mbtest.h"

#define APIC_BASE_MSR 0x1b
#define APIC_BSP (1u << 8)
#define APIC_EXTD (1u << 10)
#define APIC_EN (1u << 11)
#define APIC_CPUID_X2APIC (1u << 21) /* CPUID.1:ECX (SDM Vol 2A CPUID) */
#define APIC_PAGE 0xfee00000u
#define TIMER_VECTOR 0xe0
#define IPI_VECTOR 0xd0
#define TRAMPOLINE 0x8000 /* SIPI vector 8 */

volatile uint32_t gp_count, timer_count, ipi_count;
void gp_handler(void);
void timer_irq(void);
void ipi_irq(void);
extern const uint8_t ap_tramp_start[], ap_tramp_end[];

/* Plain MOVs, as a kernel's MMIO accessors use: mhv decodes MOV forms
 * only, and a compiler may otherwise fold a read into CMP or TEST. */
static uint32_t apic_read(uint32_t reg)
{
	uint32_t v;

	__asm__ volatile("movl (%1), %0" : "=r"(v) : "r"(APIC_PAGE + reg) : "memory");
	return v;
}

static void apic_write(uint32_t reg, uint32_t v)
{
	__asm__ volatile("movl %0, (%1)" ::"r"(v), "r"(APIC_PAGE + reg) : "memory");
}

static uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" ::"c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static uint32_t cpuid1_edx(void)
{
	uint32_t a = 1, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return d;
}

static uint32_t cpuid1_ecx(void)
{
	uint32_t a = 1, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return c;
}

/* Wait up to @tsc_budget TSC ticks for *@what to reach @want. */
static int wait_for(volatile uint32_t *what, uint32_t want, uint64_t tsc_budget)
{
	uint64_t t0 = rdtsc();

	while (*what < want && rdtsc() - t0 < tsc_budget)
		__asm__ volatile("pause");
	return *what >= want;
}

/* xAPIC mode after boot: the page answers, the x2APIC MSRs #GP. */
static void check_xapic(void)
{
	uint32_t gp;
	uint64_t base = rdmsr(APIC_BASE_MSR);

	check(base == (APIC_PAGE | APIC_EN | APIC_BSP), "apic_base_xapic_bsp");
	check(apic_read(0x20) >> 24 == 0 && (apic_read(0x30) & 0xff) == 0x14 &&
		  (cpuid1_edx() & (1u << 9)),
	      "xapic_mmio_id_version");
	gp = gp_count;
	rdmsr(0x802);
	check(gp_count == gp + 1, "x2apic_msr_gp_in_xapic_mode");
}

/* A self-IPI through ICR low; TPR holds back a vector of its class. */
static void check_self_ipi(void)
{
	apic_write(0xf0, 0x1ff); /* SVR: software enable */
	__asm__ volatile("sti");
	apic_write(0x300, (1u << 18) | IPI_VECTOR);
	wait_for(&ipi_count, 1, 10000000);
	apic_write(0x80, 0xd0); /* TPR: class 0xd blocked */
	apic_write(0x300, (1u << 18) | IPI_VECTOR);
	for (volatile int i = 0; i < 1000; i++)
		;
	check(ipi_count == 1 && (apic_read(0x200 + 0x60) & (1u << 16)), "tpr_holds_back_ipi");
	apic_write(0x80, 0);
	wait_for(&ipi_count, 2, 10000000);
	check(ipi_count == 2, "self_ipi_delivered");
}

/*
 * HLT ends with the interrupt of the CPU's own timer (SDM Vol 3 §11.5.4,
 * HLT in Vol 2A).  With cpus=2 the VM has two vCPUs, so mhv's HLT sleeps
 * on the host until something wakes it; the timer expires during that
 * sleep (about 1 ms at 2 GHz, 40 ms in Bochs).  STI's shadow covers the
 * HLT, so an expiry before it still ends it (issue 28: mhv queued the
 * expired timer's vector and slept on).
 */
static void check_timer_wakes_hlt(void)
{
	uint32_t cur = timer_count;

	__asm__ volatile("cli");
	apic_write(0x320, TIMER_VECTOR | (2u << 17));
	wrmsr(0x6e0, rdtsc() + 2000000);
	__asm__ volatile("sti; hlt" ::: "memory");
	check(timer_count == cur + 1, "apic_timer_wakes_hlt");
}

/*
 * One-shot: fires once, no earlier than count x divisor TSC ticks.  The
 * count is large (10 ms at 2 GHz) because an exit under an emulator can
 * take longer than a small count lasts.
 */
#define ONE_SHOT_COUNT 20000000u
static void check_timers(void)
{
	uint64_t t0, t1;
	uint32_t cur;
	int counting;

	apic_write(0x3e0, 0xb); /* divide by 1 */
	apic_write(0x320, TIMER_VECTOR);
	t0 = rdtsc();
	apic_write(0x380, ONE_SHOT_COUNT);
	cur = apic_read(0x390);
	t1 = rdtsc();
	/* counting down, or already 0 if the read came that late (a loaded
	 * emulator host): either must agree with the TSC */
	counting = cur == 0 ? t1 - t0 >= ONE_SHOT_COUNT : cur < ONE_SHOT_COUNT;
	wait_for(&timer_count, 1, 4000000000ull);
	t1 = rdtsc();
	check(timer_count == 1 && counting && t1 - t0 >= ONE_SHOT_COUNT && apic_read(0x390) == 0,
	      "apic_timer_one_shot");
	for (volatile int i = 0; i < 200000; i++)
		;
	check(timer_count == 1, "apic_timer_one_shot_fires_once");
	/* periodic: several expiries from one initial count, then stopped */
	apic_write(0x320, TIMER_VECTOR | (1u << 17));
	apic_write(0x380, 100000);
	wait_for(&timer_count, 4, 4000000000ull);
	apic_write(0x380, 0);
	check(timer_count >= 4, "apic_timer_periodic");
	/* TSC deadline (CPUID.1:ECX[24]) through IA32_TSC_DEADLINE */
	cur = timer_count;
	apic_write(0x320, TIMER_VECTOR | (2u << 17));
	wrmsr(0x6e0, rdtsc() + 100000);
	wait_for(&timer_count, cur + 1, 2000000000ull);
	check(timer_count == cur + 1 && rdmsr(0x6e0) == 0, "apic_timer_tsc_deadline");
	check_timer_wakes_hlt();
	apic_write(0x320, 1u << 16);
}

/*
 * "x2apic = off" in the guest's section (the command line says
 * nox2apic=1): CPUID.1:ECX[21] is clear, so IA32_APIC_BASE.EXTD is
 * reserved and the x2APIC MSRs #GP (SDM Vol 3 §11.12.1); the xAPIC stays.
 */
static void check_no_x2apic(void)
{
	uint32_t gp = gp_count;

	wrmsr(APIC_BASE_MSR, APIC_PAGE | APIC_BSP | APIC_EN | APIC_EXTD);
	rdmsr(0x802);
	wrmsr(0x83f, 0x40); /* SELF IPI */
	check(!(cpuid1_ecx() & APIC_CPUID_X2APIC) && gp_count == gp + 3 &&
		  rdmsr(APIC_BASE_MSR) == (APIC_PAGE | APIC_BSP | APIC_EN) &&
		  (apic_read(0x30) & 0xff) == 0x14,
	      "x2apic_off_hidden_and_gp");
}

/* SDM Vol 3 §11.12.5: disable, enable, x2APIC, and the #GP of x2APIC -> xAPIC. */
static void check_apic_base_modes(void)
{
	uint32_t gp = gp_count;

	wrmsr(APIC_BASE_MSR, APIC_PAGE | APIC_BSP);
	check(!(cpuid1_edx() & (1u << 9)) && apic_read(0x30) == 0xffffffffu,
	      "apic_disabled_hides_page_and_cpuid_bit");
	wrmsr(APIC_BASE_MSR, APIC_PAGE | APIC_BSP | APIC_EN);
	check((apic_read(0x30) & 0xff) == 0x14 && (cpuid1_edx() & (1u << 9)), "apic_reenabled");
	check(cpuid1_ecx() & APIC_CPUID_X2APIC, "x2apic_in_cpuid");
	wrmsr(APIC_BASE_MSR, APIC_PAGE | APIC_BSP | APIC_EN | APIC_EXTD);
	check(rdmsr(0x802) == 0 && apic_read(0x30) == 0xffffffffu && gp_count == gp,
	      "x2apic_mode_msrs");
	wrmsr(APIC_BASE_MSR, APIC_PAGE | APIC_BSP | APIC_EN);
	check(gp_count == gp + 1, "x2apic_to_xapic_gp");
	/* back to xAPIC the legal way: through disabled */
	wrmsr(APIC_BASE_MSR, APIC_PAGE | APIC_BSP);
	wrmsr(APIC_BASE_MSR, APIC_PAGE | APIC_BSP | APIC_EN);
	apic_write(0xf0, 0x1ff);
}

/* INIT-SIPI-SIPI to all but self (MP wake-up, SDM Vol 3 §9.4.4.1). */
static void check_init_sipi(uint32_t ncpus)
{
	volatile uint32_t *started = (volatile uint32_t *)0x7000;
	volatile uint16_t *cs = (volatile uint16_t *)0x7004;
	uint8_t *dst = (uint8_t *)TRAMPOLINE;
	const uint8_t *src;

	for (src = ap_tramp_start; src < ap_tramp_end;)
		*dst++ = *src++;
	*started = 0;
	*cs = 0;
	apic_write(0x310, 0);
	apic_write(0x300, (3u << 18) | (1u << 14) | (5u << 8)); /* INIT, assert */
	apic_write(0x300, (3u << 18) | (6u << 8) | (TRAMPOLINE >> 12));
	wait_for(started, ncpus - 1, 4000000000ull);
	apic_write(0x300, (3u << 18) | (6u << 8) | (TRAMPOLINE >> 12)); /* the second SIPI */
	for (volatile int i = 0; i < 100000; i++)
		;
	check(*started == ncpus - 1 && *cs == (TRAMPOLINE >> 4), "init_sipi_starts_aps");
}

void mbtest_apic(const char *cmdline)
{
	uint32_t ncpus = arg(cmdline, "cpus=") ? arg(cmdline, "cpus=") : 1;

	set_gate(13, gp_handler);
	set_gate(TIMER_VECTOR, timer_irq);
	set_gate(IPI_VECTOR, ipi_irq);
	check_xapic();
	check_self_ipi();
	check_timers();
	if (arg(cmdline, "nox2apic="))
		check_no_x2apic();
	else
		check_apic_base_modes();
	if (ncpus > 1)
		check_init_sipi(ncpus);
	__asm__ volatile("cli");
}
