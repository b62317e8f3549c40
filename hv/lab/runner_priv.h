/* SPDX-License-Identifier: MIT */
#ifndef MHV_RUNNER_PRIV_H
#define MHV_RUNNER_PRIV_H

/*
 * What the runner's files (runner.c, runner_vm.c, runner_at_once.c,
 * runner_guests.c) share among themselves; nothing outside them uses it.
 */
#include "runner.h"
#include "results.h"
#include "verdict.h"
#include "host/smp.h"
#include "suites.h"
#include "core/vm.h"
#include "platform/aperf.h"

/* How long past a VM's own time limit the BSP waits for the CPU running it. */
#define CPU_GRACE_MS 30000
/* How long a CPU kicked out of a VM that overran has to come back; one
 * that does not is retired (smp_retire). */
#define KICK_WAIT_MS 500

/* The spans a lost VM's record holds: its pages and its struct vm. */
#define LOST_VM_SPANS 8

/* A VM a CPU never came back from: what that CPU may still touch. */
struct lost_vm {
	char name[VM_NAME_LEN];
	u32 cpu; /* the CPU that did not come back */
	struct page_span spans[LOST_VM_SPANS];
	u32 nr_spans;
};

/* The run: what every part of it reaches through the context it is given. */
struct runner {
	const struct mhv_config *cfg;
	const struct boot_info *bi;
	/* the one-after-another runs and the guests; the run's totals */
	struct run_results results;
	/* the VM of the one-after-another runs and of the guests, one at a
	 * time; another one after a CPU was lost in it (runner_keep_lost_vm) */
	struct vm *vm;
	u32 next_vm_id;	   /* the id the next suite VM gets */
	u32 next_guest_id; /* the id the next guest gets */
	/* every VM a CPU never came back from (each retires a CPU): room
	 * for one per CPU, allocated for the CPUs present */
	struct lost_vm *lost;
	u32 nr_lost, max_lost;
};

/*
 * Where one CPU's VMs live and its results go: the run's own for CPUs
 * that run the plan one after another, one set per CPU for CPUs that run
 * it at once.
 */
struct cpu_run {
	struct runner *run;
	struct cpu *cpu;
	struct run_results *results;
	struct vm *vm;
	u32 hostile_tried, hostile_contained;
};

struct vm_life;

/* How one kind of VM is made, announced and judged. */
struct vm_life_ops {
	/* Make l's VM; false when it could not be, with the test failed and why said. */
	bool (*create)(struct vm_life *l);
	void (*say_start)(const struct vm_life *l);
	/* Judge the VM's end.  @ended: each CPU ran its vCPU to the end in
	 * time; @ticks: TSC ticks the run took. */
	void (*judge)(struct vm_life *l, bool ended, u64 ticks);
};

/*
 * One VM, from its creation to its destruction: a VM of a suite or a
 * guest kernel.  Also the harness context its guest's results reach.
 */
struct vm_life {
	const struct vm_life_ops *ops;
	struct cpu_run *cr;
	const char *suite; /* where its results go: the suite's name, or "guests" */
	const struct vm_config *config;
	u32 id;
	/* vCPU i runs on on[i]; on[0] NULL: its one vCPU runs on the CPU
	 * that lives the VM's life */
	struct cpu *on[VM_MAX_VCPUS];
	const struct suite *s; /* a VM of a suite */
	const struct suite_vm *sv;
	const struct mhv_guest *g; /* a guest kernel, the config's guest number g_index */
	u32 g_index;
	/* guest strings that reached the results with a byte that is not
	 * printable ASCII: they could start a line of their own in the log */
	volatile u32 unfiltered;
	/* result hypercalls an external guest made, each refused: only its
	 * exit code judges it (runner_guests.c) */
	volatile u32 refused;
	/* the clock counters when the guest asked for its current benchmark */
	struct aperf_sample bench_start;
	struct insn_class_sample classes_start;
	/* what one round trip of the harness's hypercalls adds to the
	 * classes: the guest asks for a benchmark twice (bench_wanted), and
	 * this is what lies between the two */
	struct insn_class_sample classes_bracket;
	char wanted[HC_NAME_LEN]; /* the benchmark asked for last */
	/* the benchmark rows it may still report (runner_vm_bench_rows) */
	u32 bench_rows_left;
};

/* SMIs that made a guest exit (SVM intercepts them), all VMs so far. */
u64 runner_guest_smis(void);

/* Which VMs of the plan a pass over it runs. */
enum plan_vms {
	PLAN_ALL,
	PLAN_ONE_VCPU,	/* what CPUs run at once */
	PLAN_TWO_VCPUS, /* after that, each chosen CPU with a second one */
};

/* What every VM of the lab is made with: its name, l's column, its time
 * limit and vCPUs, the config's settings, and l as its harness. */
struct vm_spec runner_vm_spec(struct vm_life *l, const char *name, u64 time_limit_ms, u32 nr_vcpus);
/* A VM of suite @s for cr's CPU: @sv in column @config, the next id. */
void runner_suite_vm(struct vm_life *l, struct cpu_run *cr, const struct suite *s,
		     const struct suite_vm *sv, const struct vm_config *config);
/* Create, announce, run, judge and destroy l's VM. */
void runner_vm_life(struct vm_life *l);
/* After a fuzz VM, before it is destroyed: when it failed a test or mhv's
 * self-check fails, its seed and last operations (runner_fuzz.c). */
void runner_fuzz_check(struct vm_life *l, u32 failed_before);
/* l's VM's CPU @c did not run it to its end: its test fails. */
void runner_vm_lost(const struct vm_life *l, const struct cpu *c);
/*
 * @vm of @cr lost CPU @c for good (WORK_LOST): nothing @c may still touch
 * is reused.  The VM's pages stay taken (its mark is never released), its
 * struct vm is left to it (@cr and the run make their VMs in another one
 * from then on), its guest is no longer heard, and every later VM is
 * checked to lie apart from it.  The at-once run releases no arena after.
 */
void runner_keep_lost_vm(struct cpu_run *cr, struct vm *vm, const struct cpu *c);
/* The exits of each of @v's vCPUs, by kind, a line each. */
void runner_print_exit_counts(const struct vm *v);

/* CPUs for @n vCPUs, @first first; how many were found. */
unsigned runner_pick_cpus(struct cpu *first, unsigned n, struct cpu *on[VM_MAX_VCPUS]);
/* How a CPU's work of runner_run_together ended. */
enum work_end {
	WORK_DONE,
	WORK_NOT_STARTED, /* the CPU could not take it */
	WORK_LOST,	  /* it did not come back even when kicked: the CPU is retired */
};
/*
 * fn(args[i]) on on[i] for every i at once, on[i] running VM vms[i]: the
 * APs start theirs, the BSP, if it is one of them, runs its own, then
 * each AP is waited for up to @timeout_ms.  One still running then has
 * its VM stopped and is kicked out of it, waited for KICK_WAIT_MS more,
 * and retired if it still is not back (one line says so): the caller must
 * then keep all it may touch (runner_keep_lost_vm).  end[i]: how on[i]'s
 * work ended.
 */
void runner_run_together(struct cpu *const on[], unsigned n, cpu_work_fn *fn, void *const args[],
			 struct vm *const vms[], u64 timeout_ms, enum work_end end[]);
/* "1,0,3": the CPUs' numbers, for start lines. */
/* "0-3,7,9": three or more consecutive indices as a range. */
void runner_format_cpu_list(char *buf, size_t size, struct cpu *const on[], unsigned n);
/* ", node N" for a CPU's header line on a machine of NUMA nodes, else "";
 * in a buffer of its own, for the BSP's header lines. */
const char *runner_cpu_node(const struct cpu *c);

/* Whether a pass over the plan of kind @which runs @sv. */
bool runner_plan_takes(enum plan_vms which, const struct suite_vm *sv);
/* Whether the suites @cfg selects have a VM a pass of kind @which runs. */
bool runner_plan_has(const struct mhv_config *cfg, enum plan_vms which);
/* What a walk over the plan does with each column of each selected suite. */
struct plan_walk {
	void (*refuse)(void *arg, const struct suite *s, const struct vm_config *c,
		       const char *why); /* the host cannot run the column */
	void (*run)(void *arg, const struct suite *s, const struct vm_config *c);
	void *arg;
	/* before a suite's columns (runner_say_suite), or NULL */
	void (*suite)(void *arg, const struct suite *s);
};
/* Every selected suite with VMs of @which, each of its columns in the
 * matrix order. */
void runner_walk_plan(const struct mhv_config *cfg, enum plan_vms which, const struct plan_walk *w);
/* "mhv: suite NAME": a plan_walk's suite callback. */
void runner_say_suite(void *arg, const struct suite *s);
/* The benchmark rows VM @sv of suite @s reports at most (its program's
 * struct guest_info). */
u32 runner_vm_bench_rows(const struct suite *s, const struct suite_vm *sv);
/* The benchmark rows one CPU's pass over the plan reports at most; said
 * in a header line. */
u32 runner_plan_bench_rows(const struct mhv_config *cfg);
/* The VMs of the plan that a pass of kind @which runs, on one CPU. */
void runner_run_plan_on(struct cpu_run *cr, enum plan_vms which);
/* Print a CPU's hostile summary and tables, then drop its rows. */
void runner_finish_cpu_run(struct cpu_run *cr);

/* The plan on every chosen CPU at once; refused when there is no memory for it. */
struct why_not runner_run_at_once(struct runner *run, struct cpu *chosen[], unsigned n);
/* The "guest =" kernels, one after another, on @cpu. */
void runner_run_guests(struct runner *run, struct cpu *cpu);

#endif
