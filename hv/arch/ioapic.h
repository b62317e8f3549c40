/* SPDX-License-Identifier: MIT */
/*
 * The I/O APIC's registers (Intel 82093AA datasheet §3; the ICH9 and AMD
 * FCH I/O APICs keep the layout): an index register IOREGSEL and a data
 * window IOWIN in one 4 KiB MMIO page, and behind them the ID, version and
 * arbitration registers and two 32-bit halves per redirection entry.
 */
#ifndef MHV_ARCH_IOAPIC_H
#define MHV_ARCH_IOAPIC_H

#include "lib/types.h"

#define IOAPIC_IOREGSEL 0x00 /* MMIO offsets (82093AA §3.1) */
#define IOAPIC_IOWIN 0x10

/* Registers behind IOREGSEL/IOWIN (82093AA §3.2) */
#define IOAPIC_REG_ID 0x00
#define IOAPIC_REG_VERSION 0x01
#define IOAPIC_REG_ARB 0x02
#define IOAPIC_REG_REDIR 0x10 /* + 2 * pin: bits 31:0, + 1: bits 63:32 */

/* Version register (82093AA §3.2.2): the highest redirection entry's index */
#define IOAPIC_VERSION_MAX_REDIR(v) (((v) >> 16) & 0xff)

/* Redirection entry (82093AA §3.2.4) */
#define IOAPIC_RTE_DELIVERY_MASK (7u << 8)
#define IOAPIC_RTE_DELIVERY_SMI (2u << 8)
#define IOAPIC_RTE_DEST_LOGICAL BIT(11)
#define IOAPIC_RTE_POLARITY_LOW BIT(13)
#define IOAPIC_RTE_REMOTE_IRR BIT(14)
#define IOAPIC_RTE_LEVEL BIT(15)
#define IOAPIC_RTE_MASKED BIT(16)
#define IOAPIC_RTE_DEST_SHIFT 56

#endif
