// SPDX-License-Identifier: MIT
#include "numa.h"
#include "lib/boot_info.h"
#include "lib/fmt.h"
#include "page_alloc.h"
#include "percpu.h"
#include "platform/acpi.h"
#include "platform/console.h"
#include "platform/srat.h"

static const void *srat;
static struct srat_info info;
static u32 nr_nodes = 1;
static const char *why_one = "no SRAT";
static bool bad_srat;
static u64 node_ram_pages[SRAT_MAX_NODES];

/* RAM (anything but reserved and MMIO) of the boot map on each node. */
static void count_ram(const struct boot_info *bi)
{
	u32 i, j;

	for (i = 0; i < bi->nr_mem_ranges; i++) {
		const struct mem_range *r = &bi->mem[i];
		u64 end = r->base + r->pages * PAGE_SIZE;

		if (r->kind == MEM_RESERVED)
			continue;
		for (j = 0; j < info.nr_mem; j++) {
			u64 lo = r->base > info.mem[j].base ? r->base : info.mem[j].base;
			u64 hi = end < info.mem[j].end ? end : info.mem[j].end;

			if (lo < hi)
				node_ram_pages[info.mem[j].node] += (hi - lo) / PAGE_SIZE;
		}
	}
}

void numa_init(const struct boot_info *bi)
{
	struct page_node_span spans[SRAT_MAX_MEM];
	const void *t = acpi_find_table(bi->rsdp, "SRAT");
	u32 i;

	if (!t)
		return;
	if (srat_parse(t, &info, &why_one)) {
		__builtin_memset(&info, 0, sizeof(info));
		bad_srat = true;
		return;
	}
	why_one = NULL;
	srat = t;
	nr_nodes = info.nr_nodes ? info.nr_nodes : 1;
	for (i = 0; i < info.nr_mem; i++)
		spans[i] =
		    (struct page_node_span){ info.mem[i].base, info.mem[i].end, info.mem[i].node };
	page_alloc_set_nodes(&hv_pages, spans, info.nr_mem);
	count_ram(bi);
}

u32 numa_nr_nodes(void)
{
	return nr_nodes;
}

u32 numa_cpu_node(u32 apic_id)
{
	int node = srat ? srat_cpu_node(srat, &info, apic_id) : -1;

	return node < 0 ? 0 : (u32)node;
}

int numa_addr_node(u64 pa)
{
	return srat ? srat_addr_node(&info, pa) : -1;
}

int numa_stack_node(void)
{
	u64 rsp;

	asm volatile("mov %%rsp, %0" : "=r"(rsp));
	return numa_addr_node(rsp);
}

/* "0-3,8" : the indexes of node @node's CPUs, as runs. */
static void format_cpus(char *buf, size_t size, u32 node)
{
	size_t used = 0;
	unsigned i, first;

	buf[0] = 0;
	for (i = 0; i < nr_cpus && used < size; i++) {
		if (cpus[i].node != node)
			continue;
		first = i;
		while (i + 1 < nr_cpus && cpus[i + 1].node == node)
			i++;
		used += fmt_snprintf(buf + used, size - used, used ? ",%u" : "%u", first);
		if (i > first && used < size)
			used += fmt_snprintf(buf + used, size - used, "-%u", i);
	}
	if (!buf[0])
		fmt_snprintf(buf, size, "none");
}

/* The CPUs whose stack is not on their own node: the first, and how many. */
static void describe_stacks(void)
{
	unsigned i, n = 0, first = 0;

	for (i = 0; i < nr_cpus; i++)
		if (cpus[i].stack_node != STACK_NODE_UNSEEN &&
		    cpus[i].stack_node != (int)cpus[i].node && !n++)
			first = i;
	if (n)
		console_printf("mhv: numa: CPUs on a stack of another node: %u (cpu %u: node %u, "
			       "stack on node %d)\n",
			       n, first, cpus[first].node, cpus[first].stack_node);
}

void numa_describe(void)
{
	char line[320], list[96];
	size_t used;
	u32 n;

	if (srat && info.nr_nodes <= 1) {
		console_printf("mhv: numa: one node (SRAT)\n");
		return;
	}
	if (!srat) {
		console_printf("mhv: numa: one node (%s%s)\n", bad_srat ? "SRAT ignored: " : "",
			       why_one);
		return;
	}
	used = fmt_snprintf(line, sizeof(line), "%u nodes (SRAT):", nr_nodes);
	for (n = 0; n < nr_nodes && used < sizeof(line); n++) {
		format_cpus(list, sizeof(list), n);
		used += fmt_snprintf(line + used, sizeof(line) - used,
				     "%s node %u %llu MiB (%llu free) cpus %s", n ? "," : "", n,
				     node_ram_pages[n] >> 8,
				     page_alloc_node_pages(&hv_pages, n) >> 8, list);
	}
	console_printf("mhv: numa: %s\n", line);
	describe_stacks();
	if (hv_pages.unsplit || page_alloc_node_pages(&hv_pages, PAGE_NODE_ANY))
		console_printf("mhv: numa: %llu MiB of free memory on no node, %u node boundaries "
			       "not split (allocator full)\n",
			       page_alloc_node_pages(&hv_pages, PAGE_NODE_ANY) >> 8,
			       hv_pages.unsplit);
}

void numa_report_misses(void)
{
	if (nr_nodes > 1 && hv_pages.node_misses)
		console_printf("mhv: numa: %llu allocations took another node's memory: their "
			       "node had no room left\n",
			       hv_pages.node_misses);
}
