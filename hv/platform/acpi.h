/* SPDX-License-Identifier: MIT */
#ifndef MHV_ACPI_H
#define MHV_ACPI_H

#include "lib/types.h"

/* Generic Address Structure address spaces (ACPI 6.5 §5.2.3.2, Table 5.1) */
#define GAS_SYSTEM_MEMORY 0
#define GAS_SYSTEM_IO 1
#define GAS_PCI_CONFIG 2

struct acpi_spcr_uart {
	u16 io_port;   /* non-zero for an I/O-port UART */
	u64 mmio_base; /* non-zero for an MMIO UART */
	u8 reg_width;  /* bytes between 16550 registers: 1, or 4 for 32-bit MMIO */
	u32 baud;      /* bits/s to program, 0: keep the firmware's setting */
	u32 clock_hz;  /* the UART's input clock (revision 3 and later), 0: not given */
	u8 revision;   /* of the table */
};

/* Pointer to the ACPI table with this signature, NULL when absent or invalid. */
const void *acpi_find_table(u64 rsdp, const char sig[4]);
/* The 16550 the ACPI SPCR table names: 0, or -1 when there is none or it is
 * not a 16550 in I/O or memory space (*why, when not NULL, says which). */
int acpi_find_spcr(u64 rsdp, struct acpi_spcr_uart *out, const char **why);
/* The MADT's revision: 5 (ACPI 6.3) and later define Online Capable. */
u8 acpi_madt_revision(const void *madt);
/* Local APIC and x2APIC entries in a MADT, whatever their flags (a bound
 * for acpi_madt_cpus' array); -1 when the table is malformed. */
int acpi_madt_cpu_entries(const void *madt);
/* APIC IDs of the CPUs in a MADT that mhv may start, once each, in table
 * order, at most max: the enabled ones, and from revision 5 the online
 * capable ones; the count, or -1 when the table is malformed. */
int acpi_madt_cpus(const void *madt, u32 *ids, unsigned max);
/* The register block an ACPI HPET table names, into *base: 0, or -1 with
 * *why saying what is wrong (too short, not in system memory, address 0). */
int acpi_hpet_base(const void *hpet, u64 *base, const char **why);

#endif
