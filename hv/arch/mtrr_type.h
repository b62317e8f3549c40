/* SPDX-License-Identifier: MIT */
/*
 * The memory type the host's MTRRs give a physical range (SDM Vol 3
 * §12.11, APM Vol 2 §7.7), so that the host identity map never puts one
 * large page across a change of type: "undefined" on Intel (SDM Vol 3
 * §12.11.9, Large Page Size Considerations).  Pure: the registers come in
 * a struct mtrr_set, read by the host (hv/host/paging.c) or made up by a
 * test.
 */
#ifndef MHV_MTRR_TYPE_H
#define MHV_MTRR_TYPE_H

#include "lib/types.h"

/* Memory types (SDM Vol 3 §12.11.1 Table 12-8) */
enum mtrr_type {
	MTRR_TYPE_UC = 0,
	MTRR_TYPE_WC = 1,
	MTRR_TYPE_WT = 4,
	MTRR_TYPE_WP = 5,
	MTRR_TYPE_WB = 6,
};

#define MTRR_SET_FIXED 11   /* FIX64K_00000, FIX16K_80000/A0000, FIX4K_C0000..F8000 */
#define MTRR_SET_VAR_MAX 32 /* MTRRcap.VCNT is 8-10 on PCs; more are not read */

struct mtrr_var {
	u64 base; /* IA32_MTRR_PHYSBASEn: frame | type */
	u64 mask; /* IA32_MTRR_PHYSMASKn: frame | bit 11 valid */
};

struct mtrr_set {
	u64 def_type;		   /* IA32_MTRR_DEF_TYPE: type, FE (bit 10), E (bit 11) */
	bool has_fixed;		   /* MTRRcap.FIX */
	u64 fixed[MTRR_SET_FIXED]; /* in the order above, 8 one-byte types each */
	unsigned nr_var;
	struct mtrr_var var[MTRR_SET_VAR_MAX];
	/* AMD: SYSCFG.MtrrTom2En and Tom2ForceMemTypeWB make [4 GiB, TOM2)
	 * write-back where no variable range matches (APM Vol 2 §7.9.1);
	 * 0 when off or not AMD. */
	u64 tom2_wb;
};

/*
 * The one memory type of [base, base + size) (size a power of two of at
 * least 4 KiB, base aligned to it), or -1 when the range has more than
 * one.  A range that crosses 1 MiB while the fixed ranges are on counts
 * as mixed.  Overlapping variable ranges combine as SDM Vol 3 §12.11.4.1
 * says (UC wins, WT over WB); the combinations it leaves undefined read
 * as UC.
 */
int mtrr_range_type(const struct mtrr_set *s, u64 base, u64 size);

#endif
