/* SPDX-License-Identifier: MIT */
#ifndef MHV_SUITES_H
#define MHV_SUITES_H

#include "config.h"
#include "verdict.h"
#include "core/vm.h"
#include "core/vm_config.h"

/* The two VMs of the hostile lost-CPU case (hv/lab/runner*.c). */
enum lost_cpu_part {
	LOST_CPU_NONE,
	/*
	 * vCPU 1 runs on an AP other than the suites' CPU, made deaf to every
	 * interrupt first: that CPU never comes back, as a wedged one would
	 * not, and the runner waits only the VM's time limit for it.
	 */
	LOST_CPU_LOSE,
	/* the VM after it: skipped when no VM lost a CPU before */
	LOST_CPU_NEXT,
};

/* A VM of a suite: which program of the blob, and how it must end. */
struct suite_vm {
	const char *name;
	u32 variant;
	enum vm_stop expect;
	const char *test; /* host-side test judging an expected stop, or NULL */
	/* Whether this machine can run the VM, or NULL when every one can. */
	struct why_not (*runs_here)(void);
	bool timed;	   /* the entry code stamps the TSC around VMRUN / VM entry */
	u32 time_limit_ms; /* 0: the config's time_limit */
	/* Another acceptable end (VM_RUNNING: none): where the hardware may
	 * refuse a state outright, the VM stopped with the reason is contained. */
	enum vm_stop expect_alt;
	u32 nr_vcpus; /* 0 (left out) or 1: one vCPU; more: each on its own physical CPU */
	bool opt_in;  /* runs only when "tests =" names its test */
};

/* Which columns of the VM configuration matrix a suite runs in. */
enum suite_columns {
	COLUMN_DEFAULT, /* the default configuration only */
	COLUMNS_ALL,	/* every configuration (the benchmark matrix) */
	COLUMNS_PMU,	/* every configuration that changes the PMU */
};

struct suite {
	const char *name;
	u32 bit;
	const u8 *blob, *blob_end;
	const struct suite_vm *vms;
	unsigned nr_vms;
	enum suite_columns columns;
	bool selfcheck; /* mhv checks its own integrity after each VM */
};

/* The suites mhv knows, in the order they run. */
extern const struct suite suites[];
extern const unsigned nr_suites;

/* The columns of the VM configuration matrix, in the order they run;
 * NR_VM_CONFIGS of them (checked where they are defined). */
#define NR_VM_CONFIGS 10
extern const struct vm_config vm_configs[];
extern const unsigned nr_vm_configs;

/* Whether column @config is for the guest's test @test. */
bool vm_config_wants(const struct vm_config *config, const char *test);

/* Whether @sv runs here under @cfg: left out by the tests filter, or
 * skipped because this machine cannot run it. */
struct why_not suite_vm_why_not(const struct suite_vm *sv, const struct mhv_config *cfg);
/* The configuration @sv runs in: the column's, or its own where its guest
 * needs one (a guest PMU; its runs_here says whether this machine has it). */
const struct vm_config *suite_vm_config(const struct suite_vm *sv, const struct vm_config *column);
/* Which VM of the lost-CPU case @sv is (known by its runs_here). */
enum lost_cpu_part suite_vm_lost_cpu(const struct suite_vm *sv);
/* The test @sv's end is judged as: its own name when it has none. */
const char *suite_vm_test(const struct suite_vm *sv);
/* How long @sv may run: its own time limit, else the config's. */
u64 suite_vm_limit_ms(const struct suite_vm *sv, const struct mhv_config *cfg);
/* A test knob of one case (vm_spec.timer_reach_ms), 0 for the others. */
u64 suite_vm_timer_reach_ms(const struct suite_vm *sv);
/* Whether suite @s runs in column @c here under @cfg: left out when it is
 * not among the suite's columns or the config's PMU modes, refused when
 * this machine cannot run its PMU mode. */
struct why_not suite_column_why_not(const struct suite *s, const struct vm_config *c,
				    const struct mhv_config *cfg);

#endif
