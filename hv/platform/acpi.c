// SPDX-License-Identifier: MIT
/* Just enough ACPI to find a table by signature (ACPI 6.5 §5.2). */
#include "acpi.h"
#include "hpet.h"
#include "lib/mem_map.h"

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

/* Whether [pa, pa + len) may be read: see acpi_set_mapped. */
static bool (*mapped)(u64 pa, u64 len);

void acpi_set_mapped(bool (*fn)(u64 pa, u64 len))
{
	mapped = fn;
}

/* The firmware's memory map: see acpi_set_memory_map. */
static const struct boot_info *memory_map;

void acpi_set_memory_map(const struct boot_info *bi)
{
	memory_map = bi;
}

bool acpi_regs_in_ram(u64 base, u64 len)
{
	return memory_map && mem_map_overlaps_ram(memory_map, base, len);
}

/* Not 0, no wrap, below the architectural limit of physical addresses
 * (MAXPHYADDR is at most 52, SDM Vol 3 §4.1.4), and mapped. */
static bool readable(u64 pa, u64 len)
{
	return pa && len <= BIT(52) && pa <= BIT(52) - len && (!mapped || mapped(pa, len));
}

/*
 * The table at pa when its header is readable, its signature is sig (any
 * with NULL), its length lies between its header's size and
 * ACPI_TABLE_MAX, all of it is readable and it sums to 0 (ACPI 6.5
 * §5.2.6); else NULL.  The length decides how far anything is read.
 */
static const struct acpi_header *acpi_table_at(u64 pa, const char *sig)
{
	const struct acpi_header *t = (const void *)(uintptr_t)pa;
	u32 len;

	if (!readable(pa, sizeof(*t)) || (sig && !sig_eq(t->signature, sig)))
		return NULL;
	len = t->length;
	if (len < sizeof(*t) || len > ACPI_TABLE_MAX || !readable(pa, len) || !checksum_ok(t, len))
		return NULL;
	return t;
}

const void *acpi_find_table(u64 rsdp_pa, const char sig[4])
{
	const struct acpi_rsdp *rsdp = (const void *)(uintptr_t)rsdp_pa;
	const struct acpi_header *sdt;
	const u8 *entries;
	u32 i, n, size;
	u64 pa;

	/* the ACPI 1.0 part, 20 bytes; revision 2 adds the XSDT's address
	 * and is 36 (ACPI 6.5 §5.2.5.3) */
	if (!readable(rsdp_pa, 20) || !checksum_ok(rsdp, 20))
		return NULL;
	if (rsdp->revision >= 2 && readable(rsdp_pa, sizeof(*rsdp)) && rsdp->xsdt_address) {
		sdt = acpi_table_at(rsdp->xsdt_address, "XSDT");
		size = 8;
	} else {
		sdt = acpi_table_at(rsdp->rsdt_address, "RSDT");
		size = 4;
	}
	if (!sdt)
		return NULL;
	/* table_at keeps the length at or above the header: no wrap */
	n = (sdt->length - sizeof(*sdt)) / size;
	entries = (const u8 *)(sdt + 1);
	for (i = 0; i < n; i++) {
		const struct acpi_header *t;

		pa = 0;
		__builtin_memcpy(&pa, entries + size * i, size);
		t = acpi_table_at(pa, sig);
		if (t)
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
		if (acpi_regs_in_ram(out->mmio_base, 8 * out->reg_width)) {
			*why = "ACPI SPCR names a UART in RAM of the memory map";
			return -1;
		}
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

/* A Local APIC or x2APIC entry, at offset bytes into the MADT */
struct madt_cpu {
	u8 type;
	u32 offset, id, flags;
};

/* Calls fn for each Local APIC / x2APIC entry: false when the table is malformed. */
static bool madt_walk(const struct acpi_madt *madt, void (*fn)(void *ctx, const struct madt_cpu *e),
		      void *ctx)
{
	const u8 *p, *end;
	struct madt_cpu e;

	if (!madt || madt->header.length < sizeof(*madt))
		return false;
	p = (const u8 *)(madt + 1);
	end = (const u8 *)madt + madt->header.length;
	while (p + 2 <= end) {
		u8 type = p[0], len = p[1];

		if (len < 2 || p + len > end)
			return false; /* a malformed entry: trust none of the rest */
		e = (struct madt_cpu){ .type = type, .offset = (u32)(p - (const u8 *)madt) };
		if (type == MADT_LOCAL_APIC && len >= 8) {
			e.id = p[3];
			__builtin_memcpy(&e.flags, p + 4, 4);
			fn(ctx, &e);
		} else if (type == MADT_LOCAL_X2APIC && len >= 16) {
			__builtin_memcpy(&e.id, p + 4, 4);
			__builtin_memcpy(&e.flags, p + 8, 4);
			fn(ctx, &e);
		}
		p += len;
	}
	return true;
}

struct madt_scan {
	u32 usable_flags; /* an entry with one of these is a CPU mhv may start */
	u32 *ids;
	unsigned n, max, entries;
	struct acpi_madt_bogus bogus;
};

static void count_entry(void *ctx, const struct madt_cpu *e)
{
	((struct madt_scan *)ctx)->entries++;
}

/*
 * The broadcast destinations, which no CPU has as its ID: 0xFF in xAPIC
 * mode (SDM Vol 3 §11.6.2.1), 0xFFFFFFFF in x2APIC mode (§11.12.9).  An
 * x2APIC entry's 0xFF is an ordinary ID (the x2APIC mode's).
 */
static bool broadcast_id(const struct madt_cpu *e)
{
	return e->type == MADT_LOCAL_APIC ? e->id == 0xff : e->id == 0xffffffffu;
}

/*
 * Enabled CPUs are running; online-capable ones are off until the OS
 * starts them, and mhv may too (§5.2.12.2, Table 5.24).  An entry with a
 * broadcast ID is no CPU: an INIT sent to it would reach every CPU.
 */
static void add_cpu(void *ctx, const struct madt_cpu *e)
{
	struct madt_scan *s = ctx;
	unsigned i;

	if (!(e->flags & s->usable_flags))
		return;
	if (broadcast_id(e)) {
		if (!s->bogus.n++) {
			s->bogus.offset = e->offset;
			s->bogus.type = e->type;
			s->bogus.id = e->id;
		}
		return;
	}
	for (i = 0; i < s->n; i++)
		if (s->ids[i] == e->id)
			return; /* listed as both APIC and x2APIC */
	if (s->n < s->max)
		s->ids[s->n++] = e->id;
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

static bool madt_scan(const void *table, struct madt_scan *s)
{
	s->usable_flags = MADT_ENABLED;
	if (table && acpi_madt_revision(table) >= MADT_REV_ONLINE_CAPABLE)
		s->usable_flags |= MADT_ONLINE_CAPABLE;
	return madt_walk(table, add_cpu, s);
}

int acpi_madt_cpus(const void *table, u32 *ids, unsigned max)
{
	struct madt_scan s = { .ids = ids, .max = max };

	return madt_scan(table, &s) ? (int)s.n : -1;
}

int acpi_madt_bogus(const void *table, struct acpi_madt_bogus *out)
{
	struct madt_scan s = { 0 }; /* max 0: the IDs are not kept */

	if (!madt_scan(table, &s))
		s.bogus = (struct acpi_madt_bogus){ 0 };
	*out = s.bogus;
	return (int)out->n;
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
	if (acpi_regs_in_ram(hpet->gas_address, HPET_REGS_SIZE)) {
		*why = "ACPI HPET table names registers in RAM of the memory map";
		return -1;
	}
	*base = hpet->gas_address;
	return 0;
}
