// SPDX-License-Identifier: MIT
/* The Linux boot protocol loader: a hand-built bzImage header with the
 * Debian 6.1 kernel's field values, the real Debian image when make
 * linux-guest fetched it, and a clear refusal for every malformed one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/guest_abi.h"
#include "loader/linux_boot.h"

#define RAM (16u << 20)
#define SETUP_SECTS 39
#define PM_OFF ((SETUP_SECTS + 1) * 512)
#define PM_SIZE 0x3000u

static uint8_t ram[RAM], file[PM_OFF + PM_SIZE], initrd[0x1800];
static char why[160];
static struct linux_kernel k;

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Protocol 2.15 as Debian's 6.1 cloud kernel has it, loading at 4 MiB. */
static size_t make_bzimage(void)
{
	memset(file, 0, sizeof(file));
	file[0x1f1] = SETUP_SECTS;
	put32(file + 0x1f4, PM_SIZE / 16); /* syssize */
	put16(file + 0x1fe, 0xaa55);
	file[0x200] = 0xeb; /* jmp short to 0x202 + 0x6a: the header's end */
	file[0x201] = 0x6a;
	memcpy(file + 0x202, "HdrS", 4);
	put16(file + 0x206, 0x020f);
	file[0x211] = 0x01;		 /* LOADED_HIGH */
	put32(file + 0x214, 0x100000);	 /* code32_start */
	put32(file + 0x22c, 0x7fffffff); /* initrd_addr_max */
	put32(file + 0x230, 0x200000);	 /* kernel_alignment */
	file[0x234] = 1;		 /* relocatable */
	put16(file + 0x236, 0x7f);	 /* xloadflags: XLF_KERNEL_64 and more */
	put32(file + 0x238, 0x7ff);	 /* cmdline_size */
	put64(file + 0x258, 4u << 20);	 /* pref_address */
	put32(file + 0x260, 0x100000);	 /* init_size */
	file[PM_OFF + 0x200] = 0xf4;	 /* hlt at the 64-bit entry */
	return sizeof(file);
}

static void loads_and_fills_the_zero_page(void **state)
{
	const uint8_t *bp = ram + LINUX_BOOT_PARAMS;
	size_t size = make_bzimage();
	const uint8_t *e820;

	memset(ram, 0xcc, sizeof(ram));
	memset(initrd, 0x5a, sizeof(initrd));
	assert_true(linux_is_bzimage(file, size));
	assert_int_equal(linux_load(file, size, initrd, sizeof(initrd), "console=ttyS0", ram, RAM,
				    &k, why, sizeof(why)),
			 0);
	assert_int_equal(k.load, 4u << 20);
	assert_int_equal(k.entry, (4u << 20) + 0x200);
	assert_int_equal(k.version, 0x020f);
	assert_int_equal(ram[k.entry], 0xf4);
	/* the initrd at the top of RAM, page-aligned */
	assert_int_equal(k.initrd, (RAM - sizeof(initrd)) & ~0xfffu);
	assert_memory_equal(ram + k.initrd, initrd, sizeof(initrd));
	/* zero page: header copied, loader type, pointers */
	assert_memory_equal(bp + 0x202, "HdrS", 4);
	assert_int_equal(bp[0x210], 0xff);
	assert_int_equal(get32(bp + 0x228), LINUX_CMDLINE);
	assert_string_equal((const char *)ram + LINUX_CMDLINE, "console=ttyS0");
	assert_int_equal(get32(bp + 0x218), k.initrd);
	assert_int_equal(get32(bp + 0x21c), sizeof(initrd));
	assert_int_equal(bp[0x000], 0); /* zeroed outside the header */
	/* E820: low RAM, the BIOS area reserved, RAM from 1 MiB */
	assert_int_equal(bp[0x1e8], 3);
	e820 = bp + 0x2d0;
	assert_int_equal(get64(e820), 0);
	assert_int_equal(get64(e820 + 8), 0xa0000);
	assert_int_equal(get32(e820 + 16), 1);
	assert_int_equal(get64(e820 + 20), 0xe0000);
	assert_int_equal(get32(e820 + 36), 2);
	assert_int_equal(get64(e820 + 40), 0x100000);
	assert_int_equal(get64(e820 + 48), RAM - 0x100000);
	assert_int_equal(get32(e820 + 56), 1);
	/* identity map and the protocol's GDT: 0x10 code, 0x18 data */
	assert_int_equal(get64(ram + GUEST_PML4) & ~0xfffull, GUEST_PDPT);
	assert_int_equal(get64(ram + GUEST_PD + 8 * 3), (3ull << 21) | 0x83);
	assert_int_equal(get64(ram + GUEST_GDT + GUEST_BOOT64_CS), 0x00af9a000000ffffull);
	assert_int_equal(get64(ram + GUEST_GDT + GUEST_BOOT64_DS), 0x00cf92000000ffffull);
	linux_set_rsdp(ram, 0xe0000);
	assert_int_equal(get64(bp + 0x70), 0xe0000);
}

static void no_initrd(void **state)
{
	size_t size = make_bzimage();

	assert_int_equal(linux_load(file, size, NULL, 0, "", ram, RAM, &k, why, sizeof(why)), 0);
	assert_int_equal(k.initrd, 0);
	assert_int_equal(get32(ram + LINUX_BOOT_PARAMS + 0x21c), 0);
}

struct corruption {
	unsigned off, len;
	uint64_t value;
	const char *reason;
};

static void bad_images_are_refused(void **state)
{
	static const struct corruption bad[] = {
		{ 0x1fe, 2, 0x1234, "not a Linux bzImage" },
		{ 0x202, 4, 0x53726449, "not a Linux bzImage" },
		{ 0x206, 2, 0x020b, "2.11: mhv needs 2.12" },
		{ 0x201, 1, 0x10, "setup header truncated" },
		{ 0x211, 1, 0, "a zImage" },
		{ 0x236, 2, 0x7e, "no 64-bit entry" },
		{ 0x1f4, 4, PM_SIZE / 16 + 1, "truncated" },
		{ 0x1f1, 1, 200, "truncated" },
		{ 0x230, 4, 0x300000, "alignment" },
		{ 0x258, 8, 0x201000, "preferred address" },
		{ 0x258, 8, 0x0, "preferred address" },
		{ 0x260, 4, 0x100, "init_size" },
		{ 0x260, 4, RAM, "in RAM: guest RAM is 16 MiB" },
		{ 0x258, 8, 0xfffffffffe000000ull, "in RAM" },
	};
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t size = make_bzimage();

		memcpy(file + bad[i].off, &bad[i].value, bad[i].len);
		why[0] = 0;
		assert_int_equal(
		    linux_load(file, size, NULL, 0, "", NULL, RAM, &k, why, sizeof(why)), -1);
		if (!strstr(why, bad[i].reason))
			fail_msg("corruption %u: \"%s\" lacks \"%s\"", i, why, bad[i].reason);
	}
	/* cut short anywhere: refused, never read past the end */
	make_bzimage();
	for (i = 0; i < 0x264; i += 7)
		assert_int_equal(linux_load(file, i, NULL, 0, "", NULL, RAM, &k, why, sizeof(why)),
				 -1);
}

/*
 * A file cut short inside the setup header, each in a heap block of its
 * own size, so that ASan sees a read past its end: 0x206 and 0x207 bytes
 * hold the boot flag and "HdrS" but not the version at 0x206-0x207.
 */
static void short_file_read_within(void **state)
{
	size_t n;

	make_bzimage();
	for (n = 0; n < 0x264; n++) {
		uint8_t *cut = malloc(n ? n : 1);

		assert_non_null(cut);
		memcpy(cut, file, n);
		why[0] = 0;
		assert_int_equal(linux_load(cut, n, NULL, 0, "", NULL, RAM, &k, why, sizeof(why)),
				 -1);
		if (n >= 0x206 && !strstr(why, "truncated"))
			fail_msg("%zu bytes: \"%s\" lacks \"truncated\"", n, why);
		free(cut);
	}
}

static void command_line_and_initrd_limits(void **state)
{
	static char cmd[0x900];
	size_t size = make_bzimage();

	memset(cmd, 'a', sizeof(cmd) - 1);
	assert_int_equal(linux_load(file, size, NULL, 0, cmd, NULL, RAM, &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "command line"));
	/* an initrd that would overlap the kernel's init_size */
	assert_int_equal(linux_load(file, size, initrd, RAM - (5u << 20) + 1, "", NULL, RAM, &k,
				    why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "initrd"));
	/* initrd_addr_max below the top of RAM */
	put32(file + 0x22c, (8u << 20) - 1);
	assert_int_equal(
	    linux_load(file, size, initrd, sizeof(initrd), "", NULL, RAM, &k, why, sizeof(why)), 0);
	assert_int_equal(k.initrd, ((8u << 20) - sizeof(initrd)) & ~0xfffu);
}

/* The Debian kernel make linux-guest fetched (LINUX_VMLINUZ or the build
 * folder), checked for a 256 MiB guest; skipped when absent. */
static void real_debian_image(void **state)
{
	const char *path =
	    getenv("LINUX_VMLINUZ") ? getenv("LINUX_VMLINUZ") : "build/linux-guest/vmlinuz";
	FILE *f = fopen(path, "rb");
	static uint8_t img[64u << 20];
	size_t n;

	if (!f) {
		skip();
		return;
	}
	n = fread(img, 1, sizeof(img), f);
	fclose(f);
	assert_true(linux_is_bzimage(img, n));
	assert_int_equal(linux_load(img, n, img, 32u << 20, "console=ttyS0", NULL, 256u << 20, &k,
				    why, sizeof(why)),
			 0);
	assert_true(k.version >= 0x020c);
	assert_int_equal(k.entry, k.load + 0x200);
	/* and refused when its init_size does not fit */
	assert_int_equal(linux_load(img, n, NULL, 0, "", NULL, 32u << 20, &k, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "init_size"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loads_and_fills_the_zero_page),
		cmocka_unit_test(no_initrd),
		cmocka_unit_test(bad_images_are_refused),
		cmocka_unit_test(short_file_read_within),
		cmocka_unit_test(command_line_and_initrd_limits),
		cmocka_unit_test(real_debian_image),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
