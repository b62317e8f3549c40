// SPDX-License-Identifier: MIT
/*
 * Host tests for hv/host/page_alloc.c: bump allocation with marks, and the
 * arenas cut for CPUs that create VMs at once.  Addresses are plain
 * numbers here; nothing is dereferenced.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/boot_info.h"
#include "host/page_alloc.h"

#define MIB (1ull << 20)

/* A pool of 64 pages at 16 MiB, usable RAM 32..40 MiB and 64..65 MiB. */
static void init_pool(struct page_alloc *pa)
{
	static const struct mem_range mem[] = {
		{ .base = 0, .pages = 0x100, .kind = MEM_USABLE }, /* below 1 MiB: left out */
		{ .base = 32 * MIB, .pages = 8 * MIB / PAGE_SIZE, .kind = MEM_USABLE },
		{ .base = 48 * MIB, .pages = 1024, .kind = MEM_USABLE + 1 }, /* not usable */
		{ .base = 64 * MIB, .pages = 256, .kind = MEM_USABLE },
	};

	page_alloc_init(pa, 16 * MIB, 64, mem, sizeof(mem) / sizeof(mem[0]));
}

static void test_bump_and_marks(void **state)
{
	struct page_alloc pa;
	struct page_alloc_mark m;
	u64 a, b;

	(void)state;
	init_pool(&pa);
	assert_int_equal(pa.nr_ranges, 3);
	assert_int_equal(pa.total_pages, 64 + 2048 + 256);
	assert_int_equal(page_alloc_largest(&pa), 2048);
	a = page_alloc_contig(&pa, 16);
	assert_int_equal(a, 16 * MIB);
	page_alloc_get_mark(&pa, &m);
	/* too big for the pool: the next range that holds it */
	b = page_alloc_contig(&pa, 100);
	assert_int_equal(b, 32 * MIB);
	assert_int_equal(page_alloc_free_pages(&pa), 48 + 1948 + 256);
	page_alloc_release(&pa, &m);
	assert_int_equal(page_alloc_free_pages(&pa), 48 + 2048 + 256);
	assert_int_equal(page_alloc_contig(&pa, 100), 32 * MIB);
	assert_int_equal(page_alloc_contig(&pa, 4096), 0);
}

static void test_carve(void **state)
{
	struct page_alloc pa, arenas[4];
	struct page_alloc_mark before;
	unsigned i;

	(void)state;
	init_pool(&pa);
	page_alloc_contig(&pa, 8); /* something allocated for good first */
	page_alloc_get_mark(&pa, &before);
	assert_true(page_alloc_carve(&pa, arenas, 4, 500, NULL));
	/* one contiguous cut from the range that holds all four */
	for (i = 0; i < 4; i++) {
		assert_int_equal(arenas[i].nr_ranges, 1);
		assert_int_equal(arenas[i].total_pages, 500);
		assert_int_equal(arenas[i].ranges[0].base, 32 * MIB + i * 500 * PAGE_SIZE);
		assert_int_equal(page_alloc_free_pages(&arenas[i]), 500);
	}
	assert_int_equal(page_alloc_free_pages(&pa), 56 + 48 + 256);
	/* releasing the parent to its mark gives the whole cut back */
	page_alloc_release(&pa, &before);
	assert_int_equal(page_alloc_free_pages(&pa), 56 + 2048 + 256);
}

/* What one CPU does in its arena never frees or moves another's pages. */
static void test_arenas_independent(void **state)
{
	struct page_alloc pa, arenas[2];
	struct page_alloc_mark m0, m1;
	u64 a0, a1, b0;

	(void)state;
	init_pool(&pa);
	assert_true(page_alloc_carve(&pa, arenas, 2, 300, NULL));
	page_alloc_get_mark(&arenas[0], &m0);
	page_alloc_get_mark(&arenas[1], &m1);
	a0 = page_alloc_contig(&arenas[0], 256);
	a1 = page_alloc_contig(&arenas[1], 256);
	assert_int_equal(a0, 32 * MIB);
	assert_int_equal(a1, 32 * MIB + 300 * PAGE_SIZE);
	/* CPU 0's VM ends first: CPU 1's allocation stays where it is */
	page_alloc_release(&arenas[0], &m0);
	assert_int_equal(page_alloc_free_pages(&arenas[0]), 300);
	assert_int_equal(page_alloc_free_pages(&arenas[1]), 44);
	b0 = page_alloc_contig(&arenas[0], 300);
	assert_int_equal(b0, a0);
	/* an arena is full at its end, not at its neighbour's pages */
	assert_int_equal(page_alloc_contig(&arenas[0], 1), 0);
	assert_int_equal(page_alloc_contig(&arenas[1], 45), 0);
	page_alloc_release(&arenas[1], &m1);
	assert_int_equal(page_alloc_contig(&arenas[1], 300), a1);
}

static void test_carve_refused(void **state)
{
	struct page_alloc pa, arenas[3];
	u64 before;

	(void)state;
	init_pool(&pa);
	before = page_alloc_free_pages(&pa);
	/* no single range holds 3 x 700 pages: nothing taken */
	assert_false(page_alloc_carve(&pa, arenas, 3, 700, NULL));
	assert_false(page_alloc_carve(&pa, arenas, 0, 10, NULL));
	assert_false(page_alloc_carve(&pa, arenas, 3, 0, NULL));
	/* n * pages would overflow */
	assert_false(page_alloc_carve(&pa, arenas, 3, ~0ull / 2, NULL));
	assert_int_equal(page_alloc_free_pages(&pa), before);
	/* exactly the largest range still works */
	assert_true(page_alloc_carve(&pa, arenas, 2, 1024, NULL));
	assert_int_equal(page_alloc_largest(&pa), 256);
}

/*
 * A VM's footprint is what its arena gave out since its mark; a VM whose
 * CPU never came back keeps it, and a later VM's footprint must miss it,
 * while one made after a release would overlap it.
 */
static void test_taken_and_overlap(void **state)
{
	struct page_alloc pa;
	struct page_alloc_mark before_lost, m, after;
	struct page_span lost[4], next[4], where;
	u32 nl, nn;

	(void)state;
	init_pool(&pa);
	page_alloc_get_mark(&pa, &before_lost);
	m = before_lost;
	page_alloc_contig(&pa, 60);  /* the pool: 16 MiB .. +60 pages */
	page_alloc_contig(&pa, 100); /* too big for the rest of the pool: 32 MiB */
	page_alloc_get_mark(&pa, &after);
	nl = page_alloc_taken(&m, &after, lost, 4);
	assert_int_equal(nl, 2);
	assert_int_equal(lost[0].lo, 16 * MIB);
	assert_int_equal(lost[0].hi, 16 * MIB + 60 * PAGE_SIZE);
	assert_int_equal(lost[1].lo, 32 * MIB);
	assert_int_equal(lost[1].hi, 32 * MIB + 100 * PAGE_SIZE);
	/* at most max spans */
	assert_int_equal(page_alloc_taken(&m, &after, next, 1), 1);
	/* kept: the next VM is made above */
	page_alloc_get_mark(&pa, &m);
	page_alloc_contig(&pa, 100);
	page_alloc_get_mark(&pa, &after);
	nn = page_alloc_taken(&m, &after, next, 4);
	assert_int_equal(nn, 1);
	assert_false(page_spans_overlap(next, nn, lost, nl, &where));
	/* spans that only touch do not overlap */
	next[0] = (struct page_span){ 32 * MIB + 100 * PAGE_SIZE, 33 * MIB };
	assert_false(page_spans_overlap(next, 1, lost, nl, &where));
	/* released to the lost VM's mark: the next VM gets its pages */
	page_alloc_release(&pa, &before_lost);
	page_alloc_get_mark(&pa, &m);
	page_alloc_contig(&pa, 8);
	page_alloc_get_mark(&pa, &after);
	nn = page_alloc_taken(&m, &after, next, 4);
	assert_true(page_spans_overlap(next, nn, lost, nl, &where));
	assert_int_equal(where.lo, 16 * MIB);
	assert_int_equal(where.hi, 16 * MIB + 8 * PAGE_SIZE);
	assert_true(page_spans_overlap(lost, nl, next, nn, &where));
	/* nothing taken, nothing overlapped */
	assert_int_equal(page_alloc_taken(&after, &after, next, 4), 0);
	assert_false(page_spans_overlap(next, 0, lost, nl, &where));
}

/*
 * Two nodes split the 32..40 MiB range at 36 MiB; 64 MiB lies outside
 * both.  Each allocation comes from the node asked for while it has room,
 * else from any node, counted as a miss.
 */
static void test_nodes(void **state)
{
	static const struct page_node_span spans[] = {
		{ 0, 36 * MIB, 0 },
		{ 36 * MIB, 48 * MIB, 1 },
	};
	struct page_alloc pa, arenas[3];
	struct page_alloc_mark m;
	const u32 nodes[] = { 1, 0, 1 };

	(void)state;
	init_pool(&pa);
	page_alloc_set_nodes(&pa, spans, 2);
	assert_int_equal(pa.nr_ranges, 4);
	assert_int_equal(pa.total_pages, 64 + 2048 + 256);
	assert_int_equal(pa.ranges[0].node, 0); /* the pool */
	assert_int_equal(pa.ranges[1].base, 32 * MIB);
	assert_int_equal(pa.ranges[1].pages, 1024);
	assert_int_equal(pa.ranges[2].base, 36 * MIB);
	assert_int_equal(pa.ranges[2].node, 1);
	assert_int_equal(pa.ranges[3].node, PAGE_NODE_ANY);
	assert_int_equal(page_alloc_node_pages(&pa, 0), 64 + 1024);
	assert_int_equal(page_alloc_node_pages(&pa, 1), 1024);
	page_alloc_get_mark(&pa, &m);
	/* node 1 first, although the pool and node 0 come first */
	assert_int_equal(page_alloc_contig_node(&pa, 16, 1), 36 * MIB);
	assert_int_equal(page_alloc_contig_node(&pa, 100, 0), 32 * MIB);
	assert_int_equal(page_alloc_contig_node(&pa, 8, 0), 16 * MIB);
	assert_int_equal(pa.node_misses, 0);
	/* node 0 has no 1000 pages left in one piece: node 1's range */
	assert_int_equal(page_alloc_contig_node(&pa, 1000, 0), 36 * MIB + 16 * PAGE_SIZE);
	assert_int_equal(pa.node_misses, 1);
	/* nowhere: 0, and no miss */
	assert_int_equal(page_alloc_contig_node(&pa, 2000, 0), 0);
	assert_int_equal(pa.node_misses, 1);
	/* any node: first fit, as page_alloc_contig */
	assert_int_equal(page_alloc_contig_node(&pa, 1, PAGE_NODE_ANY), 16 * MIB + 8 * PAGE_SIZE);
	page_alloc_release(&pa, &m);
	assert_int_equal(page_alloc_free_pages(&pa), 64 + 2048 + 256);
	/* arenas on the nodes of their CPUs */
	assert_true(page_alloc_carve(&pa, arenas, 2, 512, nodes));
	assert_int_equal(arenas[0].ranges[0].base, 36 * MIB);
	assert_int_equal(arenas[0].ranges[0].node, 1);
	assert_int_equal(arenas[1].ranges[0].base, 32 * MIB);
	assert_int_equal(arenas[1].ranges[0].node, 0);
	assert_int_equal(page_alloc_contig_node(&arenas[0], 1, 1), 36 * MIB);
	/* refused: nothing taken, no miss left behind */
	page_alloc_release(&pa, &m);
	assert_false(page_alloc_carve(&pa, arenas, 3, 1024, nodes));
	assert_int_equal(page_alloc_free_pages(&pa), 64 + 2048 + 256);
	assert_int_equal(pa.node_misses, 1); /* the one above */
}

/* A full table cannot split at a node boundary: counted, nothing lost. */
static void test_nodes_table_full(void **state)
{
	static struct page_alloc pa;
	static struct mem_range mem[PAGE_ALLOC_MAX_RANGES];
	const struct page_node_span span = { 0, 32 * MIB + PAGE_SIZE, 3 };
	u32 i;

	(void)state;
	for (i = 0; i < PAGE_ALLOC_MAX_RANGES; i++)
		mem[i] = (struct mem_range){ 32 * MIB + 4 * i * PAGE_SIZE, 2, MEM_USABLE, 7 };
	page_alloc_init(&pa, 0, 0, mem, PAGE_ALLOC_MAX_RANGES);
	assert_int_equal(pa.nr_ranges, PAGE_ALLOC_MAX_RANGES);
	page_alloc_set_nodes(&pa, &span, 1);
	assert_int_equal(pa.unsplit, 1);
	assert_int_equal(pa.ranges[0].node, 3);
	assert_int_equal(pa.ranges[1].node, PAGE_NODE_ANY);
	assert_int_equal(page_alloc_free_pages(&pa), 2 * PAGE_ALLOC_MAX_RANGES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bump_and_marks),	   cmocka_unit_test(test_carve),
		cmocka_unit_test(test_arenas_independent), cmocka_unit_test(test_carve_refused),
		cmocka_unit_test(test_taken_and_overlap),  cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_nodes_table_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
