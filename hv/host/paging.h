/* SPDX-License-Identifier: MIT */
#ifndef MHV_HOST_PAGING_H
#define MHV_HOST_PAGING_H

#include "lib/types.h"

struct pt_ctx;

/* Page-table pages from the hypervisor's allocator, reached by identity map:
 * the callbacks of every tree in host memory (host map, NPT, EPT). */
void *host_pt_alloc_page(struct pt_ctx *ctx, u64 *phys);
void *host_pt_phys_to_virt(struct pt_ctx *ctx, u64 phys);

/* The pt_ctx for tables in host memory (identity-mapped: phys == pointer). */
extern struct pt_ctx host_pt_ctx;

/* Replace the firmware's page tables with our identity map; returns CR3. */
u64 host_paging_init(void);

/* True when [pa, pa + len) lies inside that identity map (device registers
 * included: their memory type comes from the MTRRs, UC over MMIO). */
bool host_paging_maps(u64 pa, u64 len);

#endif
