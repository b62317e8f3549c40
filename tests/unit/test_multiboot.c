// SPDX-License-Identifier: MIT
/* The multiboot loader: ELF32 and a.out-kludge kernels, boot information,
 * and a clear refusal for every malformed, truncated or oversized file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "loader/multiboot.h"

#define RAM (4u << 20)

static uint8_t ram[RAM], file[16384];
static char why[128];
static struct mb_kernel k;

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

/* An ELF32 kernel: one PT_LOAD of 0x100 file bytes, 0x1000 in memory, at
 * 1 MiB; the multiboot header at file offset 0x80 (inside the segment). */
static size_t make_elf(uint32_t paddr, uint32_t filesz, uint32_t memsz)
{
	uint8_t *ph = file + 52;

	memset(file, 0, sizeof(file));
	memcpy(file,
	       "\x7f"
	       "ELF",
	       4);
	file[4] = 1; /* 32-bit */
	file[5] = 1; /* little-endian */
	file[6] = 1;
	put16(file + 16, 2);		/* ET_EXEC */
	put16(file + 18, 3);		/* EM_386 */
	put32(file + 24, paddr + 0x10); /* entry */
	put32(file + 28, 52);		/* phoff */
	put16(file + 42, 32);		/* phentsize */
	put16(file + 44, 1);		/* phnum */
	put32(ph, 1);			/* PT_LOAD */
	put32(ph + 4, 0x80);		/* offset */
	put32(ph + 8, paddr);
	put32(ph + 12, paddr);
	put32(ph + 16, filesz);
	put32(ph + 20, memsz);
	put32(file + 0x80, 0x1badb002);
	put32(file + 0x84, 0);
	put32(file + 0x88, (uint32_t)-0x1badb002);
	file[0x80 + 0x10] = 0xf4; /* hlt at the entry */
	return 0x80 + filesz;
}

static int load(size_t size)
{
	memset(ram, 0, sizeof(ram));
	return multiboot_load(file, size, ram, RAM, &k, why, sizeof(why));
}

static void elf_kernel_loads(void **state)
{
	size_t n = make_elf(0x100000, 0x100, 0x1000);

	file[0x80 + 0x100 - 1] = 0x55;
	assert_int_equal(load(n), 0);
	assert_int_equal(k.entry, 0x100010);
	assert_int_equal(k.load_start, 0x100000);
	assert_int_equal(k.load_end, 0x101000);
	assert_int_equal(ram[0x100010], 0xf4);
	assert_int_equal(ram[0x1000ff], 0x55);
	assert_int_equal(ram[0x100100], 0); /* the BSS */
}

/* With no RAM the loader only checks: the same verdicts, nothing written. */
static void check_only(void **state)
{
	size_t n = make_elf(0x100000, 0x100, 0x1000);

	assert_int_equal(multiboot_load(file, n, NULL, RAM, &k, why, sizeof(why)), 0);
	assert_int_equal(k.load_end, 0x101000);
	n = make_elf(0x3ff000, 0x100, 0x2000);
	assert_int_equal(multiboot_load(file, n, NULL, RAM, &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "does not fit"));
}

static void aout_kludge_loads(void **state)
{
	/* header at offset 0, a.out addresses: load the whole file at 2 MiB */
	memset(file, 0, sizeof(file));
	put32(file, 0x1badb002);
	put32(file + 4, 1u << 16);
	put32(file + 8, (uint32_t) - (0x1badb002 + (1u << 16)));
	put32(file + 12, 0x200000); /* header_addr */
	put32(file + 16, 0x200000); /* load_addr */
	put32(file + 20, 0x200100); /* load_end_addr */
	put32(file + 24, 0x202000); /* bss_end_addr */
	put32(file + 28, 0x200020); /* entry */
	file[0x20] = 0xf4;
	assert_int_equal(load(0x100), 0);
	assert_int_equal(k.entry, 0x200020);
	assert_int_equal(k.load_end, 0x202000);
	assert_int_equal(ram[0x200020], 0xf4);
}

#define REFUSED(size, text)                         \
	do {                                        \
		assert_int_equal(load(size), -1);   \
		assert_non_null(strstr(why, text)); \
	} while (0)

static void bad_kernels_are_refused(void **state)
{
	size_t n = make_elf(0x100000, 0x100, 0x1000);

	REFUSED(n - 0x40, "truncated");
	memset(file + 0x80, 0, 12);
	REFUSED(n, "not a multiboot kernel");
	n = make_elf(0x100000, 0x100, 0x1000);
	put32(file + 0x88, 1); /* bad checksum */
	REFUSED(n, "not a multiboot kernel");
	n = make_elf(0x3ff000, 0x100, 0x2000); /* runs past 4 MiB */
	REFUSED(n, "does not fit");
	n = make_elf(0x9f000, 0x100, 0x2000); /* into the VGA hole at 640 KiB */
	REFUSED(n, "does not fit");
	n = make_elf(0xe0000, 0x100, 0x100); /* over the BIOS area and its ACPI tables */
	REFUSED(n, "does not fit");
	n = make_elf(0x100000, 0x100, 0x80); /* filesz > memsz */
	REFUSED(n, "larger on disk");
	n = make_elf(0x100000, 0x100, 0x1000);
	put16(file + 18, 62); /* x86-64 */
	REFUSED(n, "i386");
	n = make_elf(0x100000, 0x100, 0x1000);
	put16(file + 44, 400); /* program headers past the end */
	REFUSED(n, "program headers");
	n = make_elf(0x100000, 0x100, 0x1000);
	put32(file + 24, 0x300000); /* entry outside the image */
	REFUSED(n, "entry point");
	n = make_elf(0x100000, 0x100, 0x1000);
	put32(file + 0x84, 4); /* wants a video mode */
	put32(file + 0x88, (uint32_t) - (0x1badb002 + 4));
	REFUSED(n, "does not offer");
	REFUSED(8, "not a multiboot kernel");
}

static void boot_info_and_modules(void **state)
{
	static const uint8_t mod[3] = { 1, 2, 3 };
	struct mb_module_file m = { mod, 3, "initrd" };
	uint32_t v;
	size_t n = make_elf(0x100000, 0x100, 0x1800);

	assert_int_equal(load(n), 0);
	assert_int_equal(
	    multiboot_write_info(ram, RAM, &k, "vmexit.flat cpuid", &m, 1, why, sizeof(why)), 0);
	assert_int_equal(k.info, MB_INFO_GPA);
	memcpy(&v, ram + MB_INFO_GPA, 4);
	assert_int_equal(v, 1 | 4 | 8 | 64); /* mem, cmdline, mods, mmap */
	memcpy(&v, ram + MB_INFO_GPA + 8, 4);
	assert_int_equal(v, (RAM - 0x100000) >> 10); /* mem_upper in KiB */
	memcpy(&v, ram + MB_INFO_GPA + 16, 4);
	assert_string_equal((char *)ram + v, "vmexit.flat cpuid");
	memcpy(&v, ram + MB_INFO_GPA + 20, 4);
	assert_int_equal(v, 1);
	memcpy(&v, ram + MB_INFO_GPA + MB_MODS_OFF, 4); /* after the kernel, page-aligned */
	assert_int_equal(v, 0x102000);
	assert_memory_equal(ram + v, mod, 3);
	memcpy(&v, ram + MB_INFO_GPA + MB_MODS_OFF + 8, 4);
	assert_string_equal((char *)ram + v, "initrd");
	m.size = RAM; /* too large */
	assert_int_equal(multiboot_write_info(ram, RAM, &k, "", &m, 1, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "does not fit"));
}

/* The memory map: RAM below 640 KiB, the BIOS area reserved, RAM from 1 MiB. */
static void memory_map(void **state)
{
	static const uint64_t want[][3] = { { 0, 0xa0000, 1 },
					    { 0xe0000, 0x20000, 2 },
					    { 0x100000, RAM - 0x100000, 1 } };
	uint32_t v, len, addr, size, type;
	uint64_t base, n64;
	size_t n = make_elf(0x100000, 0x100, 0x1000);
	unsigned i;

	assert_int_equal(load(n), 0);
	assert_int_equal(multiboot_write_info(ram, RAM, &k, "", NULL, 0, why, sizeof(why)), 0);
	memcpy(&v, ram + k.info + 4, 4);
	assert_int_equal(v, 640); /* mem_lower, KiB */
	memcpy(&len, ram + k.info + 44, 4);
	memcpy(&addr, ram + k.info + 48, 4);
	assert_int_equal(len, 3 * 24);
	for (i = 0; i < 3; i++, addr += 24) {
		memcpy(&size, ram + addr, 4);
		memcpy(&base, ram + addr + 4, 8);
		memcpy(&n64, ram + addr + 12, 8);
		memcpy(&type, ram + addr + 20, 4);
		assert_int_equal(size, 20);
		assert_int_equal(base, want[i][0]);
		assert_int_equal(n64, want[i][1]);
		assert_int_equal(type, want[i][2]);
	}
}

/* A real-mode kernel below 640 KiB: loaded there, the boot information
 * moved off it to the next free page, a module above 1 MiB when low
 * memory has no room for it. */
static void low_kernel(void **state)
{
	static uint8_t big[0x98000];
	struct mb_module_file m = { big, sizeof(big), "big" };
	uint32_t v;
	size_t n = make_elf(0x8000, 0x100, 0x5a30); /* 0x8000..0xda30, over 0x9000 */

	assert_int_equal(load(n), 0);
	assert_int_equal(ram[0x8010], 0xf4);
	assert_int_equal(multiboot_write_info(ram, RAM, &k, "rm", &m, 1, why, sizeof(why)), 0);
	assert_int_equal(k.info, 0xe000);
	assert_int_equal(ram[0x8010], 0xf4); /* the kernel untouched */
	memcpy(&v, ram + k.info + 16, 4);
	assert_string_equal((char *)ram + v, "rm");
	memcpy(&v, ram + k.info + MB_MODS_OFF, 4);
	assert_int_equal(v, 0x100000);
	/* a small module stays in low memory, after the boot information */
	m.size = 0x100;
	assert_int_equal(multiboot_write_info(ram, RAM, &k, "rm", &m, 1, why, sizeof(why)), 0);
	memcpy(&v, ram + k.info + MB_MODS_OFF, 4);
	assert_int_equal(v, 0xf000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(elf_kernel_loads),
		cmocka_unit_test(aout_kludge_loads),
		cmocka_unit_test(check_only),
		cmocka_unit_test(bad_kernels_are_refused),
		cmocka_unit_test(boot_info_and_modules),
		cmocka_unit_test(memory_map),
		cmocka_unit_test(low_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
