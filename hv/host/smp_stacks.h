/* SPDX-License-Identifier: MIT */
/*
 * The APs' stacks.  Each AP runs on a stack of its own NUMA node, which
 * the BSP allocates before start-up.  An AP cannot take it at once: which
 * CPU it is (its APIC ID, read in its APIC's mode) is known only to C
 * code, which needs a stack.  So the trampoline runs that one step,
 * smp_ap_boot, on a shared boot stack (a page of the trampoline's, below
 * 1 MiB), one AP at a time, and then moves to the AP's own stack for good:
 * the boot stack costs one page, whatever the number of CPUs.
 */
#ifndef MHV_SMP_STACKS_H
#define MHV_SMP_STACKS_H

#include "lib/types.h"

struct cpu;

/* Stacks for cpus[1..1+n), each from its CPU's node (c->node), with a
 * canary at its bottom; false when memory ran out. */
bool smp_stacks_alloc(unsigned n);
/* The shared boot stack: the page at @page; gets its canary. */
void smp_stacks_set_boot(u8 *page);
/* Where c's stack starts (its highest address + 1): RSP before a call. */
u64 smp_stack_top(const struct cpu *c);

#endif
