// SPDX-License-Identifier: MIT
/*
 * The offsets the backends' entry code (svm_entry.asm, vmx_entry.asm,
 * through core/guest_regs.inc) reads struct vcpu at, taken from the C
 * structs at build time so that the two can never disagree.  This file is
 * never linked: the Makefile compiles it to assembly and turns each marker
 * line "->NAME value" into "%define NAME value" in
 * build/hv/core/asm_offsets.inc.
 */
#include "core/vm.h"

#define ASM_OFFSET(name, member)                          \
	__asm__ volatile("\n.ascii \"->" #name " %c0\"\n" \
			 :                                \
			 : "i"(__builtin_offsetof(struct vcpu, member)))

void asm_offsets(void);

void asm_offsets(void)
{
	/* the guest GPRs, in ModRM order (enum gpr) */
	ASM_OFFSET(G_RAX, regs.gpr[GPR_RAX]);
	ASM_OFFSET(G_RCX, regs.gpr[GPR_RCX]);
	ASM_OFFSET(G_RDX, regs.gpr[GPR_RDX]);
	ASM_OFFSET(G_RBX, regs.gpr[GPR_RBX]);
	ASM_OFFSET(G_RBP, regs.gpr[GPR_RBP]);
	ASM_OFFSET(G_RSI, regs.gpr[GPR_RSI]);
	ASM_OFFSET(G_RDI, regs.gpr[GPR_RDI]);
	ASM_OFFSET(G_R8, regs.gpr[GPR_R8]);
	ASM_OFFSET(G_R9, regs.gpr[GPR_R9]);
	ASM_OFFSET(G_R10, regs.gpr[GPR_R10]);
	ASM_OFFSET(G_R11, regs.gpr[GPR_R11]);
	ASM_OFFSET(G_R12, regs.gpr[GPR_R12]);
	ASM_OFFSET(G_R13, regs.gpr[GPR_R13]);
	ASM_OFFSET(G_R14, regs.gpr[GPR_R14]);
	ASM_OFFSET(G_R15, regs.gpr[GPR_R15]);
	/* the timed loops' TSC stamps (struct vcpu_timing) */
	ASM_OFFSET(T_ENTRY_TSC, timing.entry_tsc);
	ASM_OFFSET(T_EXIT_TSC, timing.exit_tsc);
	/* the per-vCPU exit table the PMU run loops call through */
	ASM_OFFSET(V_EXIT_TABLE, exit_table);
}
