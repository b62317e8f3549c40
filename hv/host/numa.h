/* SPDX-License-Identifier: MIT */
/*
 * The machine's NUMA nodes, from the ACPI SRAT (platform/srat.h): which
 * node each CPU and each range of memory is on, told to the page
 * allocator so that each CPU's structures and its guests' RAM come from
 * its own node.  Without an SRAT (or with a bad one) everything is node 0.
 */
#ifndef MHV_NUMA_H
#define MHV_NUMA_H

#include "lib/types.h"

struct boot_info;

/* Read the SRAT and give hv_pages' ranges their nodes: right after page_alloc_init. */
void numa_init(const struct boot_info *bi);
/* How many nodes (1 without an SRAT). */
u32 numa_nr_nodes(void);
/* The node of the CPU with this APIC ID; 0 when the SRAT does not list it. */
u32 numa_cpu_node(u32 apic_id);
/* The node of physical address @pa, -1 outside every node. */
int numa_addr_node(u64 pa);
/* The node of the running CPU's stack, from its stack pointer (the host
 * maps memory one to one), -1 outside every node. */
int numa_stack_node(void);
/* The header line: the nodes, their memory and CPUs (after smp_init). */
void numa_describe(void);
/* At the end of the run: how many allocations a node could not serve. */
void numa_report_misses(void);

#endif
