// SPDX-License-Identifier: MIT
#include "smp_stacks.h"
#include "smp.h"
#include "page_alloc.h"
#include "stack_canary.h"
#include "lib/fmt.h"

/* 32 KiB: the boot CPU's size (boot_stack.c), measured there. */
#define AP_STACK_PAGES 8

static const u8 *boot_page;

static void paint_canary(u8 *bottom)
{
	__builtin_memset(bottom, STACK_CANARY, STACK_CANARY_BYTES);
}

bool smp_stacks_alloc(unsigned n)
{
	unsigned i;

	for (i = 1; i <= n; i++) {
		/* node 0 when it is not known yet (no MADT): without an SRAT
		 * every range is node 0 anyway */
		cpus[i].stack = alloc_pages_zeroed_node(AP_STACK_PAGES, cpus[i].node);
		if (!cpus[i].stack)
			return false;
		paint_canary(cpus[i].stack);
	}
	return true;
}

void smp_stacks_set_boot(u8 *page)
{
	paint_canary(page);
	boot_page = page;
}

u64 smp_stack_top(const struct cpu *c)
{
	return (u64)(uintptr_t)c->stack + AP_STACK_PAGES * PAGE_SIZE;
}

static bool canary_intact(const u8 *bottom)
{
	unsigned i;

	for (i = 0; i < STACK_CANARY_BYTES; i++)
		if (bottom[i] != STACK_CANARY)
			return false;
	return true;
}

bool smp_stacks_intact(char *why, size_t size)
{
	unsigned i;

	if (boot_page && !canary_intact(boot_page)) {
		fmt_snprintf(why, size, "the canary of the APs' boot stack was overwritten");
		return false;
	}
	for (i = 1; i < nr_cpus; i++)
		if (cpus[i].stack && !canary_intact(cpus[i].stack)) {
			fmt_snprintf(why, size, "the stack canary of cpu %u was overwritten", i);
			return false;
		}
	return true;
}
