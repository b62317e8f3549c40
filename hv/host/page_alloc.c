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
	__builtin_memset((void *)(uintptr_t)pa, 0, npages * PAGE_SIZE);
	return (void *)(uintptr_t)pa;
}
#endif
