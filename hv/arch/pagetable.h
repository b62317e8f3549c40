/* SPDX-License-Identifier: MIT */
/*
 * Generic 4-level x86-64 page-table mapper (SDM Vol 3 §4.5, APM Vol 2 §5.3).
 *
 * One walker serves three trees: the host identity map, the nested page
 * table (same format, APM Vol 2 §15.25.5) and page tables built inside a
 * guest's memory. In the last case the addresses stored in entries are
 * guest-physical and differ from the host pointers that reach the pages,
 * so all table memory is reached through the callbacks in struct pt_ctx.
 *
 * The mapper never flushes TLBs: callers that change a live tree do that.
 */
#ifndef MHV_PAGETABLE_H
#define MHV_PAGETABLE_H

#include "lib/types.h"

#define PTE_P BIT(0)
#define PTE_RW BIT(1)
#define PTE_US BIT(2)
#define PTE_PWT BIT(3)
#define PTE_PCD BIT(4)
#define PTE_A BIT(5)
#define PTE_D BIT(6)
#define PTE_PS BIT(7) /* in a 4 KiB PTE this bit is PAT instead */
#define PTE_G BIT(8)
#define PTE_PAT_LARGE BIT(12) /* PAT in 2 MiB / 1 GiB leaves */
#define PTE_NX BIT(63)
#define PTE_ADDR_MASK 0x000ffffffffff000ull

/* #PF error code (SDM Vol 3 §4.7): a protection fault rather than a
 * page not present, a write, a user-mode access. */
#define PF_ERR_PRESENT BIT(0)
#define PF_ERR_WRITE BIT(1)
#define PF_ERR_USER BIT(2)

/* 4-level paging translates 48-bit virtual addresses, SDM Vol 3 §4.5. */
#define PT_VA_BITS 48

#define PT_ERR_INVAL (-1)    /* misaligned, bad shift, non-canonical, bad flags */
#define PT_ERR_NOMEM (-2)    /* alloc_page returned NULL */
#define PT_ERR_CONFLICT (-3) /* a mapping of another leaf size is in the way */

struct pt_ctx {
	/* A zeroed 4 KiB page (host pointer); *phys is what entries store. */
	void *(*alloc_page)(struct pt_ctx *ctx, u64 *phys);
	/* Host pointer to the page-table page whose stored address is phys. */
	void *(*phys_to_virt)(struct pt_ctx *ctx, u64 phys);
	/* Flags of non-leaf entries, e.g. PTE_P | PTE_RW | PTE_US; NPT needs
	 * US at every level (APM Vol 2 §15.25.5). */
	u64 table_flags;
};

/*
 * Map [va, va + size) -> [pa, pa + size) with leaves of 1 << page_shift
 * bytes (12, 21 or 30; PS is set for 21 and 30). va, pa and size must be
 * aligned to the leaf size, the whole va range canonical and on one side of
 * the hole, pa + size at most 1 << 52, and leaf_flags must include PTE_P and
 * no address bits (PTE_PAT_LARGE is allowed for large leaves).
 * Existing tables are reused; an existing leaf of the same size is
 * replaced. Returns 0, PT_ERR_INVAL, PT_ERR_NOMEM, or PT_ERR_CONFLICT when
 * a leaf of another size, or a table where a large leaf should go, is in
 * the way. On NOMEM/CONFLICT the part mapped before the failure stays.
 */
int pt_map_range(struct pt_ctx *ctx, u64 root_phys, u64 va, u64 pa, u64 size, u64 leaf_flags,
		 unsigned page_shift);

/*
 * Translate va. Returns 0 and fills *pa, and if non-NULL *leaf_flags (all
 * non-address bits of the leaf entry, PS and PAT_LARGE included for large
 * leaves) and *page_shift (12, 21 or 30); -1 if va is non-canonical or not
 * mapped, or if phys_to_virt returns NULL for a table (a guest's entry
 * pointing outside its RAM).
 */
int pt_translate(struct pt_ctx *ctx, u64 root_phys, u64 va, u64 *pa, u64 *leaf_flags,
		 unsigned *page_shift);

/*
 * Host identity map of [0, 1 << phys_bits) with 1 GiB leaves when gb_pages,
 * else 2 MiB leaves (the end is rounded up to a whole leaf). phys_bits
 * comes from CPUID 0x80000008 EAX[7:0] and may be up to 52, but 4-level
 * paging only reaches 48-bit virtual addresses, and an identity map needs
 * va == pa to be canonical: the map is capped at 1 << 47, the lower half.
 * Physical memory above 128 TiB is therefore not reachable through it.
 * Returns the number of table pages allocated (not counting the root,
 * which the caller owns), or a negative PT_ERR_*.
 */
long pt_build_identity(struct pt_ctx *ctx, u64 root_phys, unsigned phys_bits, bool gb_pages,
		       u64 leaf_flags);

/*
 * The same identity map, with a leaf only where uniform(arg, base, size)
 * says the range is one piece (for the host: one MTRR memory type); a
 * range that is not is mapped with the next smaller leaves, down to 4 KiB
 * pages, which are always taken.  leaves[0..2], when non-NULL, count the
 * 4 KiB, 2 MiB and 1 GiB leaves made.  Returns as pt_build_identity.
 */
long pt_build_identity_split(struct pt_ctx *ctx, u64 root_phys, unsigned phys_bits, bool gb_pages,
			     u64 leaf_flags, bool (*uniform)(const void *arg, u64 base, u64 size),
			     const void *arg, u64 leaves[3]);

#endif
