// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the ACPI tables mhv reads (hv/platform/acpi.c).  The input is one
 * table body; the harness wraps it in a valid RSDP and XSDT (firmware
 * pointers are trusted, table contents are not) with its length field set
 * to the input's size and a correct checksum, as firmware would.  The
 * first byte picks the signature: SPCR (bit 0 set), HPET (bit 1) or MADT.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/acpi.h"
#include "tests/common/acpi_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t rsdp[36], xsdt[44];
	struct acpi_spcr_uart uart;
	uint32_t ids[64], len;
	uint8_t *table;
	const char *sig, *why = NULL;
	u64 base = 0;
	uint64_t p;
	int n;

	if (size < 1 + 36 || size > 65536)
		return 0;
	len = (uint32_t)(size - 1);
	table = malloc(len); /* exactly the table: ASan sees any overread */
	memcpy(table, data + 1, len);
	sig = data[0] & 1 ? "SPCR" : data[0] & 2 ? "HPET" : "APIC";
	memcpy(table, sig, 4);
	memcpy(table + 4, &len, 4);
	acpi_build_checksum(table, len, 9);

	p = acpi_build_root(rsdp, xsdt, &table, 1);
	if (data[0] & 1) {
		/* found: one UART, in I/O or memory space, registers 1 or 4 apart */
		if (acpi_find_spcr(p, &uart, NULL) == 0 &&
		    (!uart.io_port == !uart.mmio_base ||
		     (uart.reg_width != 1 && uart.reg_width != 4)))
			__builtin_trap();
	} else if (data[0] & 2) {
		n = acpi_hpet_base(acpi_find_table(p, "HPET"), &base, &why);
		if (n == 0 ? !base : !why)
			__builtin_trap();
	} else {
		const void *madt = acpi_find_table(p, "APIC");
		int entries = acpi_madt_cpu_entries(madt);

		/* the entries bound the CPUs; both refuse a malformed table */
		n = acpi_madt_cpus(madt, ids, 64);
		if (n > 64 || (n < 0) != (entries < 0) || n > entries)
			__builtin_trap();
	}
	free(table);
	return 0;
}
