// SPDX-License-Identifier: MIT
/* ACPI tables as mhv reads them: table lookup through the XSDT/RSDT, the
 * MADT's CPUs, the SPCR's UART (and the 16550 divisor for its clock), the
 * HPET's registers (and the arithmetic of calibrating the TSC against it);
 * malformed tables are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "platform/acpi.h"
#include "platform/hpet.h"
#include "lib/mem_map.h"
#include "arch/apic.h"
#include "arch/uart.h"
#include "tests/common/acpi_build.h"

/* room for 1100 x2APIC entries: more CPUs than the 1024 mhv supports */
static uint8_t madt[44 + 16 * 1100], spcr[96], hpet[56], xsdt[64];
static uint8_t rsdp[36];

#define fix_checksum acpi_build_checksum
#define header acpi_build_header

static size_t madt_len;
static uint8_t madt_rev;

static void madt_begin(void)
{
	memset(madt, 0, sizeof(madt));
	madt_len = 44;
	madt_rev = 1;
}

static void madt_add(const uint8_t *e, size_t n)
{
	memcpy(madt + madt_len, e, n);
	madt_len += n;
}

static void madt_lapic(uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t e[8] = { 0, 8, uid, id };

	memcpy(e + 4, &flags, 4);
	madt_add(e, 8);
}

static void madt_x2apic(uint32_t id, uint32_t flags)
{
	uint8_t e[16] = { 9, 16 };

	memcpy(e + 4, &id, 4);
	memcpy(e + 8, &flags, 4);
	madt_add(e, 16);
}

/* RSDP (rev 2) -> XSDT -> MADT, SPCR, HPET, with valid checksums. */
static uint64_t build_tables(void)
{
	uint8_t *tables[] = { madt, spcr, hpet };

	header(madt, "APIC", (uint32_t)madt_len);
	madt[8] = madt_rev;
	fix_checksum(madt, madt_len, 9);
	return acpi_build_root(rsdp, xsdt, tables, 3);
}

static void test_madt_cpus(void **state)
{
	u32 ids[8];
	uint64_t r;

	madt_begin();
	madt_rev = 5;
	madt_lapic(0, 0, 1);
	madt_lapic(1, 2, 1);
	madt_lapic(2, 4, 0);	/* disabled: left out */
	madt_lapic(3, 6, 2);	/* online-capable (revision 5): counted */
	madt_x2apic(2, 1);	/* same CPU as APIC ID 2: once */
	madt_x2apic(0x1000, 1); /* beyond 8-bit IDs */
	{
		uint8_t ioapic[12] = { 1, 12 };

		madt_add(ioapic, 12); /* other entry types are skipped */
	}
	r = build_tables();
	assert_int_equal(acpi_madt_cpus(acpi_find_table(r, "APIC"), ids, 8), 4);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 2);
	assert_int_equal(ids[2], 6);
	assert_int_equal(ids[3], 0x1000);
	/* at most max */
	assert_int_equal(acpi_madt_cpus(madt, ids, 2), 2);
}

/*
 * Online Capable (flags bit 1) exists from MADT revision 5 (ACPI 6.3);
 * before, the bit is reserved: a CPU with it set and Enabled clear is
 * not there, and starting it would cost 1.2 s of INIT-SIPI time-outs.
 */
static void test_madt_online_capable_by_revision(void **state)
{
	u32 ids[8];
	uint8_t rev;

	for (rev = 1; rev <= 6; rev++) {
		madt_begin();
		madt_rev = rev;
		madt_lapic(0, 0, 1);
		madt_lapic(1, 1, 2);   /* bit 1 set, Enabled clear */
		madt_x2apic(0x300, 2); /* the same in an x2APIC entry */
		madt_lapic(2, 2, 3);   /* both: enabled whatever the revision */
		build_tables();
		assert_int_equal(acpi_madt_revision(madt), rev);
		assert_int_equal(acpi_madt_cpu_entries(madt), 4);
		if (rev < 5) {
			assert_int_equal(acpi_madt_cpus(madt, ids, 8), 2);
			assert_int_equal(ids[1], 2);
		} else {
			assert_int_equal(acpi_madt_cpus(madt, ids, 8), 4);
			assert_int_equal(ids[1], 1);
			assert_int_equal(ids[2], 0x300);
		}
	}
}

/* A two-socket Turin: 512 x2APIC entries, IDs spread up to 0x11ff,
 * then each also listed again as a (truncated) APIC entry by a buggy
 * table: the x2APIC IDs are kept whole, and none is counted twice. */
static void test_madt_600_cpus_x2apic(void **state)
{
	static u32 ids[1100];
	unsigned i, n = 600;

	madt_begin();
	madt_rev = 5;
	for (i = 0; i < n; i++)
		madt_x2apic(i < 300 ? i : 0x1000 + i, 1);
	for (i = 0; i < 200; i++)
		madt_x2apic(i, 1); /* duplicates of the first 200 */
	build_tables();
	assert_int_equal(acpi_madt_cpu_entries(madt), 800);
	assert_int_equal(acpi_madt_cpus(madt, ids, 1100), 600);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[255], 255);
	assert_int_equal(ids[256], 256);
	assert_int_equal(ids[299], 299);
	assert_int_equal(ids[300], 0x1000 + 300);
	assert_int_equal(ids[599], 0x1000 + 599);
	assert_true(apic_ids_need_x2apic(ids, 600));
	/* a short array keeps the first ones */
	assert_int_equal(acpi_madt_cpus(madt, ids, 64), 64);
	assert_int_equal(ids[63], 63);
}

/* xAPIC addresses IDs 0..0xFE (0xFF is its broadcast): x2APIC from 0xFF. */
static void test_x2apic_decision(void **state)
{
	u32 ids[300];
	unsigned i;

	madt_begin();
	for (i = 0; i < 255; i++)
		madt_lapic((uint8_t)i, (uint8_t)i, 1);
	build_tables();
	assert_int_equal(acpi_madt_cpus(madt, ids, 300), 255);
	assert_false(apic_ids_need_x2apic(ids, 255)); /* IDs 0..254 */
	madt_x2apic(0xff, 1);
	build_tables();
	assert_int_equal(acpi_madt_cpus(madt, ids, 300), 256);
	assert_true(apic_ids_need_x2apic(ids, 256));
	/* a disabled CPU's ID does not count */
	madt_begin();
	madt_lapic(0, 0, 1);
	madt_x2apic(0x100, 0);
	build_tables();
	assert_int_equal(acpi_madt_cpus(madt, ids, 300), 1);
	assert_false(apic_ids_need_x2apic(ids, 1));
	assert_false(apic_ids_need_x2apic(ids, 0));
}

/*
 * The broadcast IDs are no CPU's: x2APIC ID 0xFFFFFFFF (SDM Vol 3
 * §11.12.9) and, in a Local APIC entry, xAPIC ID 0xFF (§11.6.2.1).  An
 * INIT sent to one reaches every CPU, the boot CPU included: such entries
 * are left out and named.  0xFF in an x2APIC entry is an ordinary ID.
 */
static void test_madt_broadcast_ids(void **state)
{
	struct acpi_madt_bogus bogus;
	u32 ids[8];

	madt_begin();
	madt_lapic(0, 0, 1);
	madt_x2apic(0xffffffffu, 1); /* at offset 52 */
	madt_lapic(1, 0xff, 1);
	madt_x2apic(0xff, 1);
	madt_x2apic(0xffffffffu, 0); /* disabled: never a CPU anyway */
	build_tables();
	assert_int_equal(acpi_madt_cpus(madt, ids, 8), 2);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 0xff);
	assert_int_equal(acpi_madt_bogus(madt, &bogus), 2);
	assert_int_equal(bogus.n, 2);
	assert_int_equal(bogus.offset, 52);
	assert_int_equal(bogus.type, 9);
	assert_int_equal(bogus.id, 0xffffffffu);
	/* a good table has none */
	madt_begin();
	madt_lapic(0, 0, 1);
	build_tables();
	assert_int_equal(acpi_madt_bogus(madt, &bogus), 0);
	assert_int_equal(acpi_madt_bogus(NULL, &bogus), 0);
}

static void test_madt_malformed(void **state)
{
	u32 ids[8];

	madt_begin();
	madt_lapic(0, 0, 1);
	{
		uint8_t bad[4] = { 0, 40 }; /* runs past the end */

		madt_add(bad, 4);
	}
	build_tables();
	assert_int_equal(acpi_madt_cpus(madt, ids, 8), -1);
	madt_begin();
	{
		uint8_t zero[4] = { 0, 0 }; /* length 0 would loop forever */

		madt_add(zero, 4);
	}
	build_tables();
	assert_int_equal(acpi_madt_cpus(madt, ids, 8), -1);
	assert_int_equal(acpi_madt_cpus(NULL, ids, 8), -1);
}

static void test_checksums(void **state)
{
	uint64_t r;

	madt_begin();
	madt_lapic(0, 0, 1);
	r = build_tables();
	assert_non_null(acpi_find_table(r, "APIC"));
	assert_null(acpi_find_table(r, "FACP"));
	madt[10] ^= 1; /* a table with a bad checksum is not found */
	assert_null(acpi_find_table(r, "APIC"));
	build_tables();
	rsdp[1] ^= 1; /* nor through a bad RSDP */
	assert_null(acpi_find_table(r, "APIC"));
	assert_null(acpi_find_table(0, "APIC"));
}

/*
 * One page below 4 GiB (an ACPI 1.0 RSDT holds 32-bit addresses), laid
 * out as firmware would: RSDP at 0, the root table at 64, a MADT at 256.
 */
#define LOW_ROOT 64
#define LOW_MADT 256
static uint8_t *low;

static uint8_t *low_page(void)
{
	if (!low)
		low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	assert_true(low != MAP_FAILED);
	memset(low, 0, 4096);
	return low;
}

/* RSDP -> root ("RSDT" with 4-byte entries when rev is 0, else "XSDT")
 * -> one MADT with a CPU, in the low page, checksums right; the root's
 * length field then set to root_len and its checksum made right for it. */
static uint64_t build_low(uint8_t rev, uint32_t root_len)
{
	uint8_t *p = low_page(), *root = p + LOW_ROOT, *m = p + LOW_MADT;
	uint32_t madt32 = (uint32_t)(uintptr_t)m, root32 = (uint32_t)(uintptr_t)root;
	uint64_t madt64 = madt32, root64 = root32;
	unsigned esize = rev ? 8 : 4;

	acpi_build_header(m, "APIC", 52);
	memcpy(m + 44, "\x00\x08\x00\x00\x01\x00\x00\x00", 8); /* Local APIC 0, enabled */
	acpi_build_checksum(m, 52, 9);
	acpi_build_header(root, rev ? "XSDT" : "RSDT", 36 + esize);
	memcpy(root + 36, rev ? (void *)&madt64 : (void *)&madt32, esize);
	acpi_build_checksum(root, 36 + esize, 9);
	memcpy(p, "RSD PTR ", 8);
	p[15] = rev;
	memcpy(p + 16, &root32, 4);
	if (rev)
		memcpy(p + 24, &root64, 8);
	acpi_build_checksum(p, 20, 8);
	memcpy(root + 4, &root_len, 4);
	if (root_len > 9 && root_len < 4096 - LOW_ROOT)
		acpi_build_checksum(root, root_len, 9);
	return (uintptr_t)p;
}

/*
 * A root table shorter than its own header: a length below 36 sums to 0
 * over no bytes (length 0) or passes over a few, and (length - 36) / 8
 * entries wraps to half a billion: the walk must not read one.
 */
static void test_root_shorter_than_header(void **state)
{
	uint32_t len;
	uint8_t rev;

	for (rev = 0; rev <= 2; rev += 2) {
		assert_non_null(acpi_find_table(build_low(rev, rev ? 44 : 40), "APIC"));
		/* a table that is not there: the walk would go on past the page */
		assert_null(acpi_find_table(build_low(rev, 0), "HPET"));
		for (len = 0; len < 36; len++)
			assert_null(acpi_find_table(build_low(rev, len), "APIC"));
		/* a header alone: no entries, nothing found, nothing read */
		assert_null(acpi_find_table(build_low(rev, 36), "APIC"));
	}
}

/* Lengths no table mhv reads can have: refused before a byte past the
 * header is read (the checksum alone would read up to 4 GiB of whatever
 * lies there, device registers included). */
static void test_table_length_bounds(void **state)
{
	static const uint32_t bad[] = { 0, 1, 35, ACPI_TABLE_MAX + 1, 0x80000000u, 0xffffffffu };
	uint64_t r;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		/* the MADT's length (its checksum was right for 52 bytes) */
		r = build_low(2, 44);
		memcpy(low + LOW_MADT + 4, &bad[i], 4);
		assert_null(acpi_find_table(r, "APIC"));
		/* the XSDT's */
		assert_null(acpi_find_table(build_low(2, bad[i]), "APIC"));
	}
}

/* What the host's page tables map (acpi_set_mapped): one window. */
static uint64_t window_base, window_end;

static bool in_window(u64 pa, u64 len)
{
	return pa >= window_base && pa < window_end && len <= window_end - pa;
}

/* A header, or a whole table, outside what is mapped is not read. */
static void test_tables_bounded_by_the_mapping(void **state)
{
	uint64_t r = build_low(2, 44), base = r;

	acpi_set_mapped(in_window);
	window_base = base;
	window_end = base + 4096;
	assert_non_null(acpi_find_table(r, "APIC"));
	/* the MADT's last byte not mapped */
	window_end = base + LOW_MADT + 51;
	assert_null(acpi_find_table(r, "APIC"));
	/* the MADT's header not mapped: its signature is not even looked at */
	window_end = base + LOW_MADT + 20;
	assert_null(acpi_find_table(r, "APIC"));
	/* the XSDT's header mapped, its entry not */
	window_end = base + LOW_ROOT + 40;
	assert_null(acpi_find_table(r, "APIC"));
	/* the RSDP not mapped */
	window_base = base + 1;
	window_end = base + 4096;
	assert_null(acpi_find_table(r, "APIC"));
	acpi_set_mapped(NULL);
	assert_non_null(acpi_find_table(r, "APIC"));
}

static void test_spcr(void **state)
{
	struct acpi_spcr_uart u;
	uint64_t base = 0xfedc9000, r;

	memset(spcr, 0, sizeof(spcr));
	header(spcr, "SPCR", 80);
	spcr[40] = 0;  /* system memory */
	spcr[41] = 32; /* 32-bit registers */
	spcr[43] = 3;  /* dword access */
	memcpy(spcr + 44, &base, 8);
	spcr[58] = 7; /* 115200 */
	fix_checksum(spcr, 80, 9);
	madt_begin();
	r = build_tables();
	assert_int_equal(acpi_find_spcr(r, &u, NULL), 0);
	assert_int_equal(u.io_port, 0);
	assert_int_equal(u.mmio_base, base);
	assert_int_equal(u.reg_width, 4);
	assert_int_equal(u.baud, 115200);

	spcr[40] = 1; /* system I/O */
	base = 0x2f8;
	memcpy(spcr + 44, &base, 8);
	spcr[41] = 8;
	spcr[58] = 3; /* 9600 */
	fix_checksum(spcr, 80, 9);
	assert_int_equal(acpi_find_spcr(r, &u, NULL), 0);
	assert_int_equal(u.io_port, 0x2f8);
	assert_int_equal(u.reg_width, 1);
	assert_int_equal(u.baud, 9600);

	spcr[58] = 0; /* "as is": the firmware's setting stays */
	fix_checksum(spcr, 80, 9);
	assert_int_equal(acpi_find_spcr(r, &u, NULL), 0);
	assert_int_equal(u.baud, 0);

	spcr[40] = 2; /* PCI config space: not a UART mhv can drive */
	fix_checksum(spcr, 80, 9);
	assert_int_equal(acpi_find_spcr(r, &u, NULL), -1);
}

/* An SPCR of this revision and length for a 16550 of this interface type
 * (DBG2 subtype) at MMIO 0xfedc9000, 32-bit registers, 115200. */
static uint64_t build_spcr(uint8_t revision, uint32_t len, uint8_t type)
{
	uint64_t base = 0xfedc9000;

	memset(spcr, 0, sizeof(spcr));
	header(spcr, "SPCR", len);
	spcr[8] = revision;
	spcr[36] = type;
	spcr[40] = 0;  /* system memory */
	spcr[41] = 32; /* 32-bit registers */
	spcr[43] = 3;  /* dword access */
	memcpy(spcr + 44, &base, 8);
	spcr[58] = 7; /* 115200 */
	fix_checksum(spcr, len, 9);
	madt_begin();
	return build_tables();
}

static void set_u32(size_t at, uint32_t v, uint32_t len)
{
	memcpy(spcr + at, &v, 4);
	fix_checksum(spcr, len, 9);
}

static void test_spcr_revisions(void **state)
{
	struct acpi_spcr_uart u;
	const char *why = NULL;
	uint64_t r;

	/* revision 2: no clock, so the console keeps the firmware's divisor */
	r = build_spcr(2, 80, 0x00);
	set_u32(76, 48000000, 80); /* reserved in revision 2: not read */
	assert_int_equal(acpi_find_spcr(r, &u, &why), 0);
	assert_int_equal(u.revision, 2);
	assert_int_equal(u.clock_hz, 0);
	assert_int_equal(u.baud, 115200);

	/* revision 3: AMD's FCH UART runs from 48 MHz */
	r = build_spcr(3, 80, 0x12);
	set_u32(76, 48000000, 80);
	assert_int_equal(acpi_find_spcr(r, &u, &why), 0);
	assert_int_equal(u.clock_hz, 48000000);
	assert_int_equal(u.baud, 115200);
	assert_int_equal(u.mmio_base, 0xfedc9000);
	assert_int_equal(u.reg_width, 4);
	assert_int_equal(uart_divisor(u.clock_hz, u.baud), 26);

	/* revision 4: a precise baud rate overrides the configured one */
	r = build_spcr(4, 88, 0x12);
	set_u32(76, 48000000, 88);
	set_u32(80, 1500000, 88);
	assert_int_equal(acpi_find_spcr(r, &u, &why), 0);
	assert_int_equal(u.baud, 1500000);
	assert_int_equal(uart_divisor(u.clock_hz, u.baud), 2);
	set_u32(80, 0, 88); /* 0: the configured one stands */
	assert_int_equal(acpi_find_spcr(r, &u, &why), 0);
	assert_int_equal(u.baud, 115200);
	/* revision 4 cut off before the precise baud rate: not read */
	r = build_spcr(4, 80, 0x12);
	memcpy(spcr + 80, "\x60\xe3\x16\x00", 4); /* 1500000, past the table's end */
	set_u32(76, 48000000, 80);
	assert_int_equal(acpi_find_spcr(r, &u, &why), 0);
	assert_int_equal(u.baud, 115200);

	/* byte registers: bit width 8, byte access */
	r = build_spcr(2, 80, 0x01);
	spcr[41] = 8;
	spcr[43] = 1;
	fix_checksum(spcr, 80, 9);
	assert_int_equal(acpi_find_spcr(r, &u, &why), 0);
	assert_int_equal(u.reg_width, 1);

	/* not a 16550: an ARM PL011 (subtype 0x03), an SBSA UART (0x0e) */
	r = build_spcr(2, 80, 0x03);
	assert_int_equal(acpi_find_spcr(r, &u, &why), -1);
	assert_string_equal(why, "ACPI SPCR names a UART that is not a 16550");
	r = build_spcr(2, 80, 0x0e);
	assert_int_equal(acpi_find_spcr(r, &u, &why), -1);

	/* base address 0: redirection off (SPCR: "0 if console redirection is disabled") */
	r = build_spcr(2, 80, 0x00);
	memset(spcr + 44, 0, 8);
	fix_checksum(spcr, 80, 9);
	assert_int_equal(acpi_find_spcr(r, &u, &why), -1);
	assert_string_equal(why, "ACPI SPCR names no UART in I/O or memory space");

	r = build_spcr(2, 76, 0x00);
	assert_int_equal(acpi_find_spcr(r, &u, &why), -1);
	assert_string_equal(why, "ACPI SPCR table shorter than 80 bytes");

	madt_begin();
	r = build_tables();
	assert_int_equal(
	    acpi_find_spcr(acpi_build_root(rsdp, xsdt, (uint8_t *[]){ madt }, 1), &u, &why), -1);
	assert_string_equal(why, "no ACPI SPCR table");
}

/* baud = clock / (16 * divisor), to the nearest divisor, within 2% */
static void test_uart_divisor(void **state)
{
	assert_int_equal(uart_divisor(UART_PC_CLOCK_HZ, 115200), 1);
	assert_int_equal(uart_divisor(UART_PC_CLOCK_HZ, 9600), 12);
	assert_int_equal(uart_divisor(UART_PC_CLOCK_HZ, 57600), 2);
	assert_int_equal(uart_divisor(UART_PC_CLOCK_HZ, 50), 2304);
	/* 48 MHz: 115200 from 26 (115384.6, 0.16% fast), 9600 from 313 (0.16% slow) */
	assert_int_equal(uart_divisor(48000000, 115200), 26);
	assert_int_equal(uart_divisor(48000000, 9600), 313);
	assert_int_equal(uart_divisor(48000000, 3000000), 1);
	/* 1.8432 MHz cannot make 100000 (1.152) nor 230400 (0.5) */
	assert_int_equal(uart_divisor(UART_PC_CLOCK_HZ, 100000), 0);
	assert_int_equal(uart_divisor(UART_PC_CLOCK_HZ, 230400), 0);
	/* 2% is the limit: 115200 is 1.95% over 113000, 2.04% over 112900 */
	assert_int_equal(uart_divisor(UART_PC_CLOCK_HZ, 113000), 1);
	assert_int_equal(uart_divisor(UART_PC_CLOCK_HZ, 112900), 0);
	/* a divisor past 16 bits */
	assert_int_equal(uart_divisor(48000000, 45), 0);
	assert_int_equal(uart_divisor(0, 115200), 0);
	assert_int_equal(uart_divisor(48000000, 0), 0);
	assert_int_equal(uart_divisor(0xffffffffu, 0xffffffffu), 0);
}

/* An HPET table as QEMU's q35 has it: registers at 0xfed00000. */
static uint64_t build_hpet(uint32_t len, uint8_t space, uint64_t base)
{
	memset(hpet, 0, sizeof(hpet));
	header(hpet, "HPET", len);
	memcpy(hpet + 36, "\x01\xa2\x86\x80", 4); /* event timer block ID */
	hpet[40] = space;
	hpet[41] = 64; /* register bit width */
	memcpy(hpet + 44, &base, 8);
	fix_checksum(hpet, len, 9);
	madt_begin();
	return build_tables();
}

static void test_hpet_table(void **state)
{
	const char *why = NULL;
	u64 base = 0;
	uint64_t r;

	r = build_hpet(56, 0, 0xfed00000);
	assert_int_equal(acpi_hpet_base(acpi_find_table(r, "HPET"), &base, &why), 0);
	assert_int_equal(base, 0xfed00000);

	build_hpet(56, 1, 0xfed00000); /* system I/O: no HPET is there */
	assert_int_equal(acpi_hpet_base(hpet, &base, &why), -1);
	assert_string_equal(why, "ACPI HPET table names no memory-mapped register block");

	build_hpet(56, 0, 0);
	assert_int_equal(acpi_hpet_base(hpet, &base, &why), -1);
	assert_string_equal(why, "ACPI HPET table names address 0");

	r = build_hpet(52, 0, 0xfed00000); /* ends inside the address */
	assert_non_null(acpi_find_table(r, "HPET"));
	assert_int_equal(acpi_hpet_base(acpi_find_table(r, "HPET"), &base, &why), -1);
	assert_string_equal(why, "ACPI HPET table shorter than 56 bytes");
	assert_int_equal(acpi_hpet_base(NULL, &base, &why), -1);
}

/*
 * A register block in RAM is no device's: an HPET whose base lies in
 * conventional, loader or ACPI memory of the firmware's map is refused
 * (the TSC is then calibrated against the PM timer), and so is an MMIO
 * UART there.  Reserved and MMIO ranges, or none at all, are fine.
 */
static struct boot_info map;

static void test_registers_in_ram(void **state)
{
	struct acpi_spcr_uart u;
	const char *why = NULL;
	u64 base = 0;
	uint64_t r;

	mem_map_reset(&map);
	mem_map_add(&map, 0, 0x9f, 7);		       /* conventional, 0 - 636 KiB */
	mem_map_add(&map, 0x100000, 0x7ee00, 4);       /* boot services data, to 2 GiB - 2 MiB */
	mem_map_add(&map, 0x7ff00000, 0x100, 2);       /* loader data: mhv */
	mem_map_add(&map, 0x80000000, 0x10, 9);	       /* ACPI reclaim */
	mem_map_add(&map, 0xfec00000, 0x10, 11);       /* MMIO: the I/O APIC */
	mem_map_add(&map, 0x100000000ull, 0x40000, 7); /* RAM above 4 GiB */
	acpi_set_memory_map(&map);

	/* QEMU's HPET at 0xfed00000: not in the map at all */
	r = build_hpet(56, 0, 0xfed00000);
	assert_int_equal(acpi_hpet_base(acpi_find_table(r, "HPET"), &base, &why), 0);
	/* in reserved MMIO */
	build_hpet(56, 0, 0xfec00000);
	assert_int_equal(acpi_hpet_base(hpet, &base, &why), 0);
	/* conventional RAM, boot services data, mhv's own, ACPI, above 4 GiB,
	 * and a block whose last byte reaches RAM */
	static const uint64_t in_ram[] = {
		0x1000,	     0x200000,	 0x7ff10000, 0x80004000,
		0x120000000, 0x7feffe00, /* in the hole below mhv, its end in mhv's memory */
	};
	for (unsigned i = 0; i < ARRAY_SIZE(in_ram); i++) {
		base = 0;
		build_hpet(56, 0, in_ram[i]);
		assert_int_equal(acpi_hpet_base(hpet, &base, &why), -1);
		assert_string_equal(why,
				    "ACPI HPET table names registers in RAM of the memory map");
		assert_int_equal(base, 0);
	}
	build_hpet(56, 0, 0x7feffc00); /* in the hole, its end just below mhv's */
	assert_int_equal(acpi_hpet_base(hpet, &base, &why), 0);

	/* an MMIO UART in RAM */
	r = build_spcr(2, 80, 0x12);
	assert_int_equal(acpi_find_spcr(r, &u, &why), 0); /* 0xfedc9000 */
	memcpy(spcr + 44, (uint64_t[]){ 0x200000 }, 8);
	fix_checksum(spcr, 80, 9);
	assert_int_equal(acpi_find_spcr(r, &u, &why), -1);
	assert_string_equal(why, "ACPI SPCR names a UART in RAM of the memory map");

	/* no map: no check */
	acpi_set_memory_map(NULL);
	build_hpet(56, 0, 0x200000);
	assert_int_equal(acpi_hpet_base(hpet, &base, &why), 0);
}

static void test_hpet_math(void **state)
{
	/* QEMU: 10 ns; PC chipsets: 14.31818 MHz (69841279 fs) */
	assert_int_equal(hpet_period_fs(0x00989680ull << 32 | 0x8086a201), 10000000);
	assert_int_equal(hpet_period_fs(0x0429b17full << 32), 69841279);
	assert_int_equal(hpet_period_fs(0x05f5e100ull << 32), 100000000); /* 100 ns: the limit */
	assert_int_equal(hpet_period_fs(0x05f5e101ull << 32), 0);
	assert_int_equal(hpet_period_fs(0x8086a201), 0);
	assert_int_equal(hpet_counter_hz(10000000), 100000000);
	assert_int_equal(hpet_counter_hz(69841279), 14318179); /* rounded down */
	assert_int_equal(hpet_counter_hz(0), 0);
	/* 50 ms: 5e6 ticks of 10 ns against 1e8 TSC ticks is 2 GHz */
	assert_int_equal(hpet_tsc_hz(100000000, 5000000, 10000000), 2000000000);
	/* 715909 ticks at 14.31818 MHz: 50 ms (to 1 ns); a 5 GHz TSC */
	assert_int_equal(hpet_tsc_hz(250000000, 715909, 69841279), 5000000000);
	assert_int_equal(hpet_tsc_hz(1000, 0, 10000000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_madt_cpus),
		cmocka_unit_test(test_madt_malformed),
		cmocka_unit_test(test_madt_broadcast_ids),
		cmocka_unit_test(test_madt_online_capable_by_revision),
		cmocka_unit_test(test_madt_600_cpus_x2apic),
		cmocka_unit_test(test_x2apic_decision),
		cmocka_unit_test(test_checksums),
		cmocka_unit_test(test_root_shorter_than_header),
		cmocka_unit_test(test_table_length_bounds),
		cmocka_unit_test(test_tables_bounded_by_the_mapping),
		cmocka_unit_test(test_spcr),
		cmocka_unit_test(test_hpet_table),
		cmocka_unit_test(test_hpet_math),
		cmocka_unit_test(test_registers_in_ram),
		cmocka_unit_test(test_spcr_revisions),
		cmocka_unit_test(test_uart_divisor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
