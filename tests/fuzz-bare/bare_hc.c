// SPDX-License-Identifier: MIT
/*
 * The hypercalls of the fuzz guest's bare build (docs/fuzz.md): no
 * hypervisor answers them, this does.  Prints go to COM1, results become
 * "PASS name" lines, the exit code goes to the isa-debug-exit port, and
 * the seed comes from the multiboot command line ("seed=N").
 */
#include "rt.h"
#include "lib/fmt.h"

bool hypercall_by_port;
extern u32 bare_mbi;

static void serial_puts(const char *s, u64 n)
{
	u64 i;

	for (i = 0; i < n && s[i]; i++) {
		while (!(inb(GUEST_SERIAL_PORT + 5) & 0x20)) /* THR empty (16550 LSR) */
			;
		outb(GUEST_SERIAL_PORT, (u8)s[i]);
	}
}

/* "seed=N" in the multiboot command line (flags bit 2, cmdline at +16) */
static u32 cmdline_seed(void)
{
	const u32 *mbi = (const u32 *)(uintptr_t)bare_mbi;
	const char *c;
	u32 seed = 0;

	if (!mbi || !(mbi[0] & BIT(2)))
		return 41;
	for (c = (const char *)(uintptr_t)mbi[4]; *c; c++)
		if (c[0] == 's' && c[1] == 'e' && c[2] == 'e' && c[3] == 'd' && c[4] == '=') {
			for (c += 5; *c >= '0' && *c <= '9'; c++)
				seed = seed * 10 + (u32)(*c - '0');
			return seed;
		}
	return 41;
}

u64 hypercall(u64 nr, u64 a0, u64 a1)
{
	const struct hc_test_result *r = (const void *)(uintptr_t)a0;
	struct hc_params *p = (void *)(uintptr_t)a0;
	char line[HC_NAME_LEN + 16];
	int n;

	switch (nr) {
	case HC_PRINT:
		serial_puts((const char *)(uintptr_t)a0, a1);
		return 0;
	case HC_TEST_RESULT:
		n = fmt_snprintf(line, sizeof(line), "%s %s\n",
				 r->status == TEST_PASS ? "PASS" : "FAIL", r->name);
		serial_puts(line, (u64)n);
		return 0;
	case HC_TEST_WANTED:
		return 1;
	case HC_PARAMS:
		*p = (struct hc_params){ .variant = 2, .fuzz_seed = cmdline_seed() };
		return 0;
	case HC_EXIT:
		outl(GUEST_EXIT_PORT, (u32)a0);
		for (;;)
			asm volatile("cli; hlt");
	case HC_EXIT_COUNT:
		return 0;
	default:
		return HC_ERROR;
	}
}
