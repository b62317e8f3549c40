// SPDX-License-Identifier: MIT
/*
 * Host tests for the path from the firmware's memory map to the page
 * allocator (hv/lib/mem_map.c, hv/host/page_alloc.c), on a map modelled
 * on a two-socket server's UEFI map: hundreds of interleaved descriptors
 * below 4 GiB (conventional, boot services code/data, loader, runtime
 * services code/data, ACPI, reserved), PCIe and chipset MMIO under
 * 4 GiB, and the two sockets' large ranges above 4 GiB last, as EDK2
 * sorts them.  Addresses are numbers; nothing is dereferenced.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/boot_info.h"
#include "lib/mem_map.h"
#include "host/page_alloc.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

/* UEFI 2.10 §7.2.3 EFI_MEMORY_TYPE numbers */
enum {
	T_RESERVED = 0,
	T_LOADER_CODE = 1,
	T_LOADER_DATA = 2,
	T_BS_CODE = 3,
	T_BS_DATA = 4,
	T_RT_CODE = 5,
	T_RT_DATA = 6,
	T_CONVENTIONAL = 7,
	T_ACPI_RECLAIM = 9,
	T_ACPI_NVS = 10,
	T_MMIO = 11,
};

struct desc {
	u64 base, pages;
	u32 type;
};

#define MAX_DESC 1200
static struct desc map[MAX_DESC];
static unsigned nr_map;

static void put(u64 base, u64 pages, u32 type)
{
	assert_true(nr_map < MAX_DESC);
	map[nr_map++] = (struct desc){ base, pages, type };
}

static u32 lcg_state;
static u32 lcg(void)
{
	lcg_state = lcg_state * 1103515245u + 12345u;
	return lcg_state >> 8;
}

/* Socket 0's RAM: 0 .. 2 GiB and 4 .. 260 GiB; socket 1's: 260 .. 516 GiB. */
#define LOW_TOP (2 * GIB)
#define NODE1_BASE (260 * GIB)
#define HIGH_TOP (516 * GIB)

/*
 * The map, in address order.  Below 2 GiB, pieces of the types a booted
 * firmware leaves: mostly conventional and boot services memory, with
 * runtime services code/data and ACPI tables scattered among them (EDK2's
 * memory-type bins make clusters, drivers loaded late break them up).
 */
static void build_server_map(void)
{
	static const u32 low_types[] = {
		T_CONVENTIONAL, T_BS_DATA,  T_BS_CODE,	T_BS_DATA, T_CONVENTIONAL,
		T_RT_DATA,	T_BS_DATA,  T_RT_CODE,	T_BS_CODE, T_ACPI_RECLAIM,
		T_BS_DATA,	T_ACPI_NVS, T_RESERVED, T_BS_DATA, T_LOADER_DATA,
	};
	u64 a;

	nr_map = 0;
	lcg_state = 2;
	put(0, 0x9f, T_BS_CODE);
	put(0x9f000, 1, T_RESERVED);
	/* 0xa0000 .. 1 MiB: legacy VGA and option ROMs, not in the map */
	put(MIB, 0x700, T_CONVENTIONAL);
	for (a = 8 * MIB; a < 600 * MIB;) {
		u32 t = low_types[lcg() % (sizeof(low_types) / sizeof(low_types[0]))];
		u64 pages = t == T_CONVENTIONAL ? 256 + lcg() % 4096 : 1 + lcg() % 96;

		put(a, pages, t);
		a += pages * PAGE_SIZE;
		if (lcg() % 16 == 0)
			a += (1 + lcg() % 8) * PAGE_SIZE; /* a hole nothing describes */
	}
	put(a, (LOW_TOP - 32 * MIB - a) / PAGE_SIZE, T_CONVENTIONAL);
	put(LOW_TOP - 32 * MIB, 16 * MIB / PAGE_SIZE, T_RT_DATA);
	put(LOW_TOP - 16 * MIB, 8 * MIB / PAGE_SIZE, T_ACPI_NVS);
	put(LOW_TOP - 8 * MIB, 8 * MIB / PAGE_SIZE, T_RESERVED);
	put(0xe0000000, 256 * MIB / PAGE_SIZE, T_MMIO); /* PCIe ECAM */
	put(0xfec00000, 1, T_MMIO);			/* I/O APIC */
	put(0xfed00000, 1, T_MMIO);			/* HPET */
	put(0xff000000, 16 * MIB / PAGE_SIZE, T_MMIO);	/* SPI flash */
	/* socket 0 above 4 GiB: a firmware allocation and a hole for the PSP */
	put(4 * GIB, (128 * GIB) / PAGE_SIZE, T_CONVENTIONAL);
	put(132 * GIB, 64 * MIB / PAGE_SIZE, T_BS_DATA);
	put(132 * GIB + 64 * MIB, (128 * GIB - 64 * MIB - 64 * MIB) / PAGE_SIZE, T_CONVENTIONAL);
	put(NODE1_BASE - 64 * MIB, 64 * MIB / PAGE_SIZE, T_RESERVED);
	/* socket 1: the largest range, last */
	put(NODE1_BASE, (HIGH_TOP - NODE1_BASE - 32 * MIB) / PAGE_SIZE, T_CONVENTIONAL);
	put(HIGH_TOP - 32 * MIB, 16 * MIB / PAGE_SIZE, T_BS_DATA);
	put(HIGH_TOP - 16 * MIB, 16 * MIB / PAGE_SIZE, T_RT_DATA);
}

static bool usable(u32 type)
{
	return type == T_CONVENTIONAL || type == T_BS_CODE || type == T_BS_DATA;
}

/* Usable pages above 1 MiB, counted here from the descriptors. */
static u64 usable_pages_above_1mib(void)
{
	u64 n = 0;
	unsigned i;

	for (i = 0; i < nr_map; i++)
		if (usable(map[i].type) && map[i].base >= MIB)
			n += map[i].pages;
	return n;
}

/* Maximal runs of touching usable descriptors above 1 MiB. */
static unsigned usable_runs(void)
{
	unsigned i, n = 0;
	u64 end = 0;

	for (i = 0; i < nr_map; i++) {
		if (!usable(map[i].type) || map[i].base < MIB)
			continue;
		if (!n || map[i].base != end)
			n++;
		end = map[i].base + map[i].pages * PAGE_SIZE;
	}
	return n;
}

/* The map as boot/ records it in struct boot_info. */
static struct boot_info bi;

static void record(void)
{
	unsigned i;

	mem_map_reset(&bi);
	for (i = 0; i < nr_map; i++)
		mem_map_add(&bi, map[i].base, map[i].pages, map[i].type);
}

static void test_server_map_recorded(void **state)
{
	unsigned i, nr_rt = 0;
	u64 rt_pages = 0, rt_seen = 0;

	(void)state;
	build_server_map();
	assert_true(nr_map > 300); /* hundreds, as on a real server */
	print_message("server map: %u descriptors, %u usable runs\n", nr_map, usable_runs());
	record();
	assert_int_equal(bi.mem_dropped, 0);
	assert_true(bi.nr_mem_ranges < nr_map); /* neighbours merged */
	/* runtime services memory is never usable, and is all still there */
	for (i = 0; i < nr_map; i++)
		if (map[i].type == T_RT_CODE || map[i].type == T_RT_DATA) {
			nr_rt++;
			rt_pages += map[i].pages;
		}
	for (i = 0; i < bi.nr_mem_ranges; i++)
		if (bi.mem[i].efi_type == T_RT_CODE || bi.mem[i].efi_type == T_RT_DATA) {
			assert_int_equal(bi.mem[i].kind, MEM_RESERVED);
			rt_seen += bi.mem[i].pages;
		}
	assert_true(nr_rt > 10);
	assert_int_equal(rt_seen, rt_pages);
	assert_int_equal(mem_kind_of_efi(T_RT_CODE), MEM_RESERVED);
	assert_int_equal(mem_kind_of_efi(T_RT_DATA), MEM_RESERVED);
	assert_int_equal(mem_kind_of_efi(T_BS_DATA), MEM_USABLE);
	assert_int_equal(mem_kind_of_efi(0x80000000u), MEM_RESERVED); /* OS-defined */
}

/* Whether [lo, hi) overlaps a descriptor that is not usable. */
static bool hits_unusable(u64 lo, u64 hi)
{
	unsigned i;

	for (i = 0; i < nr_map; i++)
		if (!usable(map[i].type) && map[i].base < hi &&
		    lo < map[i].base + map[i].pages * PAGE_SIZE)
			return true;
	return false;
}

/* Whether [lo, hi) lies in touching usable descriptors only. */
static bool all_usable(u64 lo, u64 hi)
{
	unsigned i;
	u64 at = lo;

	for (i = 0; i < nr_map && at < hi; i++)
		if (usable(map[i].type) && map[i].base <= at &&
		    at < map[i].base + map[i].pages * PAGE_SIZE)
			at = map[i].base + map[i].pages * PAGE_SIZE;
	return at >= hi;
}

/*
 * Every usable page of the map reaches the allocator, neighbours merged
 * into one range each, the sockets' ranges above 4 GiB included; and
 * taking all of it hands out nothing but usable memory.
 */
static void check_allocator_keeps_everything(const struct mem_range *mem, u32 nr_mem)
{
	static struct page_alloc pa;
	u64 want = usable_pages_above_1mib(), got = 0, n, base;
	bool high0 = false, high1 = false;

	page_alloc_init(&pa, 0, 0, mem, nr_mem);
	assert_int_equal(pa.dropped_ranges, 0);
	assert_int_equal(pa.total_pages, want);
	assert_int_equal(page_alloc_free_pages(&pa), want);
	assert_int_equal(pa.nr_ranges, usable_runs());
	/* socket 1's range is whole: the largest */
	assert_int_equal(page_alloc_largest(&pa), (HIGH_TOP - 16 * MIB - NODE1_BASE) / PAGE_SIZE);
	while ((n = page_alloc_largest(&pa))) {
		base = page_alloc_contig(&pa, n);
		assert_true(base >= MIB);
		assert_false(hits_unusable(base, base + n * PAGE_SIZE));
		assert_true(all_usable(base, base + n * PAGE_SIZE));
		high0 |= base == 4 * GIB;
		high1 |= base == NODE1_BASE;
		got += n;
	}
	assert_true(high0 && high1);
	assert_int_equal(got, want);
}

/* As boot/ recorded the map before merging: one range per descriptor. */
static void test_server_map_raw_to_allocator(void **state)
{
	static struct mem_range raw[MAX_DESC];
	unsigned i;

	(void)state;
	build_server_map();
	for (i = 0; i < nr_map; i++)
		raw[i] = (struct mem_range){ map[i].base, map[i].pages,
					     mem_kind_of_efi(map[i].type), map[i].type };
	check_allocator_keeps_everything(raw, nr_map);
}

static void test_server_map_recorded_to_allocator(void **state)
{
	(void)state;
	build_server_map();
	record();
	check_allocator_keeps_everything(bi.mem, bi.nr_mem_ranges);
}

/*
 * A map with more descriptors than boot_info holds: the rest is counted,
 * usable pages apart; and more free ranges than the allocator holds: the
 * smallest are dropped and counted, the large ones kept.
 */
static void test_overflow_counted(void **state)
{
	static struct page_alloc pa;
	u64 a = 16 * MIB, usable_dropped = 0;
	unsigned i;

	(void)state;
	mem_map_reset(&bi);
	for (i = 0; i < BOOT_MAX_MEM_RANGES + 10; i++) {
		/* alternating types that never merge */
		u32 t = i % 2 ? T_RT_DATA : T_CONVENTIONAL;

		if (i >= BOOT_MAX_MEM_RANGES && t == T_CONVENTIONAL)
			usable_dropped += 2;
		mem_map_add(&bi, a, 2, t);
		a += 2 * PAGE_SIZE;
	}
	assert_int_equal(bi.nr_mem_ranges, BOOT_MAX_MEM_RANGES);
	assert_int_equal(bi.mem_dropped, 10);
	assert_int_equal(bi.mem_dropped_usable_pages, usable_dropped);

	/* 1024 usable ranges of 2 pages and one large one above 4 GiB */
	bi.mem[BOOT_MAX_MEM_RANGES - 1] =
	    (struct mem_range){ 8 * GIB, 1 << 20, MEM_USABLE, T_CONVENTIONAL };
	page_alloc_init(&pa, 0, 0, bi.mem, bi.nr_mem_ranges);
	assert_int_equal(pa.nr_ranges, PAGE_ALLOC_MAX_RANGES);
	assert_int_equal(pa.dropped_ranges, BOOT_MAX_MEM_RANGES / 2 + 1 - PAGE_ALLOC_MAX_RANGES);
	assert_int_equal(pa.dropped_pages, 2 * pa.dropped_ranges);
	assert_int_equal(page_alloc_largest(&pa), 1 << 20);
	assert_int_equal(pa.total_pages, page_alloc_free_pages(&pa));

	/* a usable range overlapping another: left out, and counted */
	bi.mem[0] = (struct mem_range){ 16 * MIB, 4, MEM_USABLE, T_CONVENTIONAL };
	bi.mem[1] = (struct mem_range){ 16 * MIB + PAGE_SIZE, 8, MEM_USABLE, T_CONVENTIONAL };
	page_alloc_init(&pa, 0, 0, bi.mem, 2);
	assert_int_equal(pa.total_pages, 4);
	assert_int_equal(pa.dropped_ranges, 1);
	assert_int_equal(pa.dropped_pages, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_server_map_recorded),
		cmocka_unit_test(test_server_map_raw_to_allocator),
		cmocka_unit_test(test_server_map_recorded_to_allocator),
		cmocka_unit_test(test_overflow_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
