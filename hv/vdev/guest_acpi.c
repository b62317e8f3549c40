// SPDX-License-Identifier: MIT
#include "guest_acpi.h"
#include "lib/guest_abi.h"

/* Where each table goes below 1 MiB, after the RSDP. */
#define RSDT_GPA (GUEST_ACPI_RSDP + 0x40)
#define FADT_GPA (GUEST_ACPI_RSDP + 0x100)
#define MADT_GPA (GUEST_ACPI_RSDP + 0x200)
#define FADT_LEN 116 /* the ACPI 1.0 FADT: enough for PM_TMR_BLK */

static void put32(u8 *p, u32 v)
{
	__builtin_memcpy(p, &v, 4);
}

static void checksum(u8 *t, u32 len, u32 at)
{
	u8 sum = 0;
	u32 i;

	t[at] = 0;
	for (i = 0; i < len; i++)
		sum += t[i];
	t[at] = (u8)-sum;
}

/* The 36-byte header (ACPI 6.5 §5.2.6) */
static void header(u8 *t, const char *sig, u32 len, u8 rev)
{
	__builtin_memcpy(t, sig, 4);
	put32(t + 4, len);
	t[8] = rev;
	__builtin_memcpy(t + 10, "MHV   ", 6);
	__builtin_memcpy(t + 16, "MHVGUEST", 8);
	put32(t + 24, 1);
}

void guest_acpi_build(u8 *ram, u32 nr_cpus)
{
	u8 *rsdp = ram + GUEST_ACPI_RSDP, *rsdt = ram + RSDT_GPA, *fadt = ram + FADT_GPA;
	u8 *madt = ram + MADT_GPA;
	u32 madt_len = 44 + 8 * nr_cpus, i;

	/* RSDP revision 0: signature, checksum over 20 bytes, RSDT address (§5.2.5.3) */
	__builtin_memcpy(rsdp, "RSD PTR ", 8);
	__builtin_memcpy(rsdp + 9, "MHV   ", 6);
	rsdp[15] = 0;
	put32(rsdp + 16, RSDT_GPA);
	checksum(rsdp, 20, 8);

	header(rsdt, "RSDT", 36 + 8, 1);
	put32(rsdt + 36, FADT_GPA);
	put32(rsdt + 40, MADT_GPA);
	checksum(rsdt, 36 + 8, 9);

	/* FADT: PM_TMR_BLK at offset 76, PM_TMR_LEN (4) at 91 (§5.2.9, Table 5.9) */
	header(fadt, "FACP", FADT_LEN, 1);
	put32(fadt + 76, GUEST_PM_TIMER_PORT);
	fadt[91] = 4;
	checksum(fadt, FADT_LEN, 9);

	/* MADT: local APIC address, PCAT_COMPAT, then one Processor Local APIC
	 * entry per vCPU, enabled (§5.2.12, §5.2.12.2) */
	header(madt, "APIC", madt_len, 1);
	put32(madt + 36, 0xfee00000u);
	put32(madt + 40, 1);
	for (i = 0; i < nr_cpus; i++) {
		u8 *e = madt + 44 + 8 * i;

		e[0] = 0;
		e[1] = 8;
		e[2] = (u8)i;
		e[3] = (u8)i;
		put32(e + 4, 1);
	}
	checksum(madt, madt_len, 9);
}
