// SPDX-License-Identifier: MIT
/*
 * Which x2APIC MSRs exist, which way, and which bits of a WRMSR must be
 * zero: SDM Vol 3 §11.12.1.2 Table 11-6 (older editions §10.12.1.2 Table
 * 10-6) and the register figures it points to.  Non-zero reserved bits
 * in a WRMSR #GP (§11.12.1.3), and so does RDMSR of a write-only or
 * absent register and WRMSR of a read-only one.  Bits 63:32 are reserved
 * in every register but the ICR.
 */
#include "vapic_priv.h"

#define RO .read = true
/* @valid: the bits a WRMSR may set (read-only bits among them are ignored) */
#define RW(valid) .read = true, .write = true, .rsvd = ~(u64)(valid)
#define WO(valid) .write = true, .rsvd = ~(u64)(valid)

/* LVT entries (Figure 11-8): vector 7:0, delivery status 12 (read-only),
 * mask 16, and per entry: */
#define LVT_BASE 0x110ffu
#define LVT_DM LVT_DELIVERY_MODE_MASK
#define LVT_LINT (LVT_DM | 0xe000u) /* and polarity, remote IRR, trigger mode */

/*
 * x2APIC ICR (§11.12.9, Figure 11-12): the xAPIC ICR's low half less
 * the delivery status bit 12; bit 13 and 17:16 and 31:20 reserved as in
 * xAPIC mode; the destination in 63:32.
 */
#define X2APIC_ICR_VALID 0xffffffff000ccfffull

const struct x2apic_rule x2apic_rules[X2APIC_NR_REGS] = {
	[APIC_ID >> 4] = { RO },
	[APIC_VERSION >> 4] = { RO },
	[APIC_TPR >> 4] = { RW(0xff) }, /* bits 31:8 reserved */
	/* APR (0x809), RRD (0x80C) and DFR (0x80E): not in x2APIC mode */
	[APIC_PPR >> 4] = { RO },
	[APIC_EOI >> 4] = { WO(0) }, /* a non-zero write #GPs */
	[APIC_LDR >> 4] = { RO },    /* derived from the x2APIC ID (§11.12.10.2) */
	/*
	 * SVR (§11.9, Figure 11-23): vector and APIC enable.  Focus
	 * processor checking (bit 9) is not offered and EOI-broadcast
	 * suppression (bit 12) only where the version register's bit 24
	 * says so (§11.8.5): mhv's does not, so both are reserved.
	 */
	[APIC_SVR >> 4] = { RW(0x1ff) },
	/* 8 registers of 32 vectors each */
	[APIC_ISR >> 4 ...(APIC_ISR >> 4) + 7] = { RO },
	[APIC_TMR >> 4 ...(APIC_TMR >> 4) + 7] = { RO },
	[APIC_IRR >> 4 ...(APIC_IRR >> 4) + 7] = { RO },
	[APIC_ESR >> 4] = { RW(0) }, /* a non-zero write #GPs */
	/* LVT CMCI (0x82F): absent, the version register counts 6 LVT entries */
	[APIC_ICR >> 4] = { RW(X2APIC_ICR_VALID) },
	/* ICR bits 63:32 (0x831): part of the ICR at 0x830 */
	[APIC_LVT_TIMER >> 4] = { RW(LVT_BASE | LVT_TIMER_MODE_MASK) },
	[APIC_LVT_THERMAL >> 4] = { RW(LVT_BASE | LVT_DM) },
	[APIC_LVT_PMC >> 4] = { RW(LVT_BASE | LVT_DM) },
	[APIC_LVT_LINT0 >> 4] = { RW(LVT_BASE | LVT_LINT) },
	[(APIC_LVT_LINT0 >> 4) + 1] = { RW(LVT_BASE | LVT_LINT) }, /* LINT1 */
	[APIC_LVT_ERROR >> 4] = { RW(LVT_BASE) },
	[APIC_TIMER_INITIAL >> 4] = { RW(0xffffffffu) },
	[APIC_TIMER_CURRENT >> 4] = { RO },
	[APIC_TIMER_DIVIDE >> 4] = { RW(0xb) }, /* bits 0, 1, 3 (Figure 11-10) */
	[APIC_SELF_IPI >> 4] = { WO(0xff) },	/* the vector; 31:8 reserved (§11.12.11) */
};
