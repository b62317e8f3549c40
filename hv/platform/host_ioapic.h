/* SPDX-License-Identifier: MIT */
/*
 * The machine's I/O APICs as the firmware left them: found in the MADT,
 * every redirection entry masked at take-over (the host polls; a device's
 * interrupt routed by the firmware must not reach a CPU that runs guests).
 */
#ifndef MHV_HOST_IOAPIC_H
#define MHV_HOST_IOAPIC_H

#include "lib/types.h"

/* An I/O APIC structure of the MADT (ACPI 6.5 §5.2.12.3) */
struct madt_ioapic {
	u8 id;
	u64 address;
	u32 gsi_base;
};

/* The MADT's I/O APICs, the first max into out: how many the table lists,
 * or -1 when it is malformed. */
int madt_ioapics(const void *madt, struct madt_ioapic *out, unsigned max);

/* Register access behind IOREGSEL/IOWIN of the I/O APIC at base (the unit
 * tests put a model here). */
struct ioapic_regs {
	u32 (*read)(u64 base, u8 reg);
	void (*write)(u64 base, u8 reg, u32 val);
};

struct ioapic_mask_result {
	unsigned entries;	 /* redirection entries */
	unsigned masked;	 /* unmasked before, masked now */
	unsigned already_masked; /* masked by the firmware */
	unsigned smi;		 /* SMI delivery: left as they were */
};

/* Mask every redirection entry of one I/O APIC but those delivering an SMI. */
void ioapic_mask_all(const struct ioapic_regs *regs, u64 base, struct ioapic_mask_result *r);

/* At take-over: every I/O APIC in the MADT at rsdp masked, one line said. */
void host_ioapic_mask(u64 rsdp);

#endif
