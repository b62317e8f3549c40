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

struct kvm_vm {
	int kvm, vm, vcpu;
	unsigned char *ram;
	struct kvm_run *run;
	int ioeventfd[2];
};

/* Status of kvm_vm_create: 0, or why not in @why */
enum kvm_vm_status {
	KVM_VM_OK = 0,
	KVM_VM_SKIP = 77, /* no /dev/kvm, no permission, a capability missing */
	KVM_VM_ERROR = 1,
};

enum kvm_vm_status kvm_vm_create(struct kvm_vm *v, const char *dev, const void *image,
				 size_t image_size, unsigned variant, char *why, size_t why_size);
void kvm_vm_destroy(struct kvm_vm *v);

#endif
