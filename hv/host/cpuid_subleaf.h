/* SPDX-License-Identifier: MIT */
/*
 * The CPUID leaves whose answer depends on the sub-leaf in ECX, and the
 * init-time cache of their sub-leaves from 1 up (sub-leaf 0 lives in the
 * cache's std[] and ext[], 7.1 in leaf7_1, XSTATE's 0xD in hv/xstate).
 * A guest that enumerates them (Linux's cache-leaf and topology loops
 * stop at the first sub-leaf of type 0) must see each sub-leaf's own
 * answer, and zeros past the last: answering sub-leaf 0 for all of them
 * left Linux looping forever in find_num_cache_leaves().
 */
#ifndef MHV_CPUID_SUBLEAF_H
#define MHV_CPUID_SUBLEAF_H

#include "lib/types.h"
#include "arch/x86.h"

/* SDM Vol 2A CPUID, Table 3-8: 4 cache parameters, 7 features, 0xB and
 * 0x1F topology, 0xD XSTATE, 0xF/0x10 RDT, 0x12 SGX, 0x14 PT, 0x17 SoC
 * vendor, 0x18 TLB, 0x1B PCONFIG, 0x1D/0x1E AMX. */
#define CPUID_STD_INDEXED                                                               \
	(BIT(0x4) | BIT(0x7) | BIT(0xb) | BIT(0xd) | BIT(0xf) | BIT(0x10) | BIT(0x12) | \
	 BIT(0x14) | BIT(0x17) | BIT(0x18) | BIT(0x1b) | BIT(0x1d) | BIT(0x1e) | BIT(0x1f))
/* APM Vol 3 Appendix E: 8000_001D cache topology, 8000_0020 platform QoS,
 * 8000_0026 extended CPU topology; bit n is leaf 8000_0000 + n. */
#define CPUID_EXT_INDEXED (BIT(0x1d) | BIT(0x20) | BIT(0x26))

#define CPUID_SUB_CACHED 64

struct cpuid_sub {
	u32 leaf, subleaf;
	struct cpuid_regs r;
};

struct cpuid_subleaves {
	u32 count;
	struct cpuid_sub sub[CPUID_SUB_CACHED];
};

static inline bool cpuid_leaf_indexed(u32 leaf)
{
	if (leaf < 32)
		return (CPUID_STD_INDEXED >> leaf) & 1;
	if (leaf - 0x80000000u < 64)
		return (CPUID_EXT_INDEXED >> (leaf - 0x80000000u)) & 1;
	return false;
}

/* Reads the sub-leaves from 1 up of the indexed leaves at or below
 * max_std and max_ext, each through read() (host CPUID; a fake CPU in the
 * unit test). */
void cpuid_subleaves_fill(struct cpuid_subleaves *s, u32 max_std, u32 max_ext,
			  void (*read)(u32 leaf, u32 subleaf, struct cpuid_regs *r));
/* The cached answer for (leaf, subleaf >= 1), or NULL: the sub-leaf does
 * not exist and reads as zeros. */
const struct cpuid_regs *cpuid_subleaf_find(const struct cpuid_subleaves *s, u32 leaf, u32 subleaf);

#endif
