/* SPDX-License-Identifier: MIT */
#ifndef MHV_RUNNER_PRIV_H
#define MHV_RUNNER_PRIV_H

/*
 * What the runner's files (runner.c, runner_at_once.c, runner_guests.c,
 * results.c) share among themselves; nothing outside them uses it.
 */
#include "runner.h"
#include "host/smp.h"
#include "suites.h"
#include "core/vm.h"

/* How long past a VM's own time limit the BSP waits for the CPU running it. */
#define CPU_GRACE_MS 30000

/*
 * Where one CPU's VMs live and its results go: the run's own for CPUs
 * that run the plan one after another, one set per CPU for CPUs that run
 * it at once.
 */
struct cpu_run {
	struct cpu *cpu;
	struct run_results *results;
	struct vm *vm;
	u32 hostile_tried, hostile_contained, hostile_failed_before;
};

/* One VM of a suite, as the CPU that runs it sees it. */
struct vm_job {
	struct cpu_run *cr;
	const struct suite *s;
	const struct suite_vm *sv;
	const struct vm_config *config;
	u32 id;
};

/* Which VMs of the plan a pass over it runs. */
enum plan_vms {
	PLAN_ALL,
	PLAN_ONE_VCPU,	/* what CPUs run at once */
	PLAN_TWO_VCPUS, /* after that, each chosen CPU with a second one */
};

/* The results of the whole run: one-after-another runs and the guests. */
extern struct run_results results;
/* The VM of the one-after-another runs and of the guests, one at a time. */
extern struct vm vm;
/* The id the next suite VM gets. */
extern u32 next_vm_id;

/* Name @column as refused in r's tables, each column once. */
void record_refused(struct run_results *r, const char *column, const char *why);
/* The exits of each of @v's vCPUs, by kind, a line each. */
void print_exit_counts(const struct vm *v);
/* Record whether @v ended as @sv had to. */
void judge_stop(const struct suite *s, const struct suite_vm *sv, const struct vm *v);

/* smp_start/smp_run_on work: run the vCPU @arg until its VM stops. */
void vcpu_work(void *arg);
/* CPUs for @n vCPUs, @first first; how many were found. */
unsigned pick_cpus(struct cpu *first, unsigned n, struct cpu *on[VM_MAX_VCPUS]);
/* Every vCPU of @v at once, vCPU i on on[i]; false when a CPU is lost. */
bool run_vcpus(struct vm *v, struct cpu *const on[], u64 limit_ms);
/*
 * fn(args[i]) on on[i] for every i at once: the APs start theirs, the BSP,
 * if it is one of them, runs its own, then each AP is waited for up to
 * @timeout_ms.  done[i]: on[i] ran it to the end (false: it could not
 * start, or did not finish and is left out from then on).
 */
void run_together(struct cpu *const on[], unsigned n, cpu_work_fn *fn, void *const args[],
		  u64 timeout_ms, bool done[]);
/* "1,0,3": the CPUs' numbers, for start lines. */
void format_cpu_list(char *buf, size_t size, struct cpu *const on[], unsigned n);
/* On the chosen CPU: the whole life of the VM of @arg (a struct vm_job). */
void vm_job_run(void *arg);

/* Whether a pass over the plan of kind @which runs @sv. */
bool plan_takes(enum plan_vms which, const struct suite_vm *sv);
/* Whether suite @s has a VM a pass of kind @which runs. */
bool suite_has(const struct suite *s, enum plan_vms which);
/* Whether the suites @cfg selects have a VM a pass of kind @which runs. */
bool plan_has(const struct mhv_config *cfg, enum plan_vms which);
/* The VMs of the plan that a pass of kind @which runs, on one CPU. */
void run_plan_on(struct cpu_run *cr, const struct mhv_config *cfg, enum plan_vms which);
/* What a walk over the plan does with each column of each selected suite. */
struct plan_walk {
	void (*refuse)(void *arg, const struct suite *s, const struct vm_config *c,
		       const char *why); /* the host cannot run the column */
	void (*run)(void *arg, const struct suite *s, const struct vm_config *c);
	void *arg;
};
/* Every selected suite with VMs of @which ("mhv: suite" said), each of its
 * columns in the matrix order. */
void walk_plan(const struct mhv_config *cfg, enum plan_vms which, const struct plan_walk *w);
/* Print a CPU's hostile summary and tables, then drop its rows. */
void finish_cpu_run(struct cpu_run *cr);

/* The plan on every chosen CPU at once; false when there is no memory for it. */
bool run_cpus_at_once(struct cpu *chosen[], unsigned n, const struct mhv_config *cfg);
/* The "guest =" kernels, one after another, on @cpu. */
void run_guests(const struct mhv_config *cfg, const struct boot_info *bi, struct cpu *cpu);

#endif
