// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the ACPI tables mhv reads (hv/platform/acpi.c).  The first
 * byte picks what the rest is.
 *
 * Bit 2 clear: one table body.  The harness wraps it in a valid RSDP and
 * XSDT with its length field set to the input's size and a correct
 * checksum, as firmware would; bit 0 makes it the SPCR, else bit 1 the
 * HPET, else the MADT.
 *
 * Bit 2 set: the root table itself, an XSDT (bit 3) or an RSDT, as the
 * input has it: its length field too, which may be below its header's
 * size or past the input's end (the checksum is made right for the
 * length it claims, when that is inside the input).  Each entry is taken
 * as an offset into the input and turned into that address, so tables
 * may sit inside the root table; the readers then look for the MADT,
 * SPCR and HPET there.
 *
 * Only the input and the RSDP are "mapped" (acpi_set_mapped); the input
 * ends at a page that is not there, so a read past its end faults.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "platform/acpi.h"
#include "tests/common/acpi_build.h"

#define MAX_INPUT 65536
#define PAGE 4096

static uint8_t *area; /* below 4 GiB (RSDT entries), a guard page at its end */
static uint8_t rsdp[36], xsdt[44];
static const uint8_t *body;
static size_t body_len;

static int in(const void *buf, size_t size, u64 pa, u64 len)
{
	uint64_t b = (uintptr_t)buf;

	return pa >= b && pa - b <= size && len <= size - (pa - b);
}

static bool mapped(u64 pa, u64 len)
{
	return in(rsdp, sizeof(rsdp), pa, len) || in(xsdt, sizeof(xsdt), pa, len) ||
	       in(body, body_len, pa, len);
}

/* The input at the end of the area: its last byte just below the guard. */
static uint8_t *place(const uint8_t *data, size_t len)
{
	uint8_t *p;

	if (!area) {
		area = mmap(NULL, MAX_INPUT + 2 * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		if (area == MAP_FAILED)
			abort();
		mprotect(area + MAX_INPUT + PAGE, PAGE, PROT_NONE);
	}
	p = area + MAX_INPUT + PAGE - len;
	memcpy(p, data, len);
	body = p;
	body_len = len;
	return p;
}

static void check_readers(uint64_t p, uint8_t pick)
{
	struct acpi_spcr_uart uart;
	struct acpi_madt_bogus bogus;
	uint32_t ids[64];
	const char *why = NULL;
	u64 base = 0;
	int n;

	if (pick & 1) {
		/* found: one UART, in I/O or memory space, registers 1 or 4 apart */
		if (acpi_find_spcr(p, &uart, NULL) == 0 &&
		    (!uart.io_port == !uart.mmio_base ||
		     (uart.reg_width != 1 && uart.reg_width != 4)))
			__builtin_trap();
	}
	if (pick & 2) {
		n = acpi_hpet_base(acpi_find_table(p, "HPET"), &base, &why);
		if (n == 0 ? !base : !why)
			__builtin_trap();
	}
	if (!(pick & 3)) {
		const void *madt = acpi_find_table(p, "APIC");
		int entries = acpi_madt_cpu_entries(madt);

		/* the entries bound the CPUs; both refuse a malformed table;
		 * no broadcast ID is a CPU */
		n = acpi_madt_cpus(madt, ids, 64);
		if (n > 64 || (n < 0) != (entries < 0) || n > entries)
			__builtin_trap();
		for (int i = 0; i < n; i++)
			if (ids[i] == 0xffffffffu)
				__builtin_trap();
		if (acpi_madt_bogus(madt, &bogus) && (n < 0 || bogus.n > (unsigned)entries))
			__builtin_trap();
	}
}

/* The root table as the input has it, its entries turned into addresses. */
static uint64_t root_from_input(uint8_t *t, uint32_t len, bool x)
{
	uint32_t claimed, esize = x ? 8 : 4, i;
	uint64_t v, pa;

	memset(rsdp, 0, sizeof(rsdp));
	memcpy(rsdp, "RSD PTR ", 8);
	if (len >= 4)
		memcpy(t, x ? "XSDT" : "RSDT", 4);
	claimed = 0;
	if (len >= 8)
		memcpy(&claimed, t + 4, 4);
	/* the entries the length claims, as far as the input goes */
	for (i = 36; i + esize <= len && i + esize <= claimed; i += esize) {
		v = 0;
		memcpy(&v, t + i, esize);
		pa = (uintptr_t)t + v % len;
		memcpy(t + i, &pa, esize); /* the area is below 4 GiB */
	}
	if (claimed >= 10 && claimed <= len)
		acpi_build_checksum(t, claimed, 9);
	pa = (uintptr_t)t;
	if (x) {
		rsdp[15] = 2;
		memcpy(rsdp + 24, &pa, 8);
	} else {
		memcpy(rsdp + 16, &pa, 4);
	}
	acpi_build_checksum(rsdp, 20, 8);
	return (uintptr_t)rsdp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t len;
	uint8_t *table;
	const char *sig;
	uint64_t p;

	if (size < 1 || size > MAX_INPUT)
		return 0;
	acpi_set_mapped(mapped);
	len = (uint32_t)(size - 1);
	if (data[0] & 4) {
		if (!len)
			return 0;
		table = place(data + 1, len);
		p = root_from_input(table, len, data[0] & 8);
		check_readers(p, 1);
		check_readers(p, 2);
		check_readers(p, 0);
		return 0;
	}
	if (len < 36)
		return 0;
	table = malloc(len); /* exactly the table: ASan sees any overread */
	memcpy(table, data + 1, len);
	body = table;
	body_len = len;
	sig = data[0] & 1 ? "SPCR" : data[0] & 2 ? "HPET" : "APIC";
	memcpy(table, sig, 4);
	memcpy(table + 4, &len, 4);
	acpi_build_checksum(table, len, 9);
	p = acpi_build_root(rsdp, xsdt, &table, 1);
	check_readers(p, data[0] & 3);
	free(table);
	return 0;
}
