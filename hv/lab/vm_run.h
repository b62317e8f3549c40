/* SPDX-License-Identifier: MIT */
#ifndef MHV_VM_RUN_H
#define MHV_VM_RUN_H

#include "runner.h"
#include "core/vm.h"

/* One guest program: which blob, and which of its programs (variant). */
struct vm_spec {
	const char *suite;
	const char *name;
	const u8 *blob;
	size_t blob_size;
	u32 variant;
	const struct vm_config *config;
	bool timed;
	u32 time_limit_ms; /* 0: the config's time_limit */
	u32 nr_vcpus;	   /* 0 or 1: one vCPU */
};

/* Guest RAM, its tables and the vCPUs' initial state; 0, or negative when
 * memory ran out or the blob does not fit.  No CPU state yet: that is
 * made by vm_vcpu_run on the CPU that runs the vCPU. */
int vm_create(struct vm *vm, const struct vm_spec *spec, u32 id, struct run_results *results);
/* On the CPU that runs it: the vCPU's VMCB/VMCS, its run until the VM
 * stops (vm->stop says why), and its teardown. */
void vm_vcpu_run(struct vcpu *vcpu);
void vm_destroy(struct vm *vm);

struct pt_ctx;
/* Map guest RAM in the VM's nested table (NPT or EPT: the ctx and leaf
 * flags say which), creating its root on first use. */
int vm_map_nested(struct vm *vm, struct pt_ctx *ctx, u64 gpa, u64 hpa, u64 size, u64 leaf_flags);

#endif
