/* SPDX-License-Identifier: MIT */
/*
 * The ACPI System Resource Affinity Table (ACPI 6.5 §5.2.16): which
 * proximity domain (NUMA node) each CPU and each memory range belongs
 * to.  Pure parsing of a table in memory; host/numa.c keeps the result.
 */
#ifndef MHV_SRAT_H
#define MHV_SRAT_H

#include "lib/types.h"

#define SRAT_MAX_NODES 64
#define SRAT_MAX_MEM 128

struct srat_mem {
	u64 base, end;
	u32 node;
};

/*
 * Nodes are numbered 0, 1, ... in the order their proximity domains
 * first appear in the table (domains may be sparse); pxm[] keeps each
 * node's domain.
 */
struct srat_info {
	u32 nr_nodes;
	u32 pxm[SRAT_MAX_NODES];
	u32 nr_mem; /* enabled memory affinity structures */
	struct srat_mem mem[SRAT_MAX_MEM];
	u32 nr_cpus; /* enabled processor affinity structures (types 0 and 2) */
};

/* The table at @srat into *info: 0, or -1 with *why saying what is wrong. */
int srat_parse(const void *srat, struct srat_info *info, const char **why);
/* The node of the CPU with this (x2)APIC ID in @srat, which srat_parse
 * read into @info; -1 when the table has none. */
int srat_cpu_node(const void *srat, const struct srat_info *info, u32 apic_id);
/* The node of physical address @pa, -1 outside every memory range. */
int srat_addr_node(const struct srat_info *info, u64 pa);

#endif
