// SPDX-License-Identifier: MIT
#include "page_alloc.h"
#include "arch/x86.h"
#include "lib/boot_info.h"
#ifndef HOST_TEST
#include "percpu.h"
#include "platform/console.h"
#endif

#define LOW_MEMORY_END 0x100000ull /* below 1 MiB stays free for real-mode uses */

struct page_alloc hv_pages;

/* (No memmove in mhv's libraries: the few entries are moved one by one.) */
static void range_insert_at(struct page_alloc *pa, u32 at, u64 base, u64 pages, u32 node)
{
	u32 i;

	for (i = pa->nr_ranges; i > at; i--)
		pa->ranges[i] = pa->ranges[i - 1];
	pa->ranges[at] = (struct page_range){ base, pages, node };
	pa->nr_ranges++;
}

static void range_remove_at(struct page_alloc *pa, u32 at)
{
	u32 i;

	pa->nr_ranges--;
	for (i = at; i < pa->nr_ranges; i++)
		pa->ranges[i] = pa->ranges[i + 1];
}

static u64 range_end(const struct page_range *r)
{
	return r->base + r->pages * PAGE_SIZE;
}

/* A range of its own at the end (the pool, an arena), never merged. */
static void add_fixed(struct page_alloc *pa, u64 base, u64 pages, u32 node)
{
	if (!pages || pa->nr_ranges == PAGE_ALLOC_MAX_RANGES)
		return;
	range_insert_at(pa, pa->nr_ranges, base, pages, node);
	pa->nr_fixed = pa->nr_ranges;
	pa->total_pages += pages;
}

/* The smallest free range after the fixed ones: the one to drop when full. */
static u32 smallest_range(const struct page_alloc *pa)
{
	u32 i, at = pa->nr_fixed;

	for (i = pa->nr_fixed + 1; i < pa->nr_ranges; i++)
		if (pa->ranges[i].pages < pa->ranges[at].pages)
			at = i;
	return at;
}

/*
 * Usable RAM into the ranges after the fixed ones, kept in address order
 * and merged with the neighbours it touches; when the table is full the
 * smallest range (maybe this one) is dropped and counted.
 */
static void add_free(struct page_alloc *pa, u64 base, u64 pages)
{
	u64 end = base + pages * PAGE_SIZE;
	struct page_range *prev, *next;
	u32 at, drop;

	if (!pages)
		return;
	for (at = pa->nr_fixed; at < pa->nr_ranges && pa->ranges[at].base < base; at++)
		;
	prev = at > pa->nr_fixed ? &pa->ranges[at - 1] : NULL;
	next = at < pa->nr_ranges ? &pa->ranges[at] : NULL;
	if ((prev && range_end(prev) > base) || (next && next->base < end)) {
		/* overlaps what is there: a firmware map never should */
		pa->dropped_ranges++;
		pa->dropped_pages += pages;
		return;
	}
	pa->total_pages += pages;
	if (prev && range_end(prev) == base) {
		prev->pages += pages;
		if (next && next->base == end) {
			prev->pages += next->pages;
			range_remove_at(pa, at);
		}
		return;
	}
	if (next && next->base == end) {
		next->base = base;
		next->pages += pages;
		return;
	}
	if (pa->nr_ranges == PAGE_ALLOC_MAX_RANGES) {
		drop = smallest_range(pa);
		pa->dropped_ranges++;
		if (pa->ranges[drop].pages >= pages) {
			pa->dropped_pages += pages;
			pa->total_pages -= pages;
			return;
		}
		pa->dropped_pages += pa->ranges[drop].pages;
		pa->total_pages -= pa->ranges[drop].pages;
		range_remove_at(pa, drop);
		if (drop < at)
			at--;
	}
	range_insert_at(pa, at, base, pages, 0);
}

static void reset(struct page_alloc *pa)
{
	pa->nr_ranges = 0;
	pa->nr_fixed = 0;
	pa->total_pages = 0;
	pa->dropped_ranges = 0;
	pa->dropped_pages = 0;
	pa->unsplit = 0;
	pa->node_misses = 0;
}

void page_alloc_init(struct page_alloc *pa, u64 pool_base, u64 pool_pages,
		     const struct mem_range *mem, u32 nr_mem)
{
	u32 i;

	reset(pa);
	add_fixed(pa, pool_base, pool_pages, 0);
	for (i = 0; i < nr_mem; i++) {
		u64 base = mem[i].base, end = mem[i].base + mem[i].pages * PAGE_SIZE;

		if (mem[i].kind != MEM_USABLE || end <= LOW_MEMORY_END)
			continue;
		if (base < LOW_MEMORY_END)
			base = LOW_MEMORY_END;
		add_free(pa, base, (end - base) / PAGE_SIZE);
	}
}

static u32 node_at(const struct page_node_span *spans, u32 n, u64 addr)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (spans[i].base <= addr && addr < spans[i].end)
			return spans[i].node;
	return PAGE_NODE_ANY;
}

/* The first page boundary in (base, end) where a span begins or ends, else end. */
static u64 next_boundary(const struct page_node_span *spans, u32 n, u64 base, u64 end)
{
	u64 b = end, e;
	u32 i;

	for (i = 0; i < n; i++) {
		e = (spans[i].base + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
		if (e > base && e < b)
			b = e;
		e = (spans[i].end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
		if (e > base && e < b)
			b = e;
	}
	return b;
}

void page_alloc_set_nodes(struct page_alloc *pa, const struct page_node_span *spans, u32 n)
{
	u32 i;

	for (i = 0; i < pa->nr_ranges; i++) {
		struct page_range *r = &pa->ranges[i];
		u64 end = range_end(r), b = next_boundary(spans, n, r->base, end);

		r->node = node_at(spans, n, r->base);
		if (b == end)
			continue;
		if (pa->nr_ranges == PAGE_ALLOC_MAX_RANGES) {
			pa->unsplit++;
			continue;
		}
		r->pages = (b - r->base) / PAGE_SIZE;
		range_insert_at(pa, i + 1, b, (end - b) / PAGE_SIZE, PAGE_NODE_ANY);
		if (i < pa->nr_fixed)
			pa->nr_fixed++;
	}
}

static u64 take(struct page_range *r, u64 npages)
{
	u64 base = r->base;

	r->base += npages * PAGE_SIZE;
	r->pages -= npages;
	return base;
}

/* First fit on @node (PAGE_NODE_ANY: on any); 0 when none fits. */
static u64 first_fit(struct page_alloc *pa, u64 npages, u32 node, u32 *got_node)
{
	u32 i;

	for (i = 0; i < pa->nr_ranges; i++) {
		struct page_range *r = &pa->ranges[i];

		if (r->pages >= npages && (node == PAGE_NODE_ANY || r->node == node)) {
			*got_node = r->node;
			return take(r, npages);
		}
	}
	return 0;
}

static u64 contig_node(struct page_alloc *pa, u64 npages, u32 node, u32 *got_node)
{
	u64 base;

	if (node != PAGE_NODE_ANY) {
		base = first_fit(pa, npages, node, got_node);
		if (base)
			return base;
	}
	base = first_fit(pa, npages, PAGE_NODE_ANY, got_node);
	if (base && node != PAGE_NODE_ANY)
		pa->node_misses++;
	return base;
}

u64 page_alloc_contig_node(struct page_alloc *pa, u64 npages, u32 node)
{
	u32 got;

	return contig_node(pa, npages, node, &got);
}

u64 page_alloc_contig(struct page_alloc *pa, u64 npages)
{
	return page_alloc_contig_node(pa, npages, PAGE_NODE_ANY);
}

void page_alloc_get_mark(const struct page_alloc *pa, struct page_alloc_mark *m)
{
	u32 i;

	for (i = 0; i < PAGE_ALLOC_MAX_RANGES; i++)
		m->base[i] = i < pa->nr_ranges ? pa->ranges[i].base : 0;
}

void page_alloc_release(struct page_alloc *pa, const struct page_alloc_mark *m)
{
	u32 i;

	for (i = 0; i < pa->nr_ranges; i++) {
		struct page_range *r = &pa->ranges[i];

		r->pages += (r->base - m->base[i]) / PAGE_SIZE;
		r->base = m->base[i];
	}
}

u64 page_alloc_free_pages(const struct page_alloc *pa)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < pa->nr_ranges; i++)
		n += pa->ranges[i].pages;
	return n;
}

u64 page_alloc_node_pages(const struct page_alloc *pa, u32 node)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < pa->nr_ranges; i++)
		if (pa->ranges[i].node == node)
			n += pa->ranges[i].pages;
	return n;
}

u64 page_alloc_largest(const struct page_alloc *pa)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < pa->nr_ranges; i++)
		if (pa->ranges[i].pages > n)
			n = pa->ranges[i].pages;
	return n;
}

bool page_alloc_carve(struct page_alloc *pa, struct page_alloc *arenas, unsigned n, u64 pages,
		      const u32 *nodes)
{
	struct page_alloc_mark before;
	u64 misses = pa->node_misses, base;
	unsigned i;
	u32 node;

	if (!n || !pages || pages > ~0ull / PAGE_SIZE)
		return false;
	page_alloc_get_mark(pa, &before);
	for (i = 0; i < n; i++) {
		base = contig_node(pa, pages, nodes ? nodes[i] : PAGE_NODE_ANY, &node);
		if (!base) {
			page_alloc_release(pa, &before);
			pa->node_misses = misses;
			return false;
		}
		reset(&arenas[i]);
		add_fixed(&arenas[i], base, pages, node);
	}
	return true;
}

u32 page_alloc_taken(const struct page_alloc_mark *before, const struct page_alloc_mark *after,
		     struct page_span *spans, u32 max)
{
	u32 i, n = 0;

	for (i = 0; i < PAGE_ALLOC_MAX_RANGES && n < max; i++)
		if (after->base[i] > before->base[i])
			spans[n++] = (struct page_span){ before->base[i], after->base[i] };
	return n;
}

bool page_spans_overlap(const struct page_span *a, u32 na, const struct page_span *b, u32 nb,
			struct page_span *where)
{
	u32 i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (a[i].lo < b[j].hi && b[j].lo < a[i].hi) {
				where->lo = a[i].lo > b[j].lo ? a[i].lo : b[j].lo;
				where->hi = a[i].hi < b[j].hi ? a[i].hi : b[j].hi;
				return true;
			}
	return false;
}

#ifndef HOST_TEST
struct page_alloc *page_arena(void)
{
	struct page_alloc *arena = this_cpu()->arena;

	return arena ? arena : &hv_pages;
}

/* The vCPUs of one VM create their state on their own CPUs at once. */
static volatile bool alloc_lock;

void *alloc_pages_zeroed_node(u64 npages, u32 node)
{
	u64 pa;

	spin_lock(&alloc_lock);
	pa = page_alloc_contig_node(page_arena(), npages, node);
	spin_unlock(&alloc_lock);
	if (!pa)
		return NULL;
	fill_bytes((void *)(uintptr_t)pa, 0, npages * PAGE_SIZE);
	return (void *)(uintptr_t)pa;
}

void *alloc_pages_zeroed(u64 npages)
{
	return alloc_pages_zeroed_node(npages, this_cpu()->node);
}

void page_alloc_describe(const struct boot_info *bi)
{
	console_printf("mhv: memory: pool %llu MiB at 0x%llx, %llu MiB allocatable in all, in %u "
		       "ranges from %u map entries\n",
		       bi->pool_pages >> 8, bi->pool_base, hv_pages.total_pages >> 8,
		       hv_pages.nr_ranges, bi->nr_mem_ranges);
	if (bi->mem_dropped)
		console_printf("mhv: memory: WARNING: %u firmware map entries did not fit (%u "
			       "kept): %llu MiB of usable RAM left out\n",
			       bi->mem_dropped, BOOT_MAX_MEM_RANGES,
			       bi->mem_dropped_usable_pages >> 8);
	if (hv_pages.dropped_ranges)
		console_printf("mhv: memory: WARNING: %u free ranges left out (%u kept; the "
			       "smallest when full, or overlapping another): %llu MiB in all\n",
			       hv_pages.dropped_ranges, PAGE_ALLOC_MAX_RANGES,
			       hv_pages.dropped_pages >> 8);
}
#endif
