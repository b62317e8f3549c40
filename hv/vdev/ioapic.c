// SPDX-License-Identifier: MIT
/*
 * The virtual I/O APIC (see ioapic.h).  One per VM; its lock serializes
 * the vCPUs' register accesses, line changes and EOIs.
 */
#include "ioapic.h"
#include "board.h"
#include "core/vm.h"
#include "arch/x86.h"
#include "lib/nospec.h"

/* Version 0x11 (82093AA), maximum redirection entry 23 (§3.2.2) */
#define IOAPIC_VERSION_VALUE (0x11u | (IOAPIC_PINS - 1) << 16)
/* Bits 31:0 of an entry the guest may write: all but delivery status (12)
 * and remote IRR (14); bits 63:32: the destination (§3.2.4). */
#define RTE_WRITABLE_LOW 0x1afffull
#define RTE_WRITABLE_HIGH (0xffull << IOAPIC_RTE_DEST_SHIFT)

void ioapic_reset(struct ioapic *io)
{
	unsigned i;

	__builtin_memset(io, 0, sizeof(*io));
	for (i = 0; i < IOAPIC_PINS; i++)
		io->redir[i] = IOAPIC_RTE_MASKED; /* masked after reset (§3.2.4) */
}

/*
 * Send @pin's interrupt if it should go now: unmasked, and for a level
 * entry the line asserted and no earlier one still unacknowledged
 * (remote IRR, set once a local APIC accepted it).  Fixed and
 * lowest-priority delivery; SMI, NMI, INIT and ExtINT are not offered.
 */
static void service(struct vcpu *vcpu, struct ioapic *io, unsigned pin)
{
	u64 e;
	bool level;
	u32 mode;

	/* every caller bounds @pin; the clamp holds under speculation too */
	pin = array_index_nospec(pin, IOAPIC_PINS);
	e = io->redir[pin];
	level = e & IOAPIC_RTE_LEVEL;
	mode = (e >> 8) & 7;

	if ((e & IOAPIC_RTE_MASKED) || mode > 1)
		return;
	if (level && ((e & IOAPIC_RTE_REMOTE_IRR) || !(io->lines & BIT(pin))))
		return;
	if (apic_bus_deliver(vcpu, (u8)(e >> IOAPIC_RTE_DEST_SHIFT), e & IOAPIC_RTE_DEST_LOGICAL,
			     mode == 1, (u8)e, level) &&
	    level)
		io->redir[pin] |= IOAPIC_RTE_REMOTE_IRR;
}

/*
 * The entry a register selector names, or IOAPIC_PINS when none:
 * registers 0x10 to 0x3f, two per entry.  Only a selector that is one is
 * subtracted from: below 0x10, "(reg - 0x10) / 2" as an unsigned is about
 * 2^32 (and 0 for 0xf), which a mispredicted bounds check would take into
 * redir[].
 */
static unsigned redir_pin(u8 reg)
{
	if (reg < IOAPIC_REG_REDIR || reg >= IOAPIC_REG_REDIR + 2 * IOAPIC_PINS)
		return IOAPIC_PINS;
	return (unsigned)(reg - IOAPIC_REG_REDIR) / 2;
}

static u32 ioapic_reg_read(const struct ioapic *io, u8 reg)
{
	unsigned pin = redir_pin(reg);

	switch (reg) {
	case IOAPIC_REG_ID:
		return io->id;
	case IOAPIC_REG_VERSION:
		return IOAPIC_VERSION_VALUE;
	case IOAPIC_REG_ARB:
		return io->arb;
	}
	if (pin >= IOAPIC_PINS)
		return 0;
	pin = array_index_nospec(pin, IOAPIC_PINS);
	return (u32)(io->redir[pin] >> (reg & 1 ? 32 : 0));
}

static void ioapic_reg_write(struct vcpu *vcpu, struct ioapic *io, u8 reg, u32 val)
{
	unsigned pin = redir_pin(reg);
	u64 e;

	if (reg == IOAPIC_REG_ID) {
		/* bits 27:24; the arbitration ID follows it (§3.2.1, §3.2.3) */
		io->id = io->arb = val & 0x0f000000u;
		return;
	}
	if (pin >= IOAPIC_PINS)
		return; /* version, arbitration: read-only; 0x40 and up: none */
	pin = array_index_nospec(pin, IOAPIC_PINS);
	e = io->redir[pin];
	if (reg & 1)
		e = (e & ~RTE_WRITABLE_HIGH) | (((u64)val << 32) & RTE_WRITABLE_HIGH);
	else
		e = (e & ~RTE_WRITABLE_LOW) | (val & RTE_WRITABLE_LOW);
	/* an edge entry has no remote IRR to wait for */
	if (!(e & IOAPIC_RTE_LEVEL))
		e &= ~IOAPIC_RTE_REMOTE_IRR;
	io->redir[pin] = e;
	/* unmasking an asserted level line sends its interrupt */
	if (e & IOAPIC_RTE_LEVEL)
		service(vcpu, io, pin);
}

u32 ioapic_mmio_read(struct vcpu *vcpu, u32 offset)
{
	struct ioapic *io = &vcpu->vm->board->ioapic;
	u32 val = 0;

	spin_lock(&io->lock);
	if (offset == IOAPIC_IOREGSEL)
		val = io->regsel;
	else if (offset == IOAPIC_IOWIN)
		val = ioapic_reg_read(io, io->regsel);
	spin_unlock(&io->lock);
	return val;
}

void ioapic_mmio_write(struct vcpu *vcpu, u32 offset, u32 val)
{
	struct ioapic *io = &vcpu->vm->board->ioapic;

	spin_lock(&io->lock);
	if (offset == IOAPIC_IOREGSEL)
		io->regsel = (u8)val;
	else if (offset == IOAPIC_IOWIN)
		ioapic_reg_write(vcpu, io, io->regsel, val);
	spin_unlock(&io->lock);
}

/* An edge entry fires on the line's rising edge; a level entry whenever
 * the line is asserted and nothing is outstanding (§3.2.4). */
void ioapic_set_line(struct vcpu *vcpu, unsigned pin, bool asserted)
{
	struct ioapic *io = &vcpu->vm->board->ioapic;
	bool was;

	if (pin >= IOAPIC_PINS)
		return;
	pin = array_index_nospec(pin, IOAPIC_PINS);
	spin_lock(&io->lock);
	was = io->lines & BIT(pin);
	if (asserted)
		io->lines |= BIT(pin);
	else
		io->lines &= ~BIT(pin);
	if (asserted && (!was || (io->redir[pin] & IOAPIC_RTE_LEVEL)))
		service(vcpu, io, pin);
	spin_unlock(&io->lock);
}

/* The EOI message clears remote IRR of the level entries with that vector;
 * a line still asserted interrupts again (SDM Vol 3 §11.8.4). */
void ioapic_eoi(struct vcpu *vcpu, u8 vector)
{
	struct ioapic *io = &vcpu->vm->board->ioapic;
	unsigned pin;

	spin_lock(&io->lock);
	for (pin = 0; pin < IOAPIC_PINS; pin++) {
		u64 e = io->redir[pin];

		if ((u8)e != vector || !(e & IOAPIC_RTE_LEVEL) || !(e & IOAPIC_RTE_REMOTE_IRR))
			continue;
		io->redir[pin] = e & ~IOAPIC_RTE_REMOTE_IRR;
		service(vcpu, io, pin);
	}
	spin_unlock(&io->lock);
}
