/* SPDX-License-Identifier: MIT */
/* Test helpers: ACPI tables as firmware lays them out, for hv/platform/acpi.c. */
#ifndef MHV_TEST_ACPI_BUILD_H
#define MHV_TEST_ACPI_BUILD_H

#include <stdint.h>
#include <string.h>

/* The byte at t[at] set so that all len bytes sum to 0 (ACPI 6.5 §5.2.6). */
static inline void acpi_build_checksum(uint8_t *t, size_t len, size_t at)
{
	uint8_t sum = 0;

	t[at] = 0;
	for (size_t i = 0; i < len; i++)
		sum += t[i];
	t[at] = (uint8_t)-sum;
}

/* A table header: signature, length, revision 1; the checksum after the body. */
static inline void acpi_build_header(uint8_t *t, const char *sig, uint32_t len)
{
	memcpy(t, sig, 4);
	memcpy(t + 4, &len, 4);
	t[8] = 1;
}

/*
 * RSDP (revision 2) -> XSDT (len bytes, room for n entries) listing the
 * tables; returns the RSDP's address as mhv receives it from boot/.
 */
static inline uint64_t acpi_build_root(uint8_t rsdp[36], uint8_t *xsdt, uint8_t *const tables[],
				       unsigned n)
{
	uint64_t p;

	acpi_build_header(xsdt, "XSDT", 36 + 8 * n);
	for (unsigned i = 0; i < n; i++) {
		p = (uint64_t)(uintptr_t)tables[i];
		memcpy(xsdt + 36 + 8 * i, &p, 8);
	}
	acpi_build_checksum(xsdt, 36 + 8 * n, 9);
	memset(rsdp, 0, 36);
	memcpy(rsdp, "RSD PTR ", 8);
	rsdp[15] = 2;
	p = (uint64_t)(uintptr_t)xsdt;
	memcpy(rsdp + 24, &p, 8);
	acpi_build_checksum(rsdp, 20, 8);
	return (uint64_t)(uintptr_t)rsdp;
}

#endif
