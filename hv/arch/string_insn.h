/* SPDX-License-Identifier: MIT */
/*
 * How string instructions (INS, OUTS, MOVS, ...) use their registers: the
 * address size picks SI/ESI/RSI, DI/EDI/RDI and CX/ECX/RCX (SDM Vol 1
 * §3.3.7; Vol 2B REP: the count register follows the address size),
 * RFLAGS.DF the direction of each step (SDM Vol 1 §3.4.3.2).
 */
#ifndef MHV_STRING_INSN_H
#define MHV_STRING_INSN_H

#include "lib/types.h"

/* The bits of an index or count register that an address size uses. */
static inline u64 string_addr_mask(unsigned addr_bits)
{
	return addr_bits >= 64 ? ~0ull : BIT(addr_bits) - 1;
}

static inline u64 string_reg_get(u64 reg, unsigned addr_bits)
{
	return reg & string_addr_mask(addr_bits);
}

/* A 16-bit register write keeps bits 63:16, a 32-bit one clears bits
 * 63:32 (SDM Vol 1 §3.4.1.1). */
static inline u64 string_reg_set(u64 reg, u64 val, unsigned addr_bits)
{
	if (addr_bits == 16)
		return (reg & ~0xffffull) | (val & 0xffff);
	return val & string_addr_mask(addr_bits);
}

/* SI/DI after @n elements of @size bytes: down with DF set, up without;
 * the offset wraps within the address size. */
static inline u64 string_reg_advance(u64 reg, unsigned addr_bits, unsigned size, bool df, u64 n)
{
	u64 delta = n * size;

	return string_reg_set(reg, df ? reg - delta : reg + delta, addr_bits);
}

/*
 * Elements to move in one go: one without REP; with REP the count (zero:
 * the instruction does nothing), at most @max, so that a long REP is
 * done in several passes with the instruction executed again in between,
 * where an interrupt may come, as between iterations on hardware (SDM
 * Vol 2B REP).
 */
static inline u64 string_batch(u64 count, bool rep, u64 max)
{
	if (!rep)
		return 1;
	return count < max ? count : max;
}

#endif
