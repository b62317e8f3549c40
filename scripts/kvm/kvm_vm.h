/* SPDX-License-Identifier: MIT */
/*
 * One KVM VM with one vCPU, laid out as mhv lays out a suite VM
 * (hv/lib/guest_abi.h, hv/core/vm.c): GUEST_RAM_SIZE of RAM at 0, the
 * guest image at GUEST_LOAD, the tables of hv/arch/guest_tables.c, 64-bit
 * mode at entry with RDI = variant and RSI = GUEST_RAM_SIZE, the x2APIC
 * enabled, and the in-kernel devices closest to mhv's own.
 */
#ifndef MHV_KVM_VM_H
#define MHV_KVM_VM_H

#include <stddef.h>

struct kvm_run;

/* mhv's two-vCPU VM (vmexit variant 2: ipi, ipi_halt, ple_round_robin) */
#define KVM_VM_MAX_VCPUS 2

struct kvm_vm {
	int kvm, vm;
	unsigned nr_vcpus;
	int vcpu[KVM_VM_MAX_VCPUS];
	struct kvm_run *run[KVM_VM_MAX_VCPUS];
	size_t run_size;
	unsigned char *ram;
	int ioeventfd[2];
};

/* Status of kvm_vm_create: 0, or why not in @why */
enum kvm_vm_status {
	KVM_VM_OK = 0,
	KVM_VM_SKIP = 77, /* no /dev/kvm, no permission, a capability missing */
	KVM_VM_ERROR = 1,
};

/* vCPU i enters with RDI = variant | i << GUEST_VCPU_SHIFT, its own stack */
enum kvm_vm_status kvm_vm_create(struct kvm_vm *v, const char *dev, const void *image,
				 size_t image_size, unsigned variant, unsigned nr_vcpus, char *why,
				 size_t why_size);
void kvm_vm_destroy(struct kvm_vm *v);

#endif
