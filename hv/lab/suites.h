/* SPDX-License-Identifier: MIT */
#ifndef MHV_SUITES_H
#define MHV_SUITES_H

#include "config.h"
#include "core/vm.h"
#include "core/vm_config.h"

/* A VM of a suite: which program of the blob, and how it must end. */
struct suite_vm {
	const char *name;
	u32 variant;
	enum vm_stop expect;
	const char *test; /* host-side test judging an expected stop, or NULL */
	/* Why this machine cannot run the VM, or NULL when it can. */
	const char *(*unsupported)(void);
	bool timed;	   /* the entry code stamps the TSC around VMRUN / VM entry */
	u32 time_limit_ms; /* 0: the config's time_limit */
	/* Another acceptable end (VM_RUNNING: none): where the hardware may
	 * refuse a state outright, the VM stopped with the reason is contained. */
	enum vm_stop expect_alt;
	u32 nr_vcpus; /* more than 1: each vCPU on its own physical CPU */
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

/* Whether @sv runs under @cfg: NULL, "" when filtered out, or why it is skipped. */
const char *vm_left_out(const struct suite_vm *sv, const struct mhv_config *cfg);
/* How long @sv may run: its own time limit, else the config's. */
u64 vm_limit_ms(const struct suite_vm *sv, const struct mhv_config *cfg);
/* Whether suite @s runs in column @c of the matrix under @cfg. */
bool suite_runs_in(const struct suite *s, const struct vm_config *c, const struct mhv_config *cfg);

#endif
