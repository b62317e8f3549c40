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
#include "lib/cpuset.h"
#include "lib/types.h"

/* The most CPUs mhv starts: what a struct cpuset holds.  Only the sets
 * have this size; per-CPU data is allocated for the CPUs present. */
#define MAX_CPUS CPUSET_BITS

struct cpu_tables;
struct page_alloc;

enum cpu_state {
	CPU_ABSENT,   /* not started (yet) */
	CPU_STARTING, /* SIPI sent, trampoline running */
	CPU_BOOTING,  /* it answered: its own set-up runs (smp_state.h) */
	CPU_IDLE,     /* waiting for work in HLT */
	CPU_GIVEN,    /* smp_start handed it work, not taken yet */
	CPU_BUSY,
	CPU_FAILED,    /* did not start, could not enable virtualization, or retired; why says */
	CPU_FINISHING, /* its work left its guest: only mhv's own code is left (smp.h) */
};

typedef void cpu_work_fn(void *arg);

#define STACK_NODE_UNSEEN (-2)

struct cpu {
	u32 index;   /* 0 is the BSP */
	u32 apic_id; /* from the MADT */
	u32 node;    /* NUMA node, from the SRAT (host/numa.h); 0 without one */
	/* The node its stack is on, as the CPU itself found from its stack
	 * pointer (numa_stack_node), -1 on none; STACK_NODE_UNSEEN until then. */
	int stack_node;
	volatile u32 state;
	char why[112];
	struct cpu_tables *tables;
	u8 *stack; /* an AP's own stack, its lowest byte (smp_stacks.h); NULL: the BSP */
	struct host_timer timer; /* this CPU's LAPIC timer deadlines */
	cpu_work_fn *volatile work;
	void *volatile work_arg;
	volatile u32 done;
	u32 started; /* done when the current work was handed over */
	/* Its own allocation arena while CPUs run VMs at once, else NULL
	 * (hv_pages): see page_arena(). */
	struct page_alloc *arena;
	/* Host PMIs taken (HOST_PMI_VECTOR, isr_dispatch): each one a guest
	 * counter's overflow in guest mode, new to the guest PMU code
	 * (pmu_vcpu.c) even when its GLOBAL_STATUS bit was set already. */
	u64 host_pmis;
};

/* nr_cpus of them, cpus[0] the BSP: until smp_init, the BSP's alone
 * (static); then an array from the page allocator for the CPUs present. */
extern struct cpu *cpus;
extern unsigned nr_cpus;

/* cpus[] for n CPUs, zeroed but for cpus[0], the BSP's, which moves
 * there; false (cpus unchanged) when the memory is not there. */
bool percpu_alloc(unsigned n);
/* Once every cpus[i].apic_id is final: the table by APIC ID that
 * this_cpu() looks in, instead of its scan (false: no memory for it). */
bool percpu_index_apic_ids(void);

/* No CPU has it: the x2APIC broadcast ID (SDM Vol 3 §11.12.9); the
 * APIC ID of a struct cpu no CPU has claimed yet. */
#define APIC_ID_NONE 0xffffffffu

/* The CPU this code runs on (the BSP until smp_init has run).  A CPU whose
 * APIC ID is none of cpus[]' (one mhv did not start, or one that answered
 * too late) never gets another's: it parks for good (percpu_stray). */
struct cpu *this_cpu(void);
/* Where such a CPU goes: parked with a tiny stack of its own, never back
 * (smp.c). */
void percpu_stray(u32 apic_id) __noreturn;

#endif
