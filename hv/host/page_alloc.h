/* SPDX-License-Identifier: MIT */
#ifndef MHV_PAGE_ALLOC_H
#define MHV_PAGE_ALLOC_H

#include "lib/types.h"

struct mem_range;
struct boot_info;

/*
 * Free ranges after neighbours are merged and ranges are split where the
 * NUMA node changes: a two-socket server's map leaves a few dozen.  When
 * more are left, the smallest are dropped, counted in dropped_*.
 */
#define PAGE_ALLOC_MAX_RANGES 256
/* A range outside every node the SRAT names; as a wish: any node. */
#define PAGE_NODE_ANY 0xffffffffu

struct page_range {
	u64 base;  /* physical address of the first free page */
	u64 pages; /* free pages left */
	u32 node;  /* NUMA node (page_alloc_set_nodes), 0 until told */
};

/*
 * Bump allocation over physical ranges, with marks: the hypervisor's
 * lifetime allocations come first, then each VM takes a mark, allocates,
 * and releases everything back to its mark when it is torn down (VMs run
 * one after another).  CPUs that run VMs at once each get an arena of
 * their own (page_alloc_carve), so the marks of one never release
 * another's pages.
 *
 * NUMA: each range has a node; page_alloc_contig_node takes from the
 * wanted node first, then from any node, and counts in node_misses each
 * allocation that a node could not serve (its memory ran out or is too
 * fragmented) and another node did.
 */
struct page_alloc {
	u32 nr_ranges;
	u32 nr_fixed; /* ranges[0..nr_fixed): the pool, never merged or reordered */
	u64 total_pages;
	u32 dropped_ranges; /* usable ranges left out: the table was full */
	u64 dropped_pages;
	u32 unsplit; /* node boundaries not split at: the table was full */
	u64 node_misses;
	struct page_range ranges[PAGE_ALLOC_MAX_RANGES];
};

/* Where each range's free pages began: bases only move up between marks. */
struct page_alloc_mark {
	u64 base[PAGE_ALLOC_MAX_RANGES];
};

/* A span of physical memory on one NUMA node (ACPI SRAT memory affinity). */
struct page_node_span {
	u64 base, end;
	u32 node;
};

/*
 * Build the free ranges: the reserved pool first, then usable RAM above
 * 1 MiB in address order, neighbours merged, all on node 0.
 */
void page_alloc_init(struct page_alloc *pa, u64 pool_base, u64 pool_pages,
		     const struct mem_range *mem, u32 nr_mem);
/*
 * Split pa's ranges where the node changes and give each its node
 * (PAGE_NODE_ANY outside every span).  Before any mark is taken.
 */
void page_alloc_set_nodes(struct page_alloc *pa, const struct page_node_span *spans, u32 n);
/* Physical address of npages contiguous pages, not zeroed; 0 when none left. */
u64 page_alloc_contig(struct page_alloc *pa, u64 npages);
/* The same, from node @node first (PAGE_NODE_ANY: the first that fits). */
u64 page_alloc_contig_node(struct page_alloc *pa, u64 npages, u32 node);
void page_alloc_get_mark(const struct page_alloc *pa, struct page_alloc_mark *m);
void page_alloc_release(struct page_alloc *pa, const struct page_alloc_mark *m);
u64 page_alloc_free_pages(const struct page_alloc *pa);
/* Free pages of pa on node @node (PAGE_NODE_ANY: outside every node). */
u64 page_alloc_node_pages(const struct page_alloc *pa, u32 node);
/* Free pages in the largest range of pa. */
u64 page_alloc_largest(const struct page_alloc *pa);
/*
 * n arenas of pages contiguous pages each, arena i from node nodes[i]
 * first (nodes NULL: any), initialised in arenas[0..n): CPUs that create
 * VMs at once each take marks in and release to their own arena, never
 * another's.  false (and pa untouched) when pa cannot give them all.
 */
bool page_alloc_carve(struct page_alloc *pa, struct page_alloc *arenas, unsigned n, u64 pages,
		      const u32 *nodes);

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
/* npages zeroed pages from this CPU's arena, on its node first; NULL when none. */
void *alloc_pages_zeroed(u64 npages);
/* The same, on node @node first. */
void *alloc_pages_zeroed_node(u64 npages, u32 node);
/* The memory header lines: what is allocatable, and loudly what was left out. */
void page_alloc_describe(const struct boot_info *bi);
static inline void *alloc_page_zeroed(void)
{
	return alloc_pages_zeroed(1);
}

#endif
