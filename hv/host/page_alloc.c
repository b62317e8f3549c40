// SPDX-License-Identifier: MIT
#include "page_alloc.h"
#include "arch/x86.h"
#include "lib/boot_info.h"
#ifndef HOST_TEST
#include "percpu.h"
#endif

#define LOW_MEMORY_END 0x100000ull /* below 1 MiB stays free for real-mode uses */

struct page_alloc hv_pages;

static void add_range(struct page_alloc *pa, u64 base, u64 pages)
{
	if (!pages || pa->nr_ranges == PAGE_ALLOC_MAX_RANGES)
		return;
	pa->ranges[pa->nr_ranges].base = base;
	pa->ranges[pa->nr_ranges].pages = pages;
	pa->nr_ranges++;
	pa->total_pages += pages;
}

void page_alloc_init(struct page_alloc *pa, u64 pool_base, u64 pool_pages,
		     const struct mem_range *mem, u32 nr_mem)
{
	u32 i;

	pa->nr_ranges = 0;
	pa->total_pages = 0;
	add_range(pa, pool_base, pool_pages);
	for (i = 0; i < nr_mem; i++) {
		u64 base = mem[i].base, end = mem[i].base + mem[i].pages * PAGE_SIZE;

		if (mem[i].kind != MEM_USABLE || end <= LOW_MEMORY_END)
			continue;
		if (base < LOW_MEMORY_END)
			base = LOW_MEMORY_END;
		add_range(pa, base, (end - base) / PAGE_SIZE);
	}
}

u64 page_alloc_contig(struct page_alloc *pa, u64 npages)
{
	u32 i;

	for (i = 0; i < pa->nr_ranges; i++) {
		struct page_range *r = &pa->ranges[i];

		if (r->pages >= npages) {
			u64 base = r->base;

			r->base += npages * PAGE_SIZE;
			r->pages -= npages;
			return base;
		}
	}
	return 0;
}

void page_alloc_get_mark(const struct page_alloc *pa, struct page_alloc_mark *m)
{
	__builtin_memcpy(m->ranges, pa->ranges, sizeof(m->ranges));
}

void page_alloc_release(struct page_alloc *pa, const struct page_alloc_mark *m)
{
	__builtin_memcpy(pa->ranges, m->ranges, sizeof(pa->ranges));
}

u64 page_alloc_free_pages(const struct page_alloc *pa)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < pa->nr_ranges; i++)
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

bool page_alloc_carve(struct page_alloc *pa, struct page_alloc *arenas, unsigned n, u64 pages)
{
	u64 base;
	unsigned i;

	if (!n || !pages || pages > ~0ull / PAGE_SIZE / n)
		return false;
	base = page_alloc_contig(pa, n * pages);
	if (!base)
		return false;
	for (i = 0; i < n; i++) {
		arenas[i].nr_ranges = 0;
		arenas[i].total_pages = 0;
		add_range(&arenas[i], base + i * pages * PAGE_SIZE, pages);
	}
	return true;
}

u32 page_alloc_taken(const struct page_alloc_mark *before, const struct page_alloc_mark *after,
		     struct page_span *spans, u32 max)
{
	u32 i, n = 0;

	for (i = 0; i < PAGE_ALLOC_MAX_RANGES && n < max; i++)
		if (after->ranges[i].base > before->ranges[i].base)
			spans[n++] =
			    (struct page_span){ before->ranges[i].base, after->ranges[i].base };
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

void *alloc_pages_zeroed(u64 npages)
{
	u64 pa;

	spin_lock(&alloc_lock);
	pa = page_alloc_contig(page_arena(), npages);
	spin_unlock(&alloc_lock);
	if (!pa)
		return NULL;
	fill_bytes((void *)(uintptr_t)pa, 0, npages * PAGE_SIZE);
	return (void *)(uintptr_t)pa;
}
#endif
