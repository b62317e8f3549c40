/* SPDX-License-Identifier: MIT */
/*
 * Instruction-length checks and MMIO instruction decoding from raw bytes.
 *
 * QEMU's SVM does not implement NRIP save and we run without decode
 * assists, so the exit handlers must derive the length of an intercepted
 * instruction from the bytes at guest RIP, and decode the MOV behind a
 * nested page fault themselves. Nothing here assumes a length without
 * having checked every byte it covers.
 *
 * All decoding assumes 64-bit mode (40-4F are REX prefixes). The lengths
 * also hold for 32-bit protected mode, because the ModRM/SIB forms of 32-
 * and 64-bit addressing have the same size; 16-bit addressing is not
 * supported.
 */
#ifndef MHV_INSN_H
#define MHV_INSN_H

#include "lib/types.h"

/* SDM Vol 2 §2.3.11: the CPU faults on anything longer. */
#define INSN_MAX_LEN 15

enum insn_op {
	INSN_CPUID,
	INSN_VMMCALL,
	INSN_VMCALL,
	INSN_RDMSR,
	INSN_WRMSR,
	INSN_HLT,
	INSN_RDTSC,
	INSN_RDTSCP,
	INSN_RDPMC,
	INSN_XSETBV,
	INSN_WBINVD,
	INSN_INVD,
	INSN_PAUSE,
	INSN_MOV_CR,
	INSN_MOV_DR,
	INSN_INVLPG,
	INSN_MONITOR,
	INSN_MWAIT,
	INSN_OP_COUNT
};

/*
 * Length of the instruction at bytes[0..avail) if it is @op, else negative
 * (other instruction, truncated, or longer than 15 bytes). Any number of
 * legacy prefixes (66 67 F2 F3 2E 36 3E 26 64 65 F0) and then one REX
 * (40-4F) may precede the opcode.
 * MOV_CR is 0F 20/22 /r and MOV_DR 0F 21/23 /r: the CPU treats them as
 * register forms whatever the mod bits say, so the length is always
 * prefixes + 3. INVLPG is 0F 01 /7 with a memory operand. PAUSE is F3 90
 * (without REX.B, which would make it XCHG r8, rax).
 */
int insn_length(enum insn_op op, const u8 *bytes, size_t avail);

/*
 * MOV to or from a control register (0F 22 /r, 0F 20 /r; SDM Vol 2B
 * "MOV-Move to/from Control Registers") in code of @code_bits (16, 32,
 * 64): the CR number (ModRM.reg, REX.R; LOCK selects CR8 from CR0 on AMD,
 * APM Vol 3 "MOV CRn"), the GPR (ModRM.rm, REX.B; mod is ignored) and
 * whether it writes the CR.  Returns the length, or negative for any other
 * instruction or truncated bytes.
 */
struct mov_cr_insn {
	u8 cr, gpr;
	bool to_cr;
};
int insn_decode_mov_cr(const u8 *bytes, size_t avail, unsigned code_bits, struct mov_cr_insn *out);

/* Mnemonic for logs; "?" for an out-of-range op. */
const char *insn_op_name(enum insn_op op);

struct mmio_insn {
	u8 len;		  /* total instruction length */
	u8 size;	  /* memory access size in bytes: 1, 2, 4 or 8 */
	u8 dst_size;	  /* reads: width of the destination register write
			    * (differs from size for MOVZX/MOVSX/MOVSXD) */
	bool write;	  /* true: register/immediate -> memory */
	bool has_imm;	  /* write of an immediate (C6/C7) */
	u64 imm;	  /* the immediate, truncated to size (C7 with
			    * REX.W: imm32 sign-extended to 64 bits) */
	u8 reg;		  /* GPR 0..15 (rax rcx rdx rbx rsp rbp rsi rdi r8..r15) */
	bool high_byte;	  /* reg is AH/CH/DH/BH: reg holds the base register 0..3 */
	bool zero_extend; /* reads: bits above dst_size*8 (of 64) are cleared */
	bool sign_extend; /* reads: MOVSX/MOVSXD, value is sign-extended first */
};

/*
 * Decode a 64-bit-mode MOV with a memory operand: 88 89 8A 8B, C6 /0,
 * C7 /0, A0-A3 (moffs), 0F B6/B7 (MOVZX), 0F BE/BF (MOVSX), 63 (MOVSXD),
 * with legacy prefixes (66, 67, segment overrides, F2/F3 hints) and REX.
 * LOCK is rejected (#UD on MOV). Returns 0 and fills @out, or negative for
 * anything else, a register-only form (mod == 3), or truncated bytes.
 * The address itself is not computed: the nested page fault supplies it.
 */
int insn_decode_mmio(const u8 *bytes, size_t avail, struct mmio_insn *out);
/* The same for code of @code_bits (16, 32 or 64: the CS default size and
 * long mode): no REX outside 64-bit mode, 16-bit addressing forms. */
int insn_decode_mmio_mode(const u8 *bytes, size_t avail, unsigned code_bits, struct mmio_insn *out);

/*
 * New value of the destination GPR after a read of @value: 8/16-bit
 * destinations merge into @old_reg, 32-bit ones zero-extend to 64 bits,
 * high_byte writes bits 15:8, MOVZX/MOVSX extend to dst_size first.
 * SDM Vol 1 §3.4.1.1.
 */
u64 mmio_merge_read(const struct mmio_insn *insn, u64 old_reg, u64 value);

/* The value a write stores (register or immediate), truncated to size. */
u64 mmio_write_value(const struct mmio_insn *insn, u64 reg_value);

/* INS or OUTS as its prefixes make it (SDM Vol 2B INS/INSB/INSW/INSD,
 * OUTS/OUTSB/OUTSW/OUTSD). */
struct string_io_insn {
	u8 len;
	u8 size;      /* 1, 2 or 4 bytes per element */
	u8 addr_bits; /* 16, 32 or 64: which of SI/ESI/RSI, DI/.., CX/.. it uses */
	u8 seg;	      /* enum seg_reg of the memory operand: ES for INS */
	bool in;
	bool rep; /* F3 or F2: both repeat INS/OUTS */
};

/*
 * Decode INS/OUTS (6C-6F) in code of @code_bits (16, 32, 64) with its
 * prefixes: 66, 67, segment overrides (only FS/GS count in 64-bit mode,
 * SDM Vol 1 §3.3.7.1; INS always writes through ES), F2/F3 and REX.
 * Returns 0 and fills @out, or negative for another instruction or
 * truncated bytes.
 */
int insn_decode_string_io(const u8 *bytes, size_t avail, unsigned code_bits,
			  struct string_io_insn *out);

#endif
