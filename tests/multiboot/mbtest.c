// SPDX-License-Identifier: MIT
/*
 * mbtest: a multiboot kernel that checks what mhv promises such a kernel
 * (issue 8's platform contract): the boot magic and information, the
 * command line, a module, the serial port, CPUID, #UD reaching its own IDT,
 * and the exit port.  Its exit code is the number of failed checks.
 */
#include <stdint.h>

#define COM1 0x3f8
#define EXIT_PORT 0xf4

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

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
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

static void puts(const char *s)
{
	while (*s)
		putc(*s++);
}

static void putu(uint32_t v)
{
	char buf[11];
	int i = 10;

	buf[i] = 0;
	do
		buf[--i] = (char)('0' + v % 10);
	while (v /= 10);
	puts(buf + i);
}

static void check(int ok, const char *name)
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
static uint32_t arg(const char *cmdline, const char *key)
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

/* A 32-bit IDT whose #UD gate is ours: the exception must reach it. */
static uint64_t idt[32] __attribute__((aligned(8)));

static void check_ud(void)
{
	uint32_t h = (uint32_t)(uintptr_t)ud_handler;
	uint16_t cs;
	struct {
		uint16_t limit;
		uint32_t base;
	} __attribute__((packed)) idtr = { sizeof(idt) - 1, (uint32_t)(uintptr_t)idt };

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	/* 32-bit interrupt gate (SDM Vol 3 §6.11): offset, selector, P, type 0xE */
	idt[6] = (h & 0xffff) | (uint64_t)cs << 16 | (uint64_t)0x8e00 << 32 |
		 (uint64_t)(h >> 16) << 48;
	__asm__ volatile("lidt %0; ud2" ::"m"(idtr) : "memory");
	check(ud_count == 1, "ud_reaches_guest_idt");
}

void mbtest_main(uint32_t magic, const struct mb_info *mbi)
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
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
	check(a >= 1 && b, "cpuid");
	check_ud();
	puts("mbtest: ");
	putu(failures);
	puts(" failed\n");
	outl(EXIT_PORT, failures);
	for (;;)
		__asm__ volatile("hlt");
}
