// SPDX-License-Identifier: MIT
/* The host's I/O APICs at take-over: found in a synthetic MADT, every
 * redirection entry masked but those delivering an SMI, the other half of
 * each entry and the entries' other bits untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "platform/host_ioapic.h"
#include "tests/common/acpi_build.h"

/* Stubs for what host_ioapic_mask needs outside the code under test */
const void *acpi_find_table(u64 rsdp, const char sig[4]);
const void *acpi_find_table(u64 rsdp, const char sig[4])
{
	return NULL;
}
void console_printf(const char *fmt, ...);
void console_printf(const char *fmt, ...)
{
}

/* A model I/O APIC (82093AA §3.2): version register 0x11 with the highest
 * entry's index in bits 23:16, the entries as 32-bit halves. */
static struct {
	uint32_t version;
	uint32_t redir[2 * 240];
	unsigned writes;
} model;

static u32 model_read(u64 base, u8 reg)
{
	assert_int_equal(base, 0xfec00000);
	if (reg == 0x01)
		return model.version;
	assert_true(reg >= 0x10);
	return model.redir[reg - 0x10];
}

static void model_write(u64 base, u8 reg, u32 val)
{
	assert_true(reg >= 0x10 && (reg & 1) == 0); /* only low halves change */
	model.redir[reg - 0x10] = val;
	model.writes++;
}

static const struct ioapic_regs regs = { model_read, model_write };

#define MASKED (1u << 16)
#define SMI (2u << 8)
#define NMI (4u << 8)
#define EXTINT (7u << 8)
#define LEVEL (1u << 15)

static void test_mask_all(void **state)
{
	struct ioapic_mask_result r;

	memset(&model, 0, sizeof(model));
	model.version = 23u << 16 | 0x20; /* 24 entries */
	for (unsigned i = 0; i < 24; i++)
		model.redir[2 * i] = MASKED;   /* reset state */
	model.redir[2 * 0] = EXTINT | 0x30;    /* firmware's 8259 through-route */
	model.redir[2 * 2] = 0x20;	       /* fixed, edge: the PIT */
	model.redir[2 * 9] = SMI | LEVEL;      /* the ACPI SCI routed to SMM */
	model.redir[2 * 16] = LEVEL | 0x41;    /* a PCI device, level */
	model.redir[2 * 16 + 1] = 0x01000000u; /* destination APIC 1 */
	model.redir[2 * 20] = NMI;
	model.redir[2 * 23] = SMI | MASKED; /* masked SMI: also left alone */
	ioapic_mask_all(&regs, 0xfec00000, &r);
	assert_int_equal(r.entries, 24);
	assert_int_equal(r.masked, 4);
	assert_int_equal(r.smi, 2);
	assert_int_equal(r.already_masked, 18);
	assert_int_equal(model.writes, 4);
	assert_int_equal(model.redir[2 * 0], EXTINT | 0x30 | MASKED);
	assert_int_equal(model.redir[2 * 2], 0x20 | MASKED);
	assert_int_equal(model.redir[2 * 9], SMI | LEVEL);
	assert_int_equal(model.redir[2 * 16], LEVEL | 0x41 | MASKED);
	assert_int_equal(model.redir[2 * 16 + 1], 0x01000000u);
	assert_int_equal(model.redir[2 * 20], NMI | MASKED);
	assert_int_equal(model.redir[2 * 23], SMI | MASKED);
	for (unsigned i = 0; i < 24; i++)
		if ((model.redir[2 * i] & (7u << 8)) != SMI)
			assert_true(model.redir[2 * i] & MASKED);
}

static void test_entry_count(void **state)
{
	struct ioapic_mask_result r;

	/* an AMD FCH-style I/O APIC with 32 entries, all unmasked */
	memset(&model, 0, sizeof(model));
	model.version = 31u << 16 | 0x21;
	ioapic_mask_all(&regs, 0xfec00000, &r);
	assert_int_equal(r.entries, 32);
	assert_int_equal(r.masked, 32);
	assert_true(model.redir[2 * 31] & MASKED);
	assert_false(model.redir[2 * 32] & MASKED);
	/* a version register claiming 240 entries: the 8-bit IOREGSEL
	 * reaches 120 (0x10 + 2 * 119 + 1 = 0xff), no index wraps around */
	memset(&model, 0, sizeof(model));
	model.version = 239u << 16 | 0x20;
	ioapic_mask_all(&regs, 0xfec00000, &r);
	assert_int_equal(r.entries, 120);
	assert_int_equal(r.masked, 120);
}

static uint8_t madt[128];
static size_t madt_len;

static void madt_entry(const uint8_t *e, size_t n)
{
	memcpy(madt + madt_len, e, n);
	madt_len += n;
	acpi_build_header(madt, "APIC", (uint32_t)madt_len);
}

static void madt_ioapic(uint8_t id, uint32_t addr, uint32_t gsi)
{
	uint8_t e[12] = { 1, 12, id, 0 };

	memcpy(e + 4, &addr, 4);
	memcpy(e + 8, &gsi, 4);
	madt_entry(e, 12);
}

static void test_madt(void **state)
{
	static const uint8_t lapic[8] = { 0, 8, 0, 0, 1, 0, 0, 0 };
	static const uint8_t iso[10] = { 2, 10, 0, 0, 2, 0, 0, 0, 0, 0 };
	struct madt_ioapic io[2];

	memset(madt, 0, sizeof(madt));
	madt_len = 44;
	acpi_build_header(madt, "APIC", 44);
	assert_int_equal(madt_ioapics(madt, io, 2), 0);
	madt_entry(lapic, 8);
	madt_ioapic(8, 0xfec00000, 0);
	madt_entry(iso, 10);
	madt_ioapic(9, 0xfd280000, 24);
	madt_ioapic(10, 0xfd300000, 56);
	/* three listed, two wanted: the count says three */
	assert_int_equal(madt_ioapics(madt, io, 2), 3);
	assert_int_equal(io[0].id, 8);
	assert_int_equal(io[0].address, 0xfec00000);
	assert_int_equal(io[0].gsi_base, 0);
	assert_int_equal(io[1].id, 9);
	assert_int_equal(io[1].address, 0xfd280000);
	assert_int_equal(io[1].gsi_base, 24);
	/* an entry whose length runs past the table: all refused */
	madt[madt_len - 11] = 40;
	assert_int_equal(madt_ioapics(madt, io, 2), -1);
	madt[madt_len - 11] = 0;
	assert_int_equal(madt_ioapics(madt, io, 2), -1);
	assert_int_equal(madt_ioapics(NULL, io, 2), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mask_all),
		cmocka_unit_test(test_entry_count),
		cmocka_unit_test(test_madt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
