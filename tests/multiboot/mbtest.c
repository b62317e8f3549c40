// SPDX-License-Identifier: MIT
/*
 * mbtest: a multiboot kernel that checks what mhv promises such a kernel
 * (issue 8's platform contract): the boot magic and information, the
 * command line, a module, the serial port, CPUID, #UD reaching its own IDT,
 * and the exit port.  Its exit code is the number of failed checks, or
 * the command line's "exit=N" when none failed (another exit code's report).
 */
#include "mbtest.h"
#include "../../hv/lib/guest_abi.h"

#define COM1 0x3f8

struct mb_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr;
};

struct mb_module {
	uint32_t start, end, string, reserved;
};

volatile uint32_t ud_count;
#ifdef MBTEST_BIG
/* a kernel of 3 MiB in memory: too large for "mem = 2" */
static volatile uint8_t ballast[3 << 20];
#endif
void ud_handler(void);
static unsigned failures;

void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port));
}

void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port));
}

void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" ::"a"(v), "Nd"(port));
}

uint32_t inl(uint16_t port)
{
	uint32_t v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static void putc(char c)
{
	while (!(inb(COM1 + 5) & 0x20)) /* LSR: transmitter holding register empty */
		;
	outb(COM1, (uint8_t)c);
}

void puts(const char *s)
{
	while (*s)
		putc(*s++);
}

void putu(uint32_t v)
{
	char buf[11];
	int i = 10;

	buf[i] = 0;
	do
		buf[--i] = (char)('0' + v % 10);
	while (v /= 10);
	puts(buf + i);
}

void check(int ok, const char *name)
{
	puts(ok ? "mbtest: PASS " : "mbtest: FAIL ");
	puts(name);
	putc('\n');
	failures += !ok;
}

static int starts_with(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

/* The value of "key=N" in the command line, or 0. */
uint32_t arg(const char *cmdline, const char *key)
{
	const char *p;
	uint32_t v = 0;

	for (p = cmdline; *p; p++) {
		if ((p == cmdline || p[-1] == ' ') && starts_with(p, key)) {
			while (*key++)
				p++;
			for (; *p >= '0' && *p <= '9'; p++)
				v = v * 10 + (uint32_t)(*p - '0');
			return v;
		}
	}
	return 0;
}

/* A 32-bit IDT of our own: exceptions and APIC interrupts must reach it. */
static uint64_t idt[256] __attribute__((aligned(8)));

void set_gate(unsigned vector, void (*handler)(void))
{
	uint32_t h = (uint32_t)(uintptr_t)handler;
	uint16_t cs;
	struct {
		uint16_t limit;
		uint32_t base;
	} __attribute__((packed)) idtr = { sizeof(idt) - 1, (uint32_t)(uintptr_t)idt };

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	/* 32-bit interrupt gate (SDM Vol 3 §6.11): offset, selector, P, type 0xE */
	idt[vector] =
	    (h & 0xffff) | (uint64_t)cs << 16 | (uint64_t)0x8e00 << 32 | (uint64_t)(h >> 16) << 48;
	__asm__ volatile("lidt %0" ::"m"(idtr) : "memory");
}

static void check_ud(void)
{
	set_gate(6, ud_handler);
	__asm__ volatile("ud2" ::: "memory");
	check(ud_count == 1, "ud_reaches_guest_idt");
}

/* fw_cfg: key to 0x510, then the item's bytes from 0x511, little-endian. */
static uint64_t fw_cfg(uint16_t key, unsigned len)
{
	uint64_t v = 0;
	unsigned i;

	outw(0x510, key);
	for (i = 0; i < len; i++)
		v |= (uint64_t)inb(0x511) << (8 * i);
	return v;
}

static int sum_ok(const uint8_t *p, uint32_t len)
{
	uint8_t s = 0;

	while (len--)
		s += *p++;
	return s == 0;
}

/* The RSDP in 0xE0000-0xFFFFF on a 16-byte boundary (ACPI 6.5 §5.2.5.1). */
static const uint8_t *find_rsdp(void)
{
	const uint8_t *p;

	for (p = (const uint8_t *)0xe0000; p < (const uint8_t *)0x100000; p += 16)
		if (starts_with((const char *)p, "RSD PTR ") && sum_ok(p, 20))
			return p;
	return 0;
}

static const uint8_t *rsdt_table(const uint8_t *rsdp, const char *sig)
{
	const uint8_t *rsdt = (const uint8_t *)(uintptr_t) * (const uint32_t *)(rsdp + 16);
	uint32_t i, n;

	if (!starts_with((const char *)rsdt, "RSDT") ||
	    !sum_ok(rsdt, *(const uint32_t *)(rsdt + 4)))
		return 0;
	n = (*(const uint32_t *)(rsdt + 4) - 36) / 4;
	for (i = 0; i < n; i++) {
		const uint8_t *t =
		    (const uint8_t *)(uintptr_t) * (const uint32_t *)(rsdt + 36 + 4 * i);

		if (starts_with((const char *)t, sig) && sum_ok(t, *(const uint32_t *)(t + 4)))
			return t;
	}
	return 0;
}

static void check_platform(const char *cmdline)
{
	const uint8_t *rsdp = find_rsdp(), *fadt = 0, *madt = 0;
	uint32_t t0, t1, i;

	uint32_t ncpus = arg(cmdline, "cpus=") ? arg(cmdline, "cpus=") : 1;

	check(fw_cfg(0, 4) == 0x554d4551 /* "QEMU" */ && fw_cfg(5, 2) == ncpus &&
		  fw_cfg(0x0f, 2) == ncpus &&
		  fw_cfg(3, 8) == (uint64_t)arg(cmdline, "mem=") << 20 && fw_cfg(0x1234, 4) == 0,
	      "fw_cfg");
	if (rsdp) {
		fadt = rsdt_table(rsdp, "FACP");
		madt = rsdt_table(rsdp, "APIC");
	}
	check(fadt && *(const uint32_t *)(fadt + 76) == 0x608 && fadt[91] == 4 && madt &&
		  /* n local APICs, the I/O APIC, overrides IRQ0 -> GSI 2 and the SCI */
		  *(const uint32_t *)(madt + 4) == 44 + 8 * ncpus + 12 + 2 * 10 && madt[44] == 0 &&
		  (madt[48] & 1) && madt[44 + 8 * (ncpus - 1) + 3] == ncpus - 1,
	      "acpi_rsdp_fadt_madt");
	/* the PM timer the FADT names: 24 bits, 3.579545 MHz, counting */
	t0 = inl(fadt ? (uint16_t) * (const uint32_t *)(fadt + 76) : 0x608);
	for (i = 0; i < 100000; i++)
		__asm__ volatile("pause");
	t1 = inl(0x608);
	check(t0 < (1u << 24) && t1 < (1u << 24) && t1 != t0, "pm_timer_counts");
	/* legacy ports: PIC masks and POST codes taken, PCI "no device" */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	outb(0x80, 0x42);
	outl(0xcf8, 0x80000000u);
	check(inl(0xcfc) == 0xffffffffu && inb(0x80) == 0xff, "legacy_ports");
}

/*
 * A VMCALL (Intel) or VMMCALL (AMD) of mhv's guest ABI (hv/lib/guest_abi.h):
 * @nr in EAX, @arg in EDI; the result from EAX.
 */
static uint32_t hypercall(uint32_t nr, const void *arg)
{
	uint32_t a = 0, b, c, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d) : "c"(0));
	a = nr;
	if (b == 0x68747541) /* "Auth"enticAMD */
		__asm__ volatile("vmmcall" : "+a"(a) : "D"(arg), "S"(0) : "memory");
	else
		__asm__ volatile("vmcall" : "+a"(a) : "D"(arg), "S"(0) : "memory");
	return a;
}

/*
 * The result hypercalls are mhv's own guests' (issue 27, item 3): an
 * external guest is judged by its exit code alone, so what it reports
 * through them must be refused (HC_ERROR) and reach no line of mhv's
 * (no "mhv: PASS guests/forged_pass", no MHV-JSON row of forged_bench).
 */
static void check_results_refused(void)
{
	static struct hc_test_result t = { .name = "forged_pass",
					   .status = TEST_PASS,
					   .reason = "forged by mbtest" };
	static uint64_t sample = 1;
	static struct hc_bench_result r = {
		.name = "forged_bench", .nr_samples = 1, .iterations = 1, .unit = "cycles"
	};

	uint32_t test, bench;

	r.samples_gpa = (uint32_t)(uintptr_t)&sample;
	test = hypercall(HC_TEST_RESULT, &t);
	bench = hypercall(HC_BENCH_RESULT, &r);
	check(test == (uint32_t)HC_ERROR && bench == (uint32_t)HC_ERROR,
	      "result_hypercalls_refused");
}

unsigned mbtest_main(uint32_t magic, const struct mb_info *mbi)
{
	const char *cmdline;
	uint32_t a, b, c, d, cr0;

	puts("mbtest: starting\n");
#ifdef MBTEST_BIG
	ballast[0] = 1;
#endif
	check(magic == 0x2badb002, "boot_magic");
	check((mbi->flags & 0x5) == 0x5, "boot_info_flags");
	cmdline = (const char *)(uintptr_t)mbi->cmdline;
	check(starts_with(cmdline, "mbtest.elf"), "cmdline_program_name");
	if (arg(cmdline, "length=")) {
		uint32_t n = 0;

		while (cmdline[n])
			n++;
		check(n == arg(cmdline, "length="), "cmdline_length");
	}
	check(mbi->mem_lower == 640 && (mbi->mem_upper >> 10) + 1 == arg(cmdline, "mem="),
	      "mem_lower_upper");
	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	check((cr0 & 0x80000001) == 1, "protected_mode_paging_off");
	if (arg(cmdline, "module=")) {
		const struct mb_module *m = (const struct mb_module *)(uintptr_t)mbi->mods_addr;

		check((mbi->flags & 0x8) && mbi->mods_count == 1 &&
			  starts_with((const char *)(uintptr_t)m->start, "mbtest-module") &&
			  m->start % 4096 == 0,
		      "module_loaded");
	}
	check_platform(cmdline);
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
	check(a >= 1 && b, "cpuid");
	check_ud();
	check_results_refused();
	mbtest_apic(cmdline);
	puts("mbtest: ");
	putu(failures);
	puts(" failed before long mode\n");
	/* start.asm goes on into long mode, then exits (adding a failure there) */
	return failures ? failures : arg(cmdline, "exit=");
}
