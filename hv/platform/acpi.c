// SPDX-License-Identifier: MIT
/* Just enough ACPI to find a table by signature (ACPI 6.5 §5.2). */
#include "acpi.h"

struct acpi_rsdp {
	char signature[8];
	u8 checksum;
	char oem_id[6];
	u8 revision;
	u32 rsdt_address;
	u32 length;
	u64 xsdt_address;
	u8 extended_checksum;
	u8 reserved[3];
} __packed;

struct acpi_header {
	char signature[4];
	u32 length;
	u8 revision;
	u8 checksum;
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;
_Static_assert(sizeof(struct acpi_header) == 36, "ACPI 6.5 §5.2.6");

/*
 * Serial Port Console Redirection table (Microsoft's SPCR specification;
 * revision 2 is 80 bytes, revision 3 gives the UART's clock in what was
 * reserved, revision 4 adds the precise baud rate and a namespace string).
 */
struct acpi_spcr {
	struct acpi_header header;
	u8 interface_type; /* a DBG2 serial port subtype */
	u8 reserved[3];
	u8 gas_space_id; /* Generic Address Structure, ACPI 6.5 §5.2.3.2 */
	u8 gas_bit_width;
	u8 gas_bit_offset;
	u8 gas_access_size;
	u64 gas_address;
	u8 interrupt_type;
	u8 irq;
	u32 gsi;
	u8 baud_rate;
	u8 parity;
	u8 stop_bits;
	u8 flow_control;
	u8 terminal_type;
	u8 language;
	u16 pci_device_id;
	u16 pci_vendor_id;
	u8 pci_bus;
	u8 pci_device;
	u8 pci_function;
	u32 pci_flags;
	u8 pci_segment;
	u32 uart_clock_hz;     /* revision 3 and later; 0: not given */
	u32 precise_baud_rate; /* revision 4 and later; non-zero overrides baud_rate */
} __packed;
_Static_assert(__builtin_offsetof(struct acpi_spcr, gas_address) == 44, "SPCR base address");
_Static_assert(__builtin_offsetof(struct acpi_spcr, baud_rate) == 58, "SPCR baud rate");
_Static_assert(__builtin_offsetof(struct acpi_spcr, uart_clock_hz) == 76, "SPCR UART clock");
_Static_assert(sizeof(struct acpi_spcr) == 84, "SPCR through the precise baud rate");
#define SPCR_REV2_LENGTH 80

/* The serial port subtypes that are 16550s (Microsoft's "Debug Port
 * Table 2" specification, its serial port subtype list) */
#define DBG2_16550_FULL 0x00
#define DBG2_16550_SUBSET 0x01 /* 16450 */
#define DBG2_16550_GAS 0x12    /* parameters in the Generic Address Structure */
#define GAS_ACCESS_DWORD 3

static bool checksum_ok(const void *p, u32 len)
{
	const u8 *b = p;
	u8 sum = 0;

	while (len--)
		sum += *b++;
	return sum == 0;
}

static bool sig_eq(const char *a, const char *b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

const void *acpi_find_table(u64 rsdp_pa, const char sig[4])
{
	const struct acpi_rsdp *rsdp = (const void *)(uintptr_t)rsdp_pa;
	const struct acpi_header *sdt;
	bool xsdt;
	u32 i, n;

	if (!rsdp || !checksum_ok(rsdp, 20))
		return NULL;
	xsdt = rsdp->revision >= 2 && rsdp->xsdt_address;
	sdt = (const void *)(uintptr_t)(xsdt ? rsdp->xsdt_address : rsdp->rsdt_address);
	if (!sdt || !checksum_ok(sdt, sdt->length))
		return NULL;
	n = (sdt->length - sizeof(*sdt)) / (xsdt ? 8 : 4);
	for (i = 0; i < n; i++) {
		const u8 *entries = (const u8 *)(sdt + 1);
		u64 pa;
		const struct acpi_header *t;

		if (xsdt)
			__builtin_memcpy(&pa, entries + 8 * i, 8);
		else {
			u32 pa32;

			__builtin_memcpy(&pa32, entries + 4 * i, 4);
			pa = pa32;
		}
		t = (const void *)(uintptr_t)pa;
		if (t && sig_eq(t->signature, sig) && checksum_ok(t, t->length))
			return t;
	}
	return NULL;
}

int acpi_find_spcr(u64 rsdp, struct acpi_spcr_uart *out, const char **why)
{
	const struct acpi_spcr *spcr = acpi_find_table(rsdp, "SPCR");
	const char *dummy;
	u32 len;

	if (!why)
		why = &dummy;
	*why = "no ACPI SPCR table";
	if (!spcr)
		return -1;
	len = spcr->header.length;
	if (len < SPCR_REV2_LENGTH) {
		*why = "ACPI SPCR table shorter than 80 bytes";
		return -1;
	}
	if (spcr->interface_type != DBG2_16550_FULL && spcr->interface_type != DBG2_16550_SUBSET &&
	    spcr->interface_type != DBG2_16550_GAS) {
		*why = "ACPI SPCR names a UART that is not a 16550";
		return -1;
	}
	/* SPCR "Configured Baud Rate": 0 as is, 3 9600, 4 19200, 6 57600, 7 115200 */
	static const u32 bauds[8] = { 0, 0, 0, 9600, 19200, 0, 57600, 115200 };

	out->io_port = 0;
	out->mmio_base = 0;
	out->revision = spcr->header.revision;
	out->baud = spcr->baud_rate < 8 ? bauds[spcr->baud_rate] : 0;
	/* the fields of later revisions, where the table is long enough */
	out->clock_hz = out->revision >= 3 ? spcr->uart_clock_hz : 0;
	if (out->revision >= 4 && len >= sizeof(*spcr) && spcr->precise_baud_rate)
		out->baud = spcr->precise_baud_rate;
	/* 32-bit registers sit 4 bytes apart (GAS register bit width, or
	 * dword access as Linux's SPCR code reads it) */
	out->reg_width =
	    spcr->gas_bit_width == 32 || spcr->gas_access_size == GAS_ACCESS_DWORD ? 4 : 1;
	if (spcr->gas_space_id == GAS_SYSTEM_IO && spcr->gas_address &&
	    spcr->gas_address <= 0xfff8) {
		out->io_port = (u16)spcr->gas_address;
		out->reg_width = 1;
	} else if (spcr->gas_space_id == GAS_SYSTEM_MEMORY && spcr->gas_address) {
		out->mmio_base = spcr->gas_address;
	} else {
		*why = "ACPI SPCR names no UART in I/O or memory space";
		return -1;
	}
	return 0;
}

/* Multiple APIC Description Table (ACPI 6.5 §5.2.12) */
struct acpi_madt {
	struct acpi_header header;
	u32 lapic_address;
	u32 flags;
} __packed;
_Static_assert(sizeof(struct acpi_madt) == 44, "ACPI 6.5 §5.2.12, Table 5.19");

#define MADT_LOCAL_APIC 0   /* §5.2.12.2: u8 uid, u8 apic_id, u32 flags */
#define MADT_LOCAL_X2APIC 9 /* §5.2.12.12: u16 reserved, u32 x2apic_id, u32 flags, u32 uid */
#define MADT_ENABLED BIT(0)
#define MADT_ONLINE_CAPABLE BIT(1)
/* Online Capable is defined from MADT revision 5 (ACPI 6.3); reserved before */
#define MADT_REV_ONLINE_CAPABLE 5

/* Calls fn for each Local APIC / x2APIC entry: false when the table is malformed. */
static bool madt_walk(const struct acpi_madt *madt, void (*fn)(void *ctx, u32 id, u32 flags),
		      void *ctx)
{
	const u8 *p, *end;
	u32 id, flags;

	if (!madt || madt->header.length < sizeof(*madt))
		return false;
	p = (const u8 *)(madt + 1);
	end = (const u8 *)madt + madt->header.length;
	while (p + 2 <= end) {
		u8 type = p[0], len = p[1];

		if (len < 2 || p + len > end)
			return false; /* a malformed entry: trust none of the rest */
		if (type == MADT_LOCAL_APIC && len >= 8) {
			__builtin_memcpy(&flags, p + 4, 4);
			fn(ctx, p[3], flags);
		} else if (type == MADT_LOCAL_X2APIC && len >= 16) {
			__builtin_memcpy(&id, p + 4, 4);
			__builtin_memcpy(&flags, p + 8, 4);
			fn(ctx, id, flags);
		}
		p += len;
	}
	return true;
}

struct madt_scan {
	u32 usable_flags; /* an entry with one of these is a CPU mhv may start */
	u32 *ids;
	unsigned n, max, entries;
};

static void count_entry(void *ctx, u32 id, u32 flags)
{
	((struct madt_scan *)ctx)->entries++;
}

/*
 * Enabled CPUs are running; online-capable ones are off until the OS
 * starts them, and mhv may too (§5.2.12.2, Table 5.24).
 */
static void add_cpu(void *ctx, u32 id, u32 flags)
{
	struct madt_scan *s = ctx;
	unsigned i;

	if (!(flags & s->usable_flags))
		return;
	for (i = 0; i < s->n; i++)
		if (s->ids[i] == id)
			return; /* listed as both APIC and x2APIC */
	if (s->n < s->max)
		s->ids[s->n++] = id;
}

u8 acpi_madt_revision(const void *table)
{
	return ((const struct acpi_madt *)table)->header.revision;
}

int acpi_madt_cpu_entries(const void *table)
{
	struct madt_scan s = { 0 };

	return madt_walk(table, count_entry, &s) ? (int)s.entries : -1;
}

int acpi_madt_cpus(const void *table, u32 *ids, unsigned max)
{
	struct madt_scan s = { .usable_flags = MADT_ENABLED, .ids = ids, .max = max };

	if (table && acpi_madt_revision(table) >= MADT_REV_ONLINE_CAPABLE)
		s.usable_flags |= MADT_ONLINE_CAPABLE;
	return madt_walk(table, add_cpu, &s) ? (int)s.n : -1;
}

/* HPET description table (IA-PC HPET spec 1.0a §3.2.4, Table 3) */
struct acpi_hpet {
	struct acpi_header header;
	u32 event_timer_block_id;
	u8 gas_space_id; /* Generic Address Structure, ACPI 6.5 §5.2.3.2 */
	u8 gas_bit_width;
	u8 gas_bit_offset;
	u8 gas_access_size;
	u64 gas_address;
	u8 hpet_number;
	u16 min_clock_tick;
	u8 page_protection;
} __packed;
_Static_assert(__builtin_offsetof(struct acpi_hpet, gas_address) == 44, "HPET base address");
_Static_assert(sizeof(struct acpi_hpet) == 56, "IA-PC HPET spec 1.0a §3.2.4");

int acpi_hpet_base(const void *table, u64 *base, const char **why)
{
	const struct acpi_hpet *hpet = table;

	if (!hpet || hpet->header.length < sizeof(*hpet)) {
		*why = "ACPI HPET table shorter than 56 bytes";
		return -1;
	}
	if (hpet->gas_space_id != GAS_SYSTEM_MEMORY) {
		*why = "ACPI HPET table names no memory-mapped register block";
		return -1;
	}
	if (!hpet->gas_address) {
		*why = "ACPI HPET table names address 0";
		return -1;
	}
	*base = hpet->gas_address;
	return 0;
}
