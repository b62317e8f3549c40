/* SPDX-License-Identifier: MIT */
/*
 * A guest-controlled index, clamped for speculation: after a bounds check
 * the CPU may still run ahead with an index out of bounds (Spectre v1);
 * the mask below is computed without a branch, so even then the access
 * stays inside the array (as Linux's array_index_nospec()).
 */
#ifndef MHV_NOSPEC_H
#define MHV_NOSPEC_H

#include "types.h"

/* ~0 when index < size, else 0: CMP sets CF, SBB spreads it. */
static inline u64 index_mask_nospec(u64 index, u64 size)
{
	u64 mask;

	asm("cmp %2, %1; sbb %0, %0" : "=r"(mask) : "r"(index), "re"(size) : "cc");
	return mask;
}

/* index when it is below size, else 0; no branch either way. */
#define array_index_nospec(index, size) ((index)&index_mask_nospec((index), (size)))

/* For a table whose size is a power of two (a constant): one AND, which
 * the compiler cannot drop as redundant after the bounds check. */
#define array_index_nospec_pow2(index, size)                                  \
	({                                                                    \
		u64 i_ = (index);                                             \
		_Static_assert(((size) & ((size)-1)) == 0, "a power of two"); \
		asm("and %1, %0" : "+r"(i_) : "i"((size)-1) : "cc");          \
		i_;                                                           \
	})

#endif
