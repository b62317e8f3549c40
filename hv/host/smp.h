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

#include "percpu.h"

struct boot_info;

/*
 * What an AP does once it has the BSP's control state.  enable: may this
 * CPU run VMs, then enable virtualization on it (false, with why, when
 * not); idle_wait: sleep until an interrupt.  main gives them: the host
 * knows no backend.
 */
struct smp_ap_ops {
	bool (*enable)(char *why, size_t size);
	void (*idle_wait)(void);
};

/* What smp_init found, for the run header. */
struct smp_census {
	u32 in_madt; /* CPUs the MADT lists that mhv may start; 0 without a MADT */
	u8 madt_rev;
	u32 started; /* CPUs that came up, the BSP included */
};
extern struct smp_census smp_census;

/* Start every AP in the MADT; prints one line per CPU that failed. */
void smp_init(const struct boot_info *bi, const struct smp_ap_ops *ops);
/* The canaries at the bottom of the APs' stacks and of their shared boot
 * stack are intact (selfcheck; smp_stacks.c). */
bool smp_stacks_intact(char *why, size_t size);
/* Threads of one core (from the APIC ID topology)? */
bool smp_same_core(const struct cpu *a, const struct cpu *b);
/* Start fn(arg) on an idle AP without waiting; smp_wait waits for it.
 * false when c cannot take work. */
bool smp_start(struct cpu *c, cpu_work_fn *fn, void *arg);
/* Whether c's work ended within timeout_ms. */
bool smp_wait(struct cpu *c, u64 timeout_ms);
/*
 * On the CPU doing the work: it has left its guest, and only mhv's own
 * code is left to do.  When the BSP has retired the CPU meanwhile, it
 * stops here for good instead, touching nothing more: the BSP went on
 * without it, and the rest of its work (a VM's teardown, its results,
 * its caller's frame) is no longer its to do.
 */
void smp_work_left_guest(void);
/*
 * Give up on AP c, whose work (a guest) did not end in time even when
 * kicked: true when it is retired: it never gets work again, and if it
 * ever gets out of its guest it stops at smp_work_left_guest or when its
 * work ends, touching nothing more.  What the work may still touch must
 * then never be reused.  false when c had left its guest after all: its
 * work then ends within finish_ms (mhv's own code), which is waited for.
 */
bool smp_retire(struct cpu *c, u64 finish_ms, const char *why);
/* CPUs parked for good so far (late or unknown: percpu_stray, and the
 * trampoline's own); the header's cpus line and the run's end say it. */
u32 smp_parked(void);
/* Make c take an interrupt: a vCPU there leaves guest mode, an idle CPU wakes. */
void smp_kick(struct cpu *c);
/*
 * The trampoline's calls.  smp_ap_boot(slot), on the shared boot stack:
 * which CPU this AP is (by APIC ID; by the slot it took without a MADT)
 * and the top of its own stack; {0, NULL} for a CPU mhv did not start.
 * Two eightbytes of INTEGER class: returned in RAX and RDX (System V
 * AMD64 ABI §3.2.3).  smp_ap_entry(c) then runs on that stack.
 */
struct smp_ap_start {
	u64 stack_top;
	struct cpu *cpu;
};
struct smp_ap_start smp_ap_boot(u32 slot);
void smp_ap_entry(struct cpu *c) __noreturn;

#endif
