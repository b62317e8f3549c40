/* SPDX-License-Identifier: MIT */
/*
 * The local APIC's architecture (SDM Vol 3 Chapter 11), shared by the
 * host's LAPIC driver (platform/lapic) and the guests' virtual APIC
 * (vdev/vapic): IA32_APIC_BASE bits, register offsets, LVT and ICR fields.
 */
#ifndef MHV_APIC_H
#define MHV_APIC_H

#include "lib/types.h"

/* IA32_APIC_BASE (MSR in msr.h; SDM Vol 3 §11.4.4, §11.12.1) */
#define APIC_DEFAULT_BASE 0xfee00000ull
#define APIC_BASE_BSP BIT(8)
#define APIC_BASE_EXTD BIT(10) /* x2APIC mode */
#define APIC_BASE_EN BIT(11)   /* global enable */
#define APIC_MMIO_SIZE 0x1000

/* Register offsets, xAPIC numbering (SDM Vol 3 Table 11-1) */
#define APIC_ID 0x020
#define APIC_VERSION 0x030
#define APIC_TPR 0x080
#define APIC_APR 0x090
#define APIC_PPR 0x0a0
#define APIC_EOI 0x0b0
#define APIC_LDR 0x0d0
#define APIC_DFR 0x0e0
#define APIC_SVR 0x0f0
#define APIC_ISR 0x100
#define APIC_TMR 0x180
#define APIC_IRR 0x200
#define APIC_ESR 0x280
#define APIC_LVT_CMCI 0x2f0
#define APIC_ICR 0x300 /* bits 31:0; x2APIC: the whole 64-bit ICR */
#define APIC_ICR_HIGH 0x310
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_THERMAL 0x330
#define APIC_LVT_PMC 0x340
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_ERROR 0x370
#define APIC_TIMER_INITIAL 0x380
#define APIC_TIMER_CURRENT 0x390
#define APIC_TIMER_DIVIDE 0x3e0
#define APIC_SELF_IPI 0x3f0 /* x2APIC only */

/* x2APIC MSRs: 0x800 + (xAPIC offset >> 4) (SDM Vol 3 §11.12.1.2) */
#define X2APIC_MSR_BASE 0x800
#define X2APIC_MSR_LAST 0x8ff
#define X2APIC_MSR(off) (X2APIC_MSR_BASE + ((off) >> 4))

#define APIC_SVR_ENABLE BIT(8) /* APIC software enable (§11.9) */

/* LVT entries (SDM Vol 3 §11.5.1, Figure 11-8) */
#define LVT_DELIVERY_MODE_MASK (7u << 8)
#define LVT_DELIVERY_FIXED (0u << 8)
#define LVT_DELIVERY_NMI (4u << 8)
#define LVT_MASKED BIT(16)
/* LVT timer mode, bits 18:17 (SDM Vol 3 §11.5.4, Figure 11-8) */
#define LVT_TIMER_MODE_MASK (3u << 17)
#define LVT_TIMER_ONE_SHOT (0u << 17)
#define LVT_TIMER_PERIODIC (1u << 17)
#define LVT_TIMER_TSC_DEADLINE (2u << 17)
#define APIC_DIVIDE_BY_1 0xb /* divide configuration (SDM Vol 3 Figure 11-10) */

/* ICR (SDM Vol 3 §11.6.1): delivery modes, bits 10:8 */
#define ICR_DM_FIXED 0
#define ICR_DM_NMI 4
#define ICR_DM_INIT 5
#define ICR_DM_STARTUP 6
/* ... and in place, to build an ICR value */
#define ICR_FIXED (ICR_DM_FIXED << 8)
#define ICR_INIT (ICR_DM_INIT << 8)
#define ICR_STARTUP (ICR_DM_STARTUP << 8)
#define ICR_DEST_LOGICAL BIT(11)
#define ICR_BUSY BIT(12) /* delivery status, xAPIC only */
#define ICR_LEVEL_ASSERT BIT(14)
#define ICR_TRIGGER_LEVEL BIT(15)
/* destination shorthands, bits 19:18 */
#define ICR_TO_DEST 0
#define ICR_TO_SELF 1
#define ICR_TO_OTHERS 3
#define ICR_ALL_BUT_SELF ((u32)ICR_TO_OTHERS << 18)

/*
 * The highest APIC ID an xAPIC can address: its ICR destination has 8
 * bits, and 0xFF there is the broadcast (SDM Vol 3 §11.6.2.1); an ID
 * above this one takes x2APIC mode, whose destination has 32 (§11.12.9).
 */
#define XAPIC_MAX_ID 0xfe

/* Whether any of these APIC IDs needs the host in x2APIC mode. */
static inline bool apic_ids_need_x2apic(const u32 *ids, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (ids[i] > XAPIC_MAX_ID)
			return true;
	return false;
}

#endif
