/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU data: one struct cpu for each CPU mhv runs on, and which one
 * the running code is on.  A leaf: the console, the page allocator and
 * the descriptor tables ask this_cpu() without depending on how the CPUs
 * were started (smp.h).
 */
#ifndef MHV_PERCPU_H
#define MHV_PERCPU_H

#include "platform/host_timer.h"
#include "lib/types.h"

#define MAX_CPUS 64

struct cpu_tables;
struct page_alloc;

enum cpu_state {
	CPU_ABSENT,   /* not started (yet) */
	CPU_STARTING, /* SIPI sent, trampoline running */
	CPU_IDLE,     /* waiting for work in HLT */
	CPU_GIVEN,    /* smp_start handed it work, not taken yet */
	CPU_BUSY,
	CPU_FAILED,    /* did not start, could not enable virtualization, or retired; why says */
	CPU_FINISHING, /* its work left its guest: only mhv's own code is left (smp.h) */
};

typedef void cpu_work_fn(void *arg);

struct cpu {
	u32 index;   /* 0 is the BSP */
	u32 apic_id; /* from the MADT */
	u32 node;    /* NUMA node, from the SRAT (host/numa.h); 0 without one */
	volatile u32 state;
	char why[112];
	struct cpu_tables *tables;
	struct host_timer timer; /* this CPU's LAPIC timer deadlines */
	cpu_work_fn *volatile work;
	void *volatile work_arg;
	volatile u32 done;
	u32 started; /* done when the current work was handed over */
	/* Its own allocation arena while CPUs run VMs at once, else NULL
	 * (hv_pages): see page_arena(). */
	struct page_alloc *arena;
};

/* Filled by smp_init: cpus[0] is the BSP. */
extern struct cpu cpus[MAX_CPUS];
extern unsigned nr_cpus;

/* The CPU this code runs on (the BSP until smp_init has run). */
struct cpu *this_cpu(void);

#endif
