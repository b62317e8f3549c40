/* SPDX-License-Identifier: MIT */
#ifndef MHV_HOST_PAGING_H
#define MHV_HOST_PAGING_H

#include "types.h"

struct pt_ctx;

/* The pt_ctx for tables in host memory (identity-mapped: phys == pointer). */
extern struct pt_ctx host_pt_ctx;

/* Replace the firmware's page tables with our identity map; returns CR3. */
u64 host_paging_init(void);

#endif
