// SPDX-License-Identifier: MIT
/* The virtual I/O APIC: registers, edge and level lines, masking, remote IRR, EOI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vdev/ioapic.h"
#include "core/vm.h"
#include "vdev/board.h"

/* The APIC bus: each message recorded; @accepted says whether a local APIC took it. */
static struct {
	u8 dest, vector;
	bool logical, lowest, level;
} sent[16];
static unsigned nr_sent;
static unsigned accepted;

unsigned apic_bus_deliver(struct vcpu *vcpu, u8 dest, bool logical, bool lowest, u8 vector,
			  bool level)
{
	assert_true(nr_sent < 16);
	sent[nr_sent].dest = dest;
	sent[nr_sent].vector = vector;
	sent[nr_sent].logical = logical;
	sent[nr_sent].lowest = lowest;
	sent[nr_sent].level = level;
	nr_sent++;
	return accepted;
}

static struct vm vm;
static struct board board;
static struct vcpu *vcpu = &vm.vcpus[0];

static u32 reg_read(u8 reg)
{
	ioapic_mmio_write(vcpu, IOAPIC_IOREGSEL, reg);
	return ioapic_mmio_read(vcpu, IOAPIC_IOWIN);
}

static void reg_write(u8 reg, u32 val)
{
	ioapic_mmio_write(vcpu, IOAPIC_IOREGSEL, reg);
	ioapic_mmio_write(vcpu, IOAPIC_IOWIN, val);
}

static void set_entry(unsigned pin, u64 e)
{
	reg_write(IOAPIC_REG_REDIR + 2 * pin + 1, (u32)(e >> 32));
	reg_write(IOAPIC_REG_REDIR + 2 * pin, (u32)e);
}

static u64 entry(unsigned pin)
{
	return reg_read(IOAPIC_REG_REDIR + 2 * pin) | (u64)reg_read(IOAPIC_REG_REDIR + 2 * pin + 1)
							  << 32;
}

static int setup(void **state)
{
	(void)state;
	memset(&vm, 0, sizeof(vm));
	memset(&board, 0, sizeof(board));
	vcpu->vm = &vm;
	vm.board = &board;
	ioapic_reset(&board.ioapic);
	nr_sent = 0;
	accepted = 1;
	return 0;
}

static void identification_registers(void **state)
{
	u32 v;

	(void)state;
	/* all entries masked after reset; IOREGSEL reads back */
	assert_true(entry(0) & IOAPIC_RTE_MASKED);
	assert_true(entry(IOAPIC_PINS - 1) & IOAPIC_RTE_MASKED);
	ioapic_mmio_write(vcpu, IOAPIC_IOREGSEL, 0x21);
	assert_int_equal(ioapic_mmio_read(vcpu, IOAPIC_IOREGSEL), 0x21);
	/* version: read-only, 24 entries */
	v = reg_read(IOAPIC_REG_VERSION);
	assert_int_equal((v >> 16) & 0xff, IOAPIC_PINS - 1);
	reg_write(IOAPIC_REG_VERSION, ~v);
	assert_int_equal(reg_read(IOAPIC_REG_VERSION), v);
	/* ID: bits 27:24 only; the arbitration ID follows it and is read-only */
	reg_write(IOAPIC_REG_ID, 0xffffffff);
	assert_int_equal(reg_read(IOAPIC_REG_ID), 0x0f000000);
	assert_int_equal(reg_read(IOAPIC_REG_ARB), 0x0f000000);
	reg_write(IOAPIC_REG_ARB, 0);
	assert_int_equal(reg_read(IOAPIC_REG_ARB), 0x0f000000);
	/* beyond the table: nothing */
	assert_int_equal(reg_read(IOAPIC_REG_REDIR + 2 * IOAPIC_PINS), 0);
	assert_int_equal(nr_sent, 0);
}

/*
 * Every one of the 256 selectors (82093AA §3.0: IOREGSEL is 8 bits): the
 * ID, version and arbitration registers, entry n's halves at 0x10 + 2n
 * and 0x11 + 2n, and nothing else.  Below 0x10, "(reg - 0x10) / 2" as an
 * unsigned is about 2^32 (issue 27, item 7): such a selector must reach
 * no entry, reading 0 and writing nothing, as one above 0x3f.
 */
static void every_selector(void **state)
{
	u64 before[IOAPIC_PINS];
	unsigned reg, pin;

	(void)state;
	for (pin = 0; pin < IOAPIC_PINS; pin++) {
		set_entry(pin,
			  (u64)pin << IOAPIC_RTE_DEST_SHIFT | IOAPIC_RTE_MASKED | (0x20 + pin));
		before[pin] = entry(pin);
	}
	for (reg = 0; reg < 256; reg++) {
		u32 v = reg_read((u8)reg);

		if (reg >= IOAPIC_REG_REDIR && reg < IOAPIC_REG_REDIR + 2 * IOAPIC_PINS) {
			pin = (reg - IOAPIC_REG_REDIR) / 2;
			assert_int_equal(v, (u32)(before[pin] >> (reg & 1 ? 32 : 0)));
			continue;
		}
		if (reg > IOAPIC_REG_ARB)
			assert_int_equal(v, 0);
		if (reg == IOAPIC_REG_ID)
			continue;
		reg_write((u8)reg, 0xffffffff);
		for (pin = 0; pin < IOAPIC_PINS; pin++)
			assert_int_equal(entry(pin), before[pin]);
	}
	assert_int_equal(reg_read(IOAPIC_REG_ID), 0);
	assert_int_equal(nr_sent, 0);
}

static void edge_fires_on_rising_edges(void **state)
{
	(void)state;
	set_entry(14, 0x76 | 3ull << IOAPIC_RTE_DEST_SHIFT);
	ioapic_set_line(vcpu, 14, true);
	assert_int_equal(nr_sent, 1);
	assert_int_equal(sent[0].vector, 0x76);
	assert_int_equal(sent[0].dest, 3);
	assert_false(sent[0].level);
	assert_false(sent[0].logical);
	/* still high: no new edge; no remote IRR for edge entries */
	ioapic_set_line(vcpu, 14, true);
	assert_int_equal(nr_sent, 1);
	assert_false(entry(14) & IOAPIC_RTE_REMOTE_IRR);
	ioapic_set_line(vcpu, 14, false);
	ioapic_set_line(vcpu, 14, true);
	assert_int_equal(nr_sent, 2);
	/* masked: the edge is lost, unmasking does not replay it */
	ioapic_set_line(vcpu, 14, false);
	set_entry(14, 0x76 | IOAPIC_RTE_MASKED);
	ioapic_set_line(vcpu, 14, true);
	set_entry(14, 0x76);
	assert_int_equal(nr_sent, 2);
}

static void level_waits_for_eoi(void **state)
{
	(void)state;
	set_entry(14, 0x77 | IOAPIC_RTE_LEVEL);
	ioapic_set_line(vcpu, 14, true);
	assert_int_equal(nr_sent, 1);
	assert_true(sent[0].level);
	assert_true(entry(14) & IOAPIC_RTE_REMOTE_IRR);
	/* remote IRR is read-only and holds further messages back */
	set_entry(14, 0x77 | IOAPIC_RTE_LEVEL);
	assert_true(entry(14) & IOAPIC_RTE_REMOTE_IRR);
	ioapic_set_line(vcpu, 14, false);
	ioapic_set_line(vcpu, 14, true);
	assert_int_equal(nr_sent, 1);
	/* EOI of another vector: nothing; of this one with the line high: again */
	ioapic_eoi(vcpu, 0x78);
	assert_int_equal(nr_sent, 1);
	ioapic_eoi(vcpu, 0x77);
	assert_int_equal(nr_sent, 2);
	assert_true(entry(14) & IOAPIC_RTE_REMOTE_IRR);
	/* line low at EOI: remote IRR clears and nothing is sent */
	ioapic_set_line(vcpu, 14, false);
	ioapic_eoi(vcpu, 0x77);
	assert_int_equal(nr_sent, 2);
	assert_false(entry(14) & IOAPIC_RTE_REMOTE_IRR);
}

static void unmasking_an_asserted_level_line_sends(void **state)
{
	(void)state;
	set_entry(13, 0x82 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED);
	ioapic_set_line(vcpu, 13, true);
	assert_int_equal(nr_sent, 0);
	assert_false(entry(13) & IOAPIC_RTE_REMOTE_IRR);
	set_entry(13, 0x82 | IOAPIC_RTE_LEVEL);
	assert_int_equal(nr_sent, 1);
	/* masked while outstanding: the EOI clears remote IRR, sends nothing */
	set_entry(13, 0x82 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED);
	ioapic_eoi(vcpu, 0x82);
	assert_int_equal(nr_sent, 1);
	assert_false(entry(13) & IOAPIC_RTE_REMOTE_IRR);
	/* switching to edge drops a remote IRR */
	set_entry(13, 0x82 | IOAPIC_RTE_LEVEL);
	assert_true(entry(13) & IOAPIC_RTE_REMOTE_IRR);
	set_entry(13, 0x82);
	assert_false(entry(13) & IOAPIC_RTE_REMOTE_IRR);
}

static void delivery_modes_and_destinations(void **state)
{
	(void)state;
	/* logical, lowest priority */
	set_entry(1, 0x40 | 1 << 8 | IOAPIC_RTE_DEST_LOGICAL | 0x0dull << IOAPIC_RTE_DEST_SHIFT);
	ioapic_set_line(vcpu, 1, true);
	assert_int_equal(nr_sent, 1);
	assert_true(sent[0].logical);
	assert_true(sent[0].lowest);
	assert_int_equal(sent[0].dest, 0x0d);
	/* SMI, NMI, INIT, ExtINT: not offered, nothing sent */
	set_entry(2, 0x41 | 4 << 8);
	ioapic_set_line(vcpu, 2, true);
	assert_int_equal(nr_sent, 1);
	/* a level message nobody accepted leaves remote IRR clear */
	accepted = 0;
	set_entry(3, 0x42 | IOAPIC_RTE_LEVEL | 9ull << IOAPIC_RTE_DEST_SHIFT);
	ioapic_set_line(vcpu, 3, true);
	assert_int_equal(nr_sent, 2);
	assert_false(entry(3) & IOAPIC_RTE_REMOTE_IRR);
	/* lines beyond the pins are ignored */
	ioapic_set_line(vcpu, IOAPIC_PINS, true);
	assert_int_equal(nr_sent, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(identification_registers, setup),
		cmocka_unit_test_setup(every_selector, setup),
		cmocka_unit_test_setup(edge_fires_on_rising_edges, setup),
		cmocka_unit_test_setup(level_waits_for_eoi, setup),
		cmocka_unit_test_setup(unmasking_an_asserted_level_line_sends, setup),
		cmocka_unit_test_setup(delivery_modes_and_destinations, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
