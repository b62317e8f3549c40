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

/*
 * No table mhv reads comes near this: the MADT of 4096 CPUs, an x2APIC
 * entry and an x2APIC NMI entry each (ACPI 6.5 §5.2.12.12, §5.2.12.13),
 * has 112 KiB, and their SRAT 96 KiB (§5.2.16.3).  A length above it is
 * garbage, and a checksum over it would read past the table into
 * whatever lies there, device registers included.
 */
#define ACPI_TABLE_MAX (1u << 20)

/*
 * Tell the lookups what may be read: fn(pa, len) says whether those
 * bytes are mapped (host_paging_maps once mhv's own page tables are in;
 * before that, the firmware's identity map covers its tables).  The
 * RSDP, each table's header and then its whole length are checked, so
 * nothing is read outside the mapping; NULL: no check.
 */
void acpi_set_mapped(bool (*fn)(u64 pa, u64 len));
struct boot_info;
/*
 * The firmware's memory map (UEFI 2.10 §7.2), against which the register
 * addresses the tables name are checked: one in RAM (usable, loader or
 * ACPI memory) is refused with a reason, as no device's registers lie
 * there and writing them would overwrite memory.  NULL: no check.
 */
void acpi_set_memory_map(const struct boot_info *bi);
/* Whether [base, base + len) overlaps RAM of that map. */
bool acpi_regs_in_ram(u64 base, u64 len);
/* Pointer to the ACPI table with this signature, NULL when absent or
 * invalid: shorter than its header, longer than ACPI_TABLE_MAX, not
 * mapped all through or with a bad checksum.  Its readers stay inside
 * its header's length. */
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
 * capable ones, but none with a broadcast ID (acpi_madt_bogus); the
 * count, or -1 when the table is malformed. */
int acpi_madt_cpus(const void *madt, u32 *ids, unsigned max);
/* A usable MADT entry that names a broadcast APIC ID (xAPIC 0xFF in a Local
 * APIC entry, x2APIC 0xFFFFFFFF): no CPU, left out by acpi_madt_cpus. */
struct acpi_madt_bogus {
	unsigned n; /* how many */
	u32 offset; /* the first one's: bytes into the MADT */
	u8 type;    /* 0: Local APIC, 9: Local x2APIC (ACPI 6.5 §5.2.12) */
	u32 id;
};
/* The entries acpi_madt_cpus left out for a broadcast ID, into *out: how many. */
int acpi_madt_bogus(const void *madt, struct acpi_madt_bogus *out);
/* The register block an ACPI HPET table names, into *base: 0, or -1 with
 * *why saying what is wrong (too short, not in system memory, address 0,
 * in RAM). */
int acpi_hpet_base(const void *hpet, u64 *base, const char **why);

#endif
