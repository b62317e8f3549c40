/* SPDX-License-Identifier: MIT */
/*
 * The devices of mhv's guests that Linux KVM has no in-kernel model of,
 * answered in user space: the test port, the ACPI PM timer and the MMIO
 * test device (hv/lib/guest_abi.h).  Their reads leave the kernel, as
 * kvm-unit-tests' inl_from_qemu does, so those rows are not comparable
 * with mhv's, which stay in mhv's exit path; each row says why.
 */
#ifndef MHV_KVM_DEVICES_H
#define MHV_KVM_DEVICES_H

#include <stdbool.h>
#include <stdio.h>

struct kvm_devices {
	unsigned test_port;
	unsigned long long mmio_scratch;
	unsigned long long unknown_io, unknown_mmio;
	unsigned first_unknown_port;
	unsigned long long first_unknown_gpa;
};

void kvm_devices_init(struct kvm_devices *d);
void kvm_devices_io(struct kvm_devices *d, unsigned port, unsigned size, unsigned count, bool out,
		    unsigned char *data);
void kvm_devices_mmio(struct kvm_devices *d, unsigned long long gpa, unsigned char *data,
		      unsigned len, bool write);
/* Accesses no device answered, if any: one line */
void kvm_devices_report(const struct kvm_devices *d, FILE *out);
/* Why a vmexit test's KVM figure is not KVM's in-kernel exit, or NULL */
const char *kvm_devices_not_comparable(const char *test);
/* "hypervisor" when this Linux runs in a VM itself, else "hardware" */
const char *kvm_devices_env(void);

#endif
