// SPDX-License-Identifier: MIT
/*
 * The machine's I/O APICs.  Firmware may leave redirection entries
 * unmasked (a legacy USB or timer interrupt it used itself); mhv takes no
 * device interrupts, so at take-over every entry is masked, except those
 * whose delivery mode is SMI: the firmware routes them to its own SMM
 * handler (a chipset's ACPI or thermal event) and owns them.
 */
#include "host_ioapic.h"
#include "acpi.h"
#include "console.h"
#include "arch/ioapic.h"

#define MADT_HEADER_LEN 44 /* ACPI header + local APIC address + flags (§5.2.12) */
#define MADT_IO_APIC 1	   /* §5.2.12.3: u8 id, u8 reserved, u32 address, u32 GSI base */
#define MADT_IO_APIC_LEN 12
#define MAX_IOAPICS 16
#define IOAPIC_MAX_ENTRIES ((0x100 - IOAPIC_REG_REDIR) / 2)

int madt_ioapics(const void *table, struct madt_ioapic *out, unsigned max)
{
	const u8 *madt = table, *p, *end;
	unsigned n = 0;
	u32 len, addr;

	if (!madt)
		return -1;
	__builtin_memcpy(&len, madt + 4, 4);
	if (len < MADT_HEADER_LEN)
		return -1;
	end = madt + len;
	for (p = madt + MADT_HEADER_LEN; p + 2 <= end; p += p[1]) {
		if (p[1] < 2 || p + p[1] > end)
			return -1; /* a malformed entry: trust none of the rest */
		if (p[0] != MADT_IO_APIC || p[1] < MADT_IO_APIC_LEN)
			continue;
		if (n < max) {
			__builtin_memcpy(&addr, p + 4, 4);
			out[n].id = p[2];
			out[n].address = addr;
			__builtin_memcpy(&out[n].gsi_base, p + 8, 4);
		}
		n++;
	}
	return (int)n;
}

void ioapic_mask_all(const struct ioapic_regs *regs, u64 base, struct ioapic_mask_result *r)
{
	unsigned i;
	u32 lo;

	*r = (struct ioapic_mask_result){ 0 };
	r->entries = IOAPIC_VERSION_MAX_REDIR(regs->read(base, IOAPIC_REG_VERSION)) + 1;
	/* IOREGSEL holds 8 bits: entries past 119 have no register index */
	if (r->entries > IOAPIC_MAX_ENTRIES)
		r->entries = IOAPIC_MAX_ENTRIES;
	for (i = 0; i < r->entries; i++) {
		u8 reg = (u8)(IOAPIC_REG_REDIR + 2 * i);

		lo = regs->read(base, reg);
		if ((lo & IOAPIC_RTE_DELIVERY_MASK) == IOAPIC_RTE_DELIVERY_SMI) {
			r->smi++;
		} else if (lo & IOAPIC_RTE_MASKED) {
			r->already_masked++;
		} else {
			regs->write(base, reg, lo | IOAPIC_RTE_MASKED);
			r->masked++;
		}
	}
}

static u32 mmio_read(u64 base, u8 reg)
{
	volatile u32 *io = (volatile u32 *)(uintptr_t)base;

	io[IOAPIC_IOREGSEL / 4] = reg;
	return io[IOAPIC_IOWIN / 4];
}

static void mmio_write(u64 base, u8 reg, u32 val)
{
	volatile u32 *io = (volatile u32 *)(uintptr_t)base;

	io[IOAPIC_IOREGSEL / 4] = reg;
	io[IOAPIC_IOWIN / 4] = val;
}

static const struct ioapic_regs ioapic_mmio = { mmio_read, mmio_write };

void host_ioapic_mask(u64 rsdp)
{
	const void *madt = acpi_find_table(rsdp, "APIC");
	struct madt_ioapic io[MAX_IOAPICS];
	struct ioapic_mask_result r;
	int n = madt_ioapics(madt, io, MAX_IOAPICS);
	int i;

	if (n <= 0) {
		console_printf("mhv: ioapic: %s: I/O APICs left as the firmware set them\n",
			       !madt ? "no ACPI MADT"
			       : n   ? "malformed MADT"
				     : "none in the MADT");
		return;
	}
	if (n > MAX_IOAPICS)
		console_printf("mhv: ioapic: %d I/O APICs in the MADT, the first %u masked, the "
			       "rest left as the firmware set them\n",
			       n, MAX_IOAPICS);
	for (i = 0; i < n && i < MAX_IOAPICS; i++) {
		ioapic_mask_all(&ioapic_mmio, io[i].address, &r);
		console_printf(
		    "mhv: ioapic: ID %u at 0x%llx (GSI %u-%u): masked %u of %u "
		    "redirection entries (%u masked by the firmware, %u SMI left alone)\n",
		    io[i].id, io[i].address, io[i].gsi_base, io[i].gsi_base + r.entries - 1,
		    r.masked, r.entries, r.already_masked, r.smi);
	}
}
