// SPDX-License-Identifier: MIT
/*
 * The host's own page tables: an identity map of the whole physical
 * address width (CPUID 8000_0008 EAX[7:0]), RAM and MMIO alike, so that
 * any device or guest page can be reached by its physical address.
 * Memory types come from the firmware's MTRRs (UC over MMIO), so all
 * leaves are write-back in the PAT sense.
 */
#include "paging.h"
#include "platform/console.h"
#include "cpu_features.h"
#include "page_alloc.h"
#include "arch/pagetable.h"
#include "finish.h"

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
	.table_flags = PTE_P | PTE_RW,
};

u64 host_paging_init(void)
{
	void *root = alloc_page_zeroed();
	unsigned bits = host_cpu.phys_bits;
	long pages;

	if (!root)
		hv_fatal(MHV_FATAL, "out of memory for the host page tables");
	/* Without 1 GiB pages a 2 MiB map of 2^46 bytes would need 256 MiB of
	 * tables: map the first 512 GiB (one PML4 entry) and say so. */
	if (!host_cpu.has.gbpages && bits > 39)
		bits = 39;
	pages = pt_build_identity(&host_pt_ctx, (u64)(uintptr_t)root, bits, host_cpu.has.gbpages,
				  PTE_P | PTE_RW);
	if (pages < 0)
		hv_fatal(MHV_FATAL, "cannot build the host identity map (error %ld)", pages);
	console_printf("mhv: host page tables: identity map of %u-bit physical space, %s pages, "
		       "%ld table pages\n",
		       bits, host_cpu.has.gbpages ? "1 GiB" : "2 MiB", pages + 1);
	write_cr3((u64)(uintptr_t)root);
	mapped_bits = bits;
	return (u64)(uintptr_t)root;
}

bool host_paging_maps(u64 pa, u64 len)
{
	u64 end = pa + len;

	return mapped_bits && end >= pa && end <= BIT(mapped_bits);
}
