// SPDX-License-Identifier: MIT
/* Host tests for hv/arch/pagetable.c with a malloc-backed struct pt_ctx. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arch/pagetable.h"

/* Guest-physical != host pointer: entries store host pointer + this. */
#define GUEST_OFFSET 0x000a000000000000ull
#define NO_LIMIT (-1L)

struct test_ctx {
	struct pt_ctx pt; /* first, so the callbacks can cast back */
	u64 offset;
	long allocs;
	long alloc_limit; /* fail once allocs reaches this; NO_LIMIT: never */
	void **pages;
	size_t npages, cap;
	u64 root_phys;
};

static void *test_alloc(struct pt_ctx *pt, u64 *phys)
{
	struct test_ctx *t = (struct test_ctx *)pt;
	void *page;

	if (t->alloc_limit != NO_LIMIT && t->allocs >= t->alloc_limit)
		return NULL;
	if (t->npages == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->pages = realloc(t->pages, t->cap * sizeof(*t->pages));
		assert_non_null(t->pages);
	}
	page = aligned_alloc(4096, 4096);
	assert_non_null(page);
	memset(page, 0, 4096);
	t->pages[t->npages++] = page;
	t->allocs++;
	*phys = (u64)(uintptr_t)page + t->offset;
	return page;
}

static void *test_phys_to_virt(struct pt_ctx *pt, u64 phys)
{
	struct test_ctx *t = (struct test_ctx *)pt;

	return (void *)(uintptr_t)(phys - t->offset);
}

static struct test_ctx *ctx_new(u64 offset, u64 table_flags)
{
	struct test_ctx *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->pt.alloc_page = test_alloc;
	t->pt.phys_to_virt = test_phys_to_virt;
	t->pt.table_flags = table_flags;
	t->offset = offset;
	t->alloc_limit = NO_LIMIT;
	assert_non_null(test_alloc(&t->pt, &t->root_phys));
	t->allocs = 0; /* count tables below the root only */
	return t;
}

static void ctx_free(struct test_ctx *t)
{
	for (size_t i = 0; i < t->npages; i++)
		free(t->pages[i]);
	free(t->pages);
	free(t);
}

static int setup(void **state)
{
	*state = ctx_new(0, PTE_P | PTE_RW | PTE_US);
	return 0;
}

static int setup_guest(void **state)
{
	*state = ctx_new(GUEST_OFFSET, PTE_P | PTE_RW);
	return 0;
}

static int teardown(void **state)
{
	ctx_free(*state);
	return 0;
}

#define MAP(t, va, pa, size, flags, shift) \
	pt_map_range(&(t)->pt, (t)->root_phys, (va), (pa), (size), (flags), (shift))

static void expect_xlate(struct test_ctx *t, u64 va, u64 want_pa, u64 want_flags,
			 unsigned want_shift)
{
	u64 pa = 0, flags = 0;
	unsigned shift = 0;

	assert_int_equal(pt_translate(&t->pt, t->root_phys, va, &pa, &flags, &shift), 0);
	assert_int_equal(pa, want_pa);
	assert_int_equal(flags, want_flags);
	assert_int_equal(shift, want_shift);
}

static void expect_unmapped(struct test_ctx *t, u64 va)
{
	u64 pa;

	assert_int_equal(pt_translate(&t->pt, t->root_phys, va, &pa, NULL, NULL), -1);
}

static void test_map_4k(void **state)
{
	struct test_ctx *t = *state;

	assert_int_equal(MAP(t, 0x400000, 0x12345000, 3 * 4096, PTE_P | PTE_RW, 12), 0);
	assert_int_equal(t->allocs, 3); /* PDPT, PD, PT */
	expect_xlate(t, 0x400000, 0x12345000, PTE_P | PTE_RW, 12);
	expect_xlate(t, 0x401234, 0x12346234, PTE_P | PTE_RW, 12);
	expect_xlate(t, 0x402fff, 0x12347fff, PTE_P | PTE_RW, 12);
	expect_unmapped(t, 0x403000);
	expect_unmapped(t, 0x3ff000);
	expect_unmapped(t, 0x40000000);
	/* NULL out-parameters are allowed; 4 KiB PAT (bit 7) passes through. */
	assert_int_equal(MAP(t, 0x404000, 0x5000, 4096, PTE_P | PTE_PS | PTE_NX, 12), 0);
	expect_xlate(t, 0x404008, 0x5008, PTE_P | PTE_PS | PTE_NX, 12);
}

static void test_map_2m(void **state)
{
	struct test_ctx *t = *state;
	u64 flags = PTE_P | PTE_RW | PTE_NX | PTE_PAT_LARGE;

	assert_int_equal(MAP(t, 0x40000000, 0x80000000, 4ull << 20, flags, 21), 0);
	assert_int_equal(t->allocs, 2); /* PDPT, PD */
	expect_xlate(t, 0x40123456, 0x80123456, flags | PTE_PS, 21);
	expect_xlate(t, 0x403fffff, 0x803fffff, flags | PTE_PS, 21);
	expect_unmapped(t, 0x40400000);
}

static void test_map_1g(void **state)
{
	struct test_ctx *t = *state;

	/* PML4 slot 1, pa near the top of the 52-bit space. */
	assert_int_equal(MAP(t, 0x8000000000ull, 0xfffff80000000ull, 2ull << 30, PTE_P | PTE_G, 30),
			 0);
	assert_int_equal(t->allocs, 1);
	expect_xlate(t, 0x8000000000ull + 0x3fffffff, 0xfffffbfffffffull, PTE_P | PTE_G | PTE_PS,
		     30);
	expect_xlate(t, 0x8040000000ull + 5, 0xfffffc0000005ull, PTE_P | PTE_G | PTE_PS, 30);
	expect_unmapped(t, 0x8080000000ull);
}

static void test_upper_half(void **state)
{
	struct test_ctx *t = *state;

	assert_int_equal(MAP(t, 0xffffffff80000000ull, 0x1000000, 8192, PTE_P, 12), 0);
	expect_xlate(t, 0xffffffff80001010ull, 0x1001010, PTE_P, 12);
	/* Same low 48 bits, other half: not the same address. */
	expect_unmapped(t, 0x0000ffff80000000ull);
	/* Ends exactly at 2^64. */
	assert_int_equal(MAP(t, 0xffffffffc0000000ull, 0x40000000, 1ull << 30, PTE_P, 30), 0);
	expect_xlate(t, 0xffffffffffffffffull, 0x7fffffff, PTE_P | PTE_PS, 30);
}

static void test_reuse_and_replace(void **state)
{
	struct test_ctx *t = *state;

	assert_int_equal(MAP(t, 0x1000, 0x1000, 4096, PTE_P, 12), 0);
	assert_int_equal(t->allocs, 3);
	assert_int_equal(MAP(t, 0x2000, 0x2000, 4096, PTE_P, 12), 0);
	assert_int_equal(MAP(t, 0x200000, 0x200000, 2ull << 20, PTE_P, 21), 0);
	assert_int_equal(t->allocs, 3);
	/* A new PD under the same PDPT, a new PDPT under the root. */
	assert_int_equal(MAP(t, 0x40000000, 0, 4096, PTE_P, 12), 0);
	assert_int_equal(t->allocs, 5);
	assert_int_equal(MAP(t, 0x8000000000ull, 0, 4096, PTE_P, 12), 0);
	assert_int_equal(t->allocs, 8);
	/* Same-size leaves are replaced in place. */
	assert_int_equal(MAP(t, 0x2000, 0x9000, 4096, PTE_P | PTE_NX, 12), 0);
	expect_xlate(t, 0x2004, 0x9004, PTE_P | PTE_NX, 12);
	assert_int_equal(MAP(t, 0x200000, 0x600000, 2ull << 20, PTE_P | PTE_RW, 21), 0);
	expect_xlate(t, 0x200004, 0x600004, PTE_P | PTE_RW | PTE_PS, 21);
	assert_int_equal(t->allocs, 8);
}

static void test_invalid(void **state)
{
	struct test_ctx *t = *state;

	assert_int_equal(MAP(t, 0x1800, 0x2000, 4096, PTE_P, 12), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0x1000, 0x2800, 4096, PTE_P, 12), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0x1000, 0x2000, 100, PTE_P, 12), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0x201000, 0x200000, 2ull << 20, PTE_P, 21), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0x200000, 0x200000, 4096, PTE_P, 21), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0x40000000, 0x200000, 1ull << 30, PTE_P, 30), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0, 0, 8192, PTE_P, 13), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0, 0, 1ull << 39, PTE_P, 39), PT_ERR_INVAL);
	/* Non-canonical start; a range that runs into the hole; wrap-around. */
	assert_int_equal(MAP(t, 0x0000800000000000ull, 0, 4096, PTE_P, 12), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0x00007fffffe00000ull, 0, 4ull << 20, PTE_P, 21), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0xfffffffffffff000ull, 0, 8192, PTE_P, 12), PT_ERR_INVAL);
	/* Physical addresses past 52 bits. */
	assert_int_equal(MAP(t, 0, 1ull << 52, 4096, PTE_P, 12), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0, (1ull << 52) - 4096, 8192, PTE_P, 12), PT_ERR_INVAL);
	/* Leaf flags without P, with address bits; PAT_LARGE only on large leaves. */
	assert_int_equal(MAP(t, 0, 0, 4096, PTE_RW, 12), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0, 0, 4096, PTE_P | 0x100000, 12), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0, 0, 4096, PTE_P | PTE_PAT_LARGE, 12), PT_ERR_INVAL);
	assert_int_equal(MAP(t, 0, 0, 2ull << 20, PTE_P | 0x2000, 21), PT_ERR_INVAL);
	assert_int_equal(t->allocs, 0);
	/* An empty range is fine and maps nothing. */
	assert_int_equal(MAP(t, 0x1000, 0x1000, 0, PTE_P, 12), 0);
	assert_int_equal(t->allocs, 0);
	expect_unmapped(t, 0x0000800000000000ull);
	/* Table flags must make tables present. */
	t->pt.table_flags = PTE_RW;
	assert_int_equal(MAP(t, 0, 0, 4096, PTE_P, 12), PT_ERR_INVAL);
}

static void test_conflict(void **state)
{
	struct test_ctx *t = *state;

	/* A 4 KiB leaf under an existing 2 MiB leaf. */
	assert_int_equal(MAP(t, 0x200000, 0x200000, 2ull << 20, PTE_P, 21), 0);
	assert_int_equal(MAP(t, 0x201000, 0x201000, 4096, PTE_P, 12), PT_ERR_CONFLICT);
	/* A 2 MiB leaf over an existing page table. */
	assert_int_equal(MAP(t, 0x400000, 0x400000, 4096, PTE_P, 12), 0);
	assert_int_equal(MAP(t, 0x400000, 0x400000, 2ull << 20, PTE_P, 21), PT_ERR_CONFLICT);
	/* 2 MiB under 1 GiB, and 1 GiB over a page directory. */
	assert_int_equal(MAP(t, 0x40000000, 0, 1ull << 30, PTE_P, 30), 0);
	assert_int_equal(MAP(t, 0x40200000, 0, 2ull << 20, PTE_P, 21), PT_ERR_CONFLICT);
	assert_int_equal(MAP(t, 0, 0, 1ull << 30, PTE_P, 30), PT_ERR_CONFLICT);
	/* The earlier mappings are intact. */
	expect_xlate(t, 0x200010, 0x200010, PTE_P | PTE_PS, 21);
	expect_xlate(t, 0x400010, 0x400010, PTE_P, 12);
	expect_xlate(t, 0x40200010, 0x200010, PTE_P | PTE_PS, 30);
}

static void test_guest_phys(void **state)
{
	struct test_ctx *t = *state;
	u64 *root = test_phys_to_virt(&t->pt, t->root_phys);

	assert_int_equal(MAP(t, 0x7000, 0xabc000, 4096, PTE_P | PTE_RW, 12), 0);
	assert_int_equal(t->allocs, 3);
	expect_xlate(t, 0x7123, 0xabc123, PTE_P | PTE_RW, 12);
	/* Entries hold the guest-physical address, not the host pointer. */
	assert_int_equal(root[0] & ~PTE_ADDR_MASK, PTE_P | PTE_RW);
	assert_int_equal(root[0] & PTE_ADDR_MASK, (u64)(uintptr_t)t->pages[1] + GUEST_OFFSET);
	assert_int_equal(MAP(t, 0x8000, 0xabd000, 4096, PTE_P, 12), 0);
	assert_int_equal(t->allocs, 3);
}

static long identity(unsigned phys_bits, bool gb_pages, struct test_ctx **out)
{
	struct test_ctx *t = ctx_new(0, PTE_P | PTE_RW);
	long n = pt_build_identity(&t->pt, t->root_phys, phys_bits, gb_pages, PTE_P | PTE_RW);

	if (n >= 0)
		assert_int_equal(n, t->allocs);
	if (out)
		*out = t;
	else
		ctx_free(t);
	return n;
}

static void test_identity_1g(void **state)
{
	struct test_ctx *t;

	(void)state;
	assert_int_equal(identity(32, true, NULL), 1);
	assert_int_equal(identity(39, true, NULL), 1);
	assert_int_equal(identity(40, true, NULL), 2);
	assert_int_equal(identity(46, true, NULL), 128);
	assert_int_equal(identity(48, true, NULL), 256);
	/* Capped at the canonical lower half: 52 costs what 47 does. */
	assert_int_equal(identity(52, true, &t), 256);
	expect_xlate(t, 0, 0, PTE_P | PTE_RW | PTE_PS, 30);
	expect_xlate(t, 0xfee00020, 0xfee00020, PTE_P | PTE_RW | PTE_PS, 30);
	expect_xlate(t, 0x7fffffffffffull, 0x7fffffffffffull, PTE_P | PTE_RW | PTE_PS, 30);
	expect_unmapped(t, 0x800000000000ull);
	ctx_free(t);
	assert_int_equal(identity(32, true, &t), 1);
	expect_xlate(t, 0xffffffff, 0xffffffff, PTE_P | PTE_RW | PTE_PS, 30);
	expect_unmapped(t, 0x100000000ull);
	ctx_free(t);
	/* Fewer bits than one leaf: rounded up to a whole 1 GiB. */
	assert_int_equal(identity(20, true, NULL), 1);
	assert_int_equal(identity(0, true, NULL), PT_ERR_INVAL);
	assert_int_equal(identity(53, true, NULL), PT_ERR_INVAL);
}

static void test_identity_2m(void **state)
{
	struct test_ctx *t;

	(void)state;
	assert_int_equal(identity(32, false, &t), 5); /* PDPT + 4 PDs */
	expect_xlate(t, 0xfee00020, 0xfee00020, PTE_P | PTE_RW | PTE_PS, 21);
	expect_unmapped(t, 0x100000000ull);
	ctx_free(t);
	assert_int_equal(identity(39, false, NULL), 1 + 512);
	assert_int_equal(identity(40, false, &t), 2 + 1024);
	expect_xlate(t, 0xfffffffffull, 0xfffffffffull, PTE_P | PTE_RW | PTE_PS, 21);
	expect_xlate(t, 0xffffffffffull, 0xffffffffffull, PTE_P | PTE_RW | PTE_PS, 21);
	expect_unmapped(t, 0x10000000000ull);
	ctx_free(t);
	assert_int_equal(identity(20, false, NULL), 2);
}

static void test_alloc_failure(void **state)
{
	struct test_ctx *t = *state;

	t->alloc_limit = 0;
	assert_int_equal(MAP(t, 0x1000, 0x1000, 4096, PTE_P, 12), PT_ERR_NOMEM);
	/* The PDPT and PD get linked in, then the PT allocation fails. */
	t->alloc_limit = 2;
	assert_int_equal(MAP(t, 0x1000, 0x1000, 4096, PTE_P, 12), PT_ERR_NOMEM);
	expect_unmapped(t, 0x1000);
	/* Retrying reuses what is already linked. */
	t->alloc_limit = NO_LIMIT;
	assert_int_equal(MAP(t, 0x1000, 0x1000, 4096, PTE_P, 12), 0);
	assert_int_equal(t->allocs, 3);
	expect_xlate(t, 0x1000, 0x1000, PTE_P, 12);

	/* Identity map runs out part-way through. */
	{
		struct test_ctx *u = ctx_new(0, PTE_P | PTE_RW);

		u->alloc_limit = 10;
		assert_int_equal(pt_build_identity(&u->pt, u->root_phys, 40, false, PTE_P),
				 PT_ERR_NOMEM);
		assert_int_equal(u->allocs, 10);
		ctx_free(u);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_map_4k, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_2m, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_1g, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upper_half, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reuse_and_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guest_phys, setup_guest, teardown),
		cmocka_unit_test_setup_teardown(test_map_4k, setup_guest, teardown),
		cmocka_unit_test_setup_teardown(test_map_2m, setup_guest, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_failure, setup_guest, teardown),
		cmocka_unit_test(test_identity_1g),
		cmocka_unit_test(test_identity_2m),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
