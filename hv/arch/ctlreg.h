/* SPDX-License-Identifier: MIT */
/*
 * What a MOV to CR0 or CR4 may load, as the CPU checks it before the
 * write takes effect (SDM Vol 2B "MOV-Move to/from Control Registers",
 * SDM Vol 3 §2.5; APM Vol 2 §3.1.1, §3.1.3).  Used where mhv completes the
 * write for the guest: the guest must get the #GP the CPU would give.
 */
#ifndef MHV_CTLREG_H
#define MHV_CTLREG_H

#include "lib/types.h"
#include "regs.h"

/* The state a write is checked against: the guest's own values. */
struct ctlreg_state {
	u64 cr0, cr3, cr4, efer;
	bool code64;   /* 64-bit mode: EFER.LMA and CS.L */
	u64 cr4_valid; /* CR4 bits the CPU implements (ctlreg_cr4_valid) */
};

/*
 * The CR4 bits a CPU with these CPUID leaves implements: leaf 1 ECX/EDX,
 * leaf 7.0 EBX/ECX/EDX and leaf 7.1 EAX (SDM Vol 2A CPUID; SDM Vol 3 §2.5
 * names the feature behind each CR4 bit).  Every other bit is reserved.
 */
u64 ctlreg_cr4_valid(u32 l1_ecx, u32 l1_edx, u32 l7_ebx, u32 l7_ecx, u32 l7_edx, u32 l7_1_eax);

/*
 * MOV to CR0 of *val: false when it raises #GP(0), else true with *val
 * the value CR0 takes (reserved bits 31:0 are ignored, ET reads as 1).
 */
bool ctlreg_cr0_write(const struct ctlreg_state *s, u64 *val);

/* MOV to CR4 of val: false when it raises #GP(0). */
bool ctlreg_cr4_write(const struct ctlreg_state *s, u64 val);

/* CR4 bits whose change invalidates TLB entries (SDM Vol 3 §4.10.4.1). */
#define CTLREG_CR4_TLB_BITS \
	(CR4_PSE | CR4_PAE | CR4_PGE | CR4_PCIDE | CR4_SMEP | CR4_SMAP | CR4_PKE | CR4_LA57)

#endif
