/* SPDX-License-Identifier: MIT */
/*
 * A virtual I/O APIC after the Intel 82093AA datasheet: IOREGSEL/IOWIN at
 * 0xFEC00000; the ID, version and arbitration registers; 24 redirection
 * entries with edge and level triggering, masking and remote IRR, which
 * the local APICs' EOI of a level-triggered vector clears (SDM Vol 3
 * §11.8.4).  Fixed and lowest-priority delivery to the VM's vCPUs.
 */
#ifndef MHV_IOAPIC_H
#define MHV_IOAPIC_H

#include "lib/types.h"
#include "arch/ioapic.h"

#define IOAPIC_DEFAULT_BASE 0xfec00000ull
#define IOAPIC_MMIO_SIZE 0x1000
#define IOAPIC_PINS 24

struct vcpu;
struct vm;

struct ioapic {
	volatile bool lock; /* the vCPUs of a VM share it */
	u8 regsel;
	u32 id;	   /* ID register: bits 27:24 */
	u32 arb;   /* arbitration ID, loaded from the ID */
	u32 lines; /* input pins asserted, a bit each */
	u64 redir[IOAPIC_PINS];
};

void ioapic_reset(struct ioapic *io);
/* Accesses by @vcpu to the register window; offset into the page, 32-bit
 * registers (other sizes: IOREGSEL takes its low byte, IOWIN is dropped). */
u32 ioapic_mmio_read(struct vcpu *vcpu, u32 offset);
void ioapic_mmio_write(struct vcpu *vcpu, u32 offset, u32 val);
/* An interrupt line of a device, driven by something @vcpu did. */
void ioapic_set_line(struct vcpu *vcpu, unsigned pin, bool asserted);
/* EOI of a level-triggered @vector by a local APIC (broadcast to the I/O APIC). */
void ioapic_eoi(struct vcpu *vcpu, u8 vector);

/*
 * Delivery on the APIC bus (vapic_ipi.c): @vector to the vCPUs that @dest
 * (8 bits, physical or logical) names, from an interrupt of @vcpu's VM;
 * @level sets the vector's TMR bit.  @lowest: lowest-priority, one vCPU.
 * Returns how many vCPUs accepted it.
 */
unsigned apic_bus_deliver(struct vcpu *vcpu, u8 dest, bool logical, bool lowest, u8 vector,
			  bool level);

#endif
