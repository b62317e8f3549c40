/* SPDX-License-Identifier: MIT */
/*
 * Bits of the control, flags and debug registers, and of EFER (its MSR
 * index is in msr.h).  The one place these are defined: the host's
 * set-up, both backends and the guests' runtime read them from here.
 */
#ifndef MHV_REGS_H
#define MHV_REGS_H

#include "lib/types.h"

/* CR0 (SDM Vol 3 §2.5; APM Vol 2 §3.1.1) */
#define CR0_PE BIT(0)
#define CR0_MP BIT(1)
#define CR0_EM BIT(2)
#define CR0_TS BIT(3)
#define CR0_ET BIT(4)
#define CR0_NE BIT(5)
#define CR0_WP BIT(16)
#define CR0_AM BIT(18)
#define CR0_NW BIT(29)
#define CR0_CD BIT(30)
#define CR0_PG BIT(31)

/* CR4 (SDM Vol 3 §2.5; APM Vol 2 §3.1.3) */
#define CR4_VME BIT(0)
#define CR4_PVI BIT(1)
#define CR4_TSD BIT(2)
#define CR4_DE BIT(3)
#define CR4_PSE BIT(4)
#define CR4_PAE BIT(5)
#define CR4_MCE BIT(6)
#define CR4_PGE BIT(7)
#define CR4_PCE BIT(8)
#define CR4_OSFXSR BIT(9)
#define CR4_OSXMMEXCPT BIT(10)
#define CR4_UMIP BIT(11)
#define CR4_LA57 BIT(12)
#define CR4_VMXE BIT(13)
#define CR4_SMXE BIT(14)
#define CR4_FSGSBASE BIT(16)
#define CR4_PCIDE BIT(17)
#define CR4_OSXSAVE BIT(18)
#define CR4_KL BIT(19)
#define CR4_SMEP BIT(20)
#define CR4_SMAP BIT(21)
#define CR4_PKE BIT(22)
#define CR4_CET BIT(23)
#define CR4_PKS BIT(24)
#define CR4_UINTR BIT(25)
#define CR4_LAM_SUP BIT(28)
#define CR4_FRED BIT(32)

/* EFER (SDM Vol 3 §2.2.1; APM Vol 2 §3.1.7) */
#define EFER_SCE BIT(0)
#define EFER_LME BIT(8)
#define EFER_LMA BIT(10)
#define EFER_NXE BIT(11)
#define EFER_SVME BIT(12)
#define EFER_AIBRSE BIT(21) /* Automatic IBRS: CPL 0 IBRS-protected (APM Vol 2 §3.1.7) */

/* RFLAGS (SDM Vol 1 §3.4.3; APM Vol 2 §3.1.6) */
#define RFLAGS_FIXED1 BIT(1) /* reads as 1 */
#define RFLAGS_TF BIT(8)
#define RFLAGS_IF BIT(9)
#define RFLAGS_DF BIT(10)
/* Reserved RFLAGS bits: 63:22, 15, 5, 3 (SDM Vol 3 §27.3.1.4) */
#define RFLAGS_RESERVED (~0x3fffffull | BIT(15) | BIT(5) | BIT(3))

/* DR6 and DR7 after reset or INIT (SDM Vol 3 §10.1.1 Table 10-1) */
#define DR6_INIT 0xffff0ff0ull
#define DR7_INIT 0x400ull
#define DR7_GD BIT(13) /* general detect: cleared as a #DB is delivered (SDM Vol 3 §18.2.4) */
/* DR6: B0-B3 (breakpoint matches) and BS (single step), SDM Vol 3 §18.2.3 */
#define DR6_TRAP_BITS 0xfull
#define DR6_BD BIT(13)
#define DR6_BS BIT(14)
/* DR7 L0-G3, the four breakpoints' enables (SDM Vol 3 §18.2.4) */
#define DR7_ENABLES 0xffull

/*
 * Could this debug state raise a #DB?  Breakpoints and general detect
 * need their DR7 enables, a single step needs RFLAGS.TF (SDM Vol 3
 * §18.2.4, §18.3.1; APM Vol 2 §13.1); ICEBP and the TSS T bit are left
 * out: code that never executes the one nor switches tasks.
 */
static inline bool debug_armed(u64 dr7, u64 rflags)
{
	return (dr7 & (DR7_ENABLES | DR7_GD)) || (rflags & RFLAGS_TF);
}

/* Exception vectors mhv intercepts in its guests (SDM Vol 3 §6.3.1 Table 6-1) */
#define VECTOR_DB 1
#define VECTOR_NMI 2
#define VECTOR_AC 17
#define VECTOR_MC 18

#endif
