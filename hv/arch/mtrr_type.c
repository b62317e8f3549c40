// SPDX-License-Identifier: MIT
/* The memory type of a physical range from an MTRR set (see mtrr_type.h). */
#include "mtrr_type.h"

/* IA32_MTRR_DEF_TYPE and PHYSMASK bits (SDM Vol 3 §12.11.2.1, §12.11.2.3) */
#define DEF_TYPE_MASK 0xffull
#define DEF_FIXED_ON BIT(10)
#define DEF_MTRRS_ON BIT(11)
#define VAR_VALID BIT(11)
#define VAR_FRAME (~0xfffull)
#define VAR_TYPE 0xffull
#define FIXED_END 0x100000ull /* the fixed ranges cover the first MiB */
#define FOUR_GIB 0x100000000ull

/* The fixed-range type of the 4 KiB page at pa < 1 MiB (SDM Vol 3 §12.11.2.2):
 * 64 KiB units below 512 KiB, 16 KiB units to 768 KiB, then 4 KiB units. */
static unsigned fixed_type(const struct mtrr_set *s, u64 pa)
{
	unsigned reg, byte;

	if (pa < 0x80000) {
		reg = 0;
		byte = pa >> 16;
	} else if (pa < 0xc0000) {
		reg = 1 + (pa - 0x80000) / 0x20000;
		byte = (pa >> 14) & 7;
	} else {
		reg = 3 + (pa - 0xc0000) / 0x8000;
		byte = (pa >> 12) & 7;
	}
	/* AMD's RdMem/WrMem bits 4:3 are not part of the type (APM Vol 2 §7.8.1) */
	return (s->fixed[reg] >> (8 * byte)) & 7;
}

static int fixed_range_type(const struct mtrr_set *s, u64 base, u64 size)
{
	unsigned t = fixed_type(s, base);
	u64 pa;

	for (pa = base + 4096; pa < base + size; pa += 4096)
		if (fixed_type(s, pa) != t)
			return -1;
	return t;
}

/* SDM Vol 3 §12.11.4.1: one match gives its type; UC wins; WT and WB give
 * WT; other mixes are undefined (read as UC here). */
static int combine(u32 types)
{
	if (!(types & (types - 1)))
		return __builtin_ctz(types);
	if (types & BIT(MTRR_TYPE_UC))
		return MTRR_TYPE_UC;
	if (types == (BIT(MTRR_TYPE_WT) | BIT(MTRR_TYPE_WB)))
		return MTRR_TYPE_WT;
	return MTRR_TYPE_UC;
}

/* The type where no variable range matches: the default, or WB below
 * AMD's TOM2 (-1: the range crosses 4 GiB or TOM2). */
static int unmatched_type(const struct mtrr_set *s, u64 base, u64 last)
{
	bool lo = base >= FOUR_GIB && base < s->tom2_wb;

	if (!s->tom2_wb)
		return s->def_type & DEF_TYPE_MASK;
	if (lo != (last >= FOUR_GIB && last < s->tom2_wb))
		return -1;
	return lo ? MTRR_TYPE_WB : (int)(s->def_type & DEF_TYPE_MASK);
}

int mtrr_range_type(const struct mtrr_set *s, u64 base, u64 size)
{
	u64 last = base + size - 1, within = size - 1;
	u32 types = 0;
	unsigned i;

	/* E clear: everything UC (SDM Vol 3 §12.11.2.1) */
	if (!(s->def_type & DEF_MTRRS_ON))
		return MTRR_TYPE_UC;
	if (s->has_fixed && (s->def_type & DEF_FIXED_ON) && base < FIXED_END)
		return last < FIXED_END ? fixed_range_type(s, base, size) : -1;
	for (i = 0; i < s->nr_var && i < MTRR_SET_VAR_MAX; i++) {
		u64 mask = s->var[i].mask & VAR_FRAME, frame = s->var[i].base & VAR_FRAME;

		if (!(s->var[i].mask & VAR_VALID))
			continue;
		/* An address matches when (pa & mask) == (frame & mask).  Mask
		 * bits inside the range split it unless its upper bits miss. */
		if ((base & mask & ~within) != (frame & mask & ~within))
			continue;
		if (mask & within)
			return -1;
		types |= BIT(s->var[i].base & VAR_TYPE & 7);
	}
	if (types)
		return combine(types);
	return unmatched_type(s, base, last);
}
