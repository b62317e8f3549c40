/* SPDX-License-Identifier: MIT */
#ifndef MHV_PAGE_ALLOC_H
#define MHV_PAGE_ALLOC_H

#include "lib/types.h"

struct mem_range;

#define PAGE_ALLOC_MAX_RANGES 64

struct page_range {
	u64 base;  /* physical address of the first free page */
	u64 pages; /* free pages left */
};

/*
 * Bump allocation over a handful of physical ranges, with marks: the
 * hypervisor's lifetime allocations come first, then each VM takes a
 * mark, allocates, and releases everything back to its mark when it is
 * torn down (VMs run one after another).  CPUs that run VMs at once
 * each get an arena of their own (page_alloc_carve), so the marks of one
 * never release another's pages.
 */
struct page_alloc {
	u32 nr_ranges;
	struct page_range ranges[PAGE_ALLOC_MAX_RANGES];
	u64 total_pages;
};

struct page_alloc_mark {
	struct page_range ranges[PAGE_ALLOC_MAX_RANGES];
};

/* Build the free ranges: the reserved pool first, then usable RAM above 1 MiB. */
void page_alloc_init(struct page_alloc *pa, u64 pool_base, u64 pool_pages,
		     const struct mem_range *mem, u32 nr_mem);
/* Physical address of npages contiguous pages, not zeroed; 0 when none left. */
u64 page_alloc_contig(struct page_alloc *pa, u64 npages);
void page_alloc_get_mark(const struct page_alloc *pa, struct page_alloc_mark *m);
void page_alloc_release(struct page_alloc *pa, const struct page_alloc_mark *m);
u64 page_alloc_free_pages(const struct page_alloc *pa);
/* Free pages in the largest range of pa. */
u64 page_alloc_largest(const struct page_alloc *pa);
/*
 * n arenas of pages contiguous pages each, cut from one range of pa and
 * initialised in arenas[0..n): CPUs that create VMs at once each take
 * marks in and release to their own arena, never another's.  false (and
 * pa untouched) when no range of pa holds n * pages.
 */
bool page_alloc_carve(struct page_alloc *pa, struct page_alloc *arenas, unsigned n, u64 pages);

/* Addresses [lo, hi): memory something was given. */
struct page_span {
	u64 lo, hi;
};

/*
 * What an allocator gave out between marks @before and @after, taken in
 * that order with nothing released in between: a span per range that
 * moved, at most @max of them; how many.
 */
u32 page_alloc_taken(const struct page_alloc_mark *before, const struct page_alloc_mark *after,
		     struct page_span *spans, u32 max);
/* Whether a span of @a overlaps a span of @b; the first overlap in @where. */
bool page_spans_overlap(const struct page_span *a, u32 na, const struct page_span *b, u32 nb,
			struct page_span *where);

/* The hypervisor's allocator (identity-mapped, so physical = pointer). */
extern struct page_alloc hv_pages;
/* Where this CPU allocates: its own arena while CPUs run VMs at once
 * (struct cpu.arena), else hv_pages. */
struct page_alloc *page_arena(void);
void *alloc_pages_zeroed(u64 npages);
static inline void *alloc_page_zeroed(void)
{
	return alloc_pages_zeroed(1);
}

#endif
