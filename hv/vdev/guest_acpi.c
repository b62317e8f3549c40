// SPDX-License-Identifier: MIT
#include "guest_acpi.h"
#include "ioapic.h"
#include "rtc_cmos.h"
#include "platform/acpi.h"
#include "lib/guest_abi.h"
#include "lib/unaligned.h"

/* Where each table goes below 1 MiB, after the RSDP. */
#define RSDT_GPA (GUEST_ACPI_RSDP + 0x40)
#define FADT_GPA (GUEST_ACPI_RSDP + 0x100)
#define MADT_GPA (GUEST_ACPI_RSDP + 0x200)
#define FACS_GPA (GUEST_ACPI_RSDP + 0x300) /* 64-byte aligned (§5.2.10) */
#define DSDT_GPA (GUEST_ACPI_RSDP + 0x340)
/* The ACPI 2.0 FADT (revision 3, §5.2.9): IAPC_BOOT_ARCH counts for Linux
 * from that revision on */
#define FADT_LEN 244
#define FADT_REVISION 3
#define FACS_LEN 64
#define MADT_IOAPIC_LEN 12
#define MADT_ISO_LEN 10
/* FADT flags (§5.2.9 Table 5.10): WBINVD works; power and sleep buttons
 * are control-method ones (none here) */
#define FADT_WBINVD BIT(0)
#define FADT_PWR_BUTTON BIT(4)
#define FADT_SLP_BUTTON BIT(5)
/* IAPC_BOOT_ARCH (§5.2.9.3 Table 5.11): ISA devices (the PIT, the CMOS
 * clock, the UART) are there; no 8042, so the OS need not probe for one
 * (Linux then takes the i8042 as absent); no VGA */
#define BOOT_ARCH_LEGACY_DEVICES BIT(0)
#define BOOT_ARCH_VGA_NOT_PRESENT BIT(2)
/* MPS INTI flags: active high, level triggered (§5.2.12.5 Table 5.26) */
#define MPS_INTI_HIGH_LEVEL 0x000d

/*
 * The DSDT's AML (§20.2): only Name (_S5_, Package () { 7, 7, 0, 0 }), the
 * S5 sleep type the OS writes to PM1a_CNT.SLP_TYP (ICH9's 111b).
 */
static const u8 dsdt_aml[] = {
	0x08,
	'_',
	'S',
	'5',
	'_', /* NameOp, NameString */
	0x12,
	0x08,
	0x04, /* PackageOp, PkgLength, NumElements */
	0x0a,
	GUEST_PM1_SLP_TYP_S5,
	0x0a, /* BytePrefix 7, BytePrefix 7, */
	GUEST_PM1_SLP_TYP_S5,
	0x00,
	0x00, /* ZeroOp, ZeroOp */
};

/* A 12-byte Generic Address Structure for an I/O port block (§5.2.3.2) */
static void gas_io(u8 *g, u16 port, u8 bits)
{
	g[0] = GAS_SYSTEM_IO;
	g[1] = bits;
	put_le32(g + 4, port);
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
	put_le32(t + 4, len);
	t[8] = rev;
	__builtin_memcpy(t + 10, "MHV   ", 6);
	__builtin_memcpy(t + 16, "MHVGUEST", 8);
	put_le32(t + 24, 1);
}

void guest_acpi_build(u8 *ram, u32 nr_cpus)
{
	u8 *rsdp = ram + GUEST_ACPI_RSDP, *rsdt = ram + RSDT_GPA, *fadt = ram + FADT_GPA;
	u8 *madt = ram + MADT_GPA, *facs = ram + FACS_GPA, *dsdt = ram + DSDT_GPA, *e;
	u32 madt_len = 44 + 8 * nr_cpus + MADT_IOAPIC_LEN + 2 * MADT_ISO_LEN, i;
	u32 dsdt_len = 36 + sizeof(dsdt_aml);

	/* RSDP revision 0: signature, checksum over 20 bytes, RSDT address (§5.2.5.3) */
	__builtin_memcpy(rsdp, "RSD PTR ", 8);
	__builtin_memcpy(rsdp + 9, "MHV   ", 6);
	rsdp[15] = 0;
	put_le32(rsdp + 16, RSDT_GPA);
	checksum(rsdp, 20, 8);

	header(rsdt, "RSDT", 36 + 8, 1);
	put_le32(rsdt + 36, FADT_GPA);
	put_le32(rsdt + 40, MADT_GPA);
	checksum(rsdt, 36 + 8, 9);

	/* FADT (§5.2.9, Table 5.9): FACS, DSDT, SCI_INT, PM1a event and
	 * control blocks, PM timer, the CMOS century; SMI_CMD 0: always in
	 * ACPI mode; the X_ fields repeat the 32-bit ones */
	header(fadt, "FACP", FADT_LEN, FADT_REVISION);
	put_le32(fadt + 36, FACS_GPA);
	put_le32(fadt + 40, DSDT_GPA);
	put_le16(fadt + 46, GUEST_SCI_IRQ);
	put_le32(fadt + 56, GUEST_PM1A_EVT_PORT);
	put_le32(fadt + 64, GUEST_PM1A_CNT_PORT);
	put_le32(fadt + 76, GUEST_PM_TIMER_PORT);
	fadt[88] = 4; /* PM1_EVT_LEN: status and enable, 2 bytes each */
	fadt[89] = 2; /* PM1_CNT_LEN */
	fadt[91] = 4;
	fadt[108] = RTC_CENTURY;
	put_le16(fadt + 109, BOOT_ARCH_LEGACY_DEVICES | BOOT_ARCH_VGA_NOT_PRESENT);
	put_le32(fadt + 112, FADT_WBINVD | FADT_PWR_BUTTON | FADT_SLP_BUTTON);
	put_le32(fadt + 132, FACS_GPA); /* X_FIRMWARE_CTRL, 64 bits */
	put_le32(fadt + 140, DSDT_GPA); /* X_DSDT */
	gas_io(fadt + 148, GUEST_PM1A_EVT_PORT, 32);
	gas_io(fadt + 172, GUEST_PM1A_CNT_PORT, 16);
	gas_io(fadt + 208, GUEST_PM_TIMER_PORT, 32);
	checksum(fadt, FADT_LEN, 9);

	/* FACS (§5.2.10): signature and length, no checksum */
	__builtin_memcpy(facs, "FACS", 4);
	put_le32(facs + 4, FACS_LEN);

	header(dsdt, "DSDT", dsdt_len, 1);
	__builtin_memcpy(dsdt + 36, dsdt_aml, sizeof(dsdt_aml));
	checksum(dsdt, dsdt_len, 9);

	/* MADT: local APIC address, PCAT_COMPAT, then one Processor Local APIC
	 * entry per vCPU, enabled (§5.2.12, §5.2.12.2) */
	header(madt, "APIC", madt_len, 1);
	put_le32(madt + 36, 0xfee00000u);
	put_le32(madt + 40, 1);
	for (i = 0; i < nr_cpus; i++) {
		e = madt + 44 + 8 * i;

		e[0] = 0;
		e[1] = 8;
		e[2] = (u8)i;
		e[3] = (u8)i;
		put_le32(e + 4, 1);
	}
	/* the I/O APIC, GSI base 0 (§5.2.12.3); the SCI's ISA IRQ 9 level,
	 * active high, as on a PC chipset, and the PIT's IRQ0 on pin 2, as
	 * every PC's firmware declares it (§5.2.12.5; flags 0: ISA's edge,
	 * active high) */
	e = madt + 44 + 8 * nr_cpus;
	e[0] = 1;
	e[1] = MADT_IOAPIC_LEN;
	e[2] = 0;
	put_le32(e + 4, (u32)IOAPIC_DEFAULT_BASE);
	put_le32(e + 8, 0);
	e += MADT_IOAPIC_LEN;
	e[0] = 2;
	e[1] = MADT_ISO_LEN;
	e[3] = GUEST_SCI_IRQ;
	put_le32(e + 4, GUEST_SCI_IRQ);
	put_le16(e + 8, MPS_INTI_HIGH_LEVEL);
	e += MADT_ISO_LEN;
	e[0] = 2;
	e[1] = MADT_ISO_LEN;
	e[3] = 0;
	put_le32(e + 4, GUEST_PIT_GSI);
	put_le16(e + 8, 0);
	checksum(madt, madt_len, 9);
}
