// SPDX-License-Identifier: MIT
/*
 * The host's own page tables: an identity map of the whole physical
 * address width (CPUID 8000_0008 EAX[7:0]), RAM and MMIO alike, so that
 * any device or guest page can be reached by its physical address.
 * Memory types come from the firmware's MTRRs (UC over MMIO), so all
 * leaves are write-back in the PAT sense; no leaf spans two MTRR types
 * (SDM Vol 3 §12.11.9: undefined on Intel; harmless on AMD): where a
 * 1 GiB page would, 2 MiB or 4 KiB pages are used.
 */
#include "paging.h"
#include "platform/console.h"
#include "cpu_features.h"
#include "page_alloc.h"
#include "arch/pagetable.h"
#include "finish.h"
#include "host_mtrr.h"
#include "arch/mtrr_type.h"

void *host_pt_alloc_page(struct pt_ctx *ctx, u64 *phys)
{
	void *p = alloc_page_zeroed();

	(void)ctx;
	*phys = (u64)(uintptr_t)p;
	return p;
}

void *host_pt_phys_to_virt(struct pt_ctx *ctx, u64 phys)
{
	(void)ctx;
	return (void *)(uintptr_t)phys;
}

/* Width of the identity map: host_paging_init() may map less than phys_bits. */
static unsigned mapped_bits;

struct pt_ctx host_pt_ctx = {
	.alloc_page = host_pt_alloc_page,
	.phys_to_virt = host_pt_phys_to_virt,
	.table_flags = PTE_P | PTE_RW | PTE_A,
};

/* Accessed and dirty set from the start: the CPU never writes the tables,
 * which the self-check hashes (selfcheck.c), as it touches a page first. */
#define HOST_LEAF (PTE_P | PTE_RW | PTE_A | PTE_D)

static bool one_mtrr_type(const void *mtrrs, u64 base, u64 size)
{
	return mtrr_range_type(mtrrs, base, size) >= 0;
}

static bool any_range(const void *arg, u64 base, u64 size)
{
	return true;
}

u64 host_paging_init(void)
{
	static struct mtrr_set mtrrs;
	void *root = alloc_page_zeroed();
	unsigned bits = host_cpu.phys_bits;
	bool have_mtrrs = host_mtrr_read(&mtrrs);
	u64 leaves[3] = { 0, 0, 0 };
	long pages;

	if (!root)
		hv_fatal(MHV_FATAL, "out of memory for the host page tables");
	/* Without 1 GiB pages a 2 MiB map of 2^46 bytes would need 256 MiB of
	 * tables: map the first 512 GiB (one PML4 entry) and say so. */
	if (!host_cpu.has.gbpages && bits > 39)
		bits = 39;
	pages = pt_build_identity_split(&host_pt_ctx, (u64)(uintptr_t)root, bits,
					host_cpu.has.gbpages, HOST_LEAF,
					have_mtrrs ? one_mtrr_type : any_range, &mtrrs, leaves);
	if (pages < 0)
		hv_fatal(MHV_FATAL, "cannot build the host identity map (error %ld)", pages);
	console_printf("mhv: host page tables: identity map of %u-bit physical space, %s pages, "
		       "%ld table pages; %s: %llu 1 GiB, %llu 2 MiB, %llu 4 KiB leaves\n",
		       bits, host_cpu.has.gbpages ? "1 GiB" : "2 MiB", pages + 1,
		       have_mtrrs ? "split where the MTRR type changes"
				  : "no MTRRs readable, not split",
		       leaves[2], leaves[1], leaves[0]);
	write_cr3((u64)(uintptr_t)root);
	mapped_bits = bits;
	return (u64)(uintptr_t)root;
}

bool host_paging_maps(u64 pa, u64 len)
{
	u64 end = pa + len;

	return mapped_bits && end >= pa && end <= BIT(mapped_bits);
}
