/* SPDX-License-Identifier: MIT */
/*
 * The machine's CPUs: found in the ACPI MADT, the APs started with
 * INIT-SIPI-SIPI through a trampoline below 1 MiB, each with its own
 * stack, GDT/TSS, LAPIC set-up and virtualization enable (host save area
 * or VMXON region).  Idle APs wait in HLT; the BSP hands one of them a
 * function to run and waits for it, with a time limit.
 */
#ifndef MHV_SMP_H
#define MHV_SMP_H

#include "platform/host_timer.h"
#include "lib/types.h"

#define MAX_CPUS 64

struct boot_info;
struct cpu_tables;
struct page_alloc;

enum cpu_state {
	CPU_ABSENT,   /* not started (yet) */
	CPU_STARTING, /* SIPI sent, trampoline running */
	CPU_IDLE,     /* waiting for work in HLT */
	CPU_BUSY,
	CPU_FAILED, /* did not start, or could not enable virtualization; why says */
};

typedef void cpu_work_fn(void *arg);

struct cpu {
	u32 index;   /* 0 is the BSP */
	u32 apic_id; /* from the MADT */
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

extern struct cpu cpus[MAX_CPUS];
extern unsigned nr_cpus;

/* Start every AP in the MADT; prints one line per CPU that failed. */
void smp_init(const struct boot_info *bi);
/* The CPU this code runs on (the BSP until smp_init has run). */
struct cpu *this_cpu(void);
/* Run fn(arg) on c and wait for it; false (and c marked failed) when it
 * did not finish within timeout_ms.  On the BSP itself it is a call. */
bool smp_run_on(struct cpu *c, cpu_work_fn *fn, void *arg, u64 timeout_ms);
/* The canaries at the bottom of the APs' stacks are intact (selfcheck). */
bool smp_stacks_intact(char *why, size_t size);
/* Threads of one core (from the APIC ID topology)? */
bool smp_same_core(const struct cpu *a, const struct cpu *b);
/* Start fn(arg) on an idle AP without waiting; smp_wait waits for it.
 * false when c cannot take work. */
bool smp_start(struct cpu *c, cpu_work_fn *fn, void *arg);
bool smp_wait(struct cpu *c, u64 timeout_ms);
/* Make c take an interrupt: a vCPU there leaves guest mode, an idle CPU wakes. */
void smp_kick(struct cpu *c);
/* Called by the trampoline on each AP's new stack, with the slot it took. */
void smp_ap_entry(u32 slot) __noreturn;

#endif
