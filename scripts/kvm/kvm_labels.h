/* SPDX-License-Identifier: MIT */
/*
 * What KVM's numbers belong to, read from the running kernel: its
 * release, the KVM module and those of its parameters that change the
 * exit path, the mitigations, the CPU and the clock the guest reads.
 */
#ifndef MHV_KVM_LABELS_H
#define MHV_KVM_LABELS_H

#include <stddef.h>

struct kvm_labels {
	char backend[8];  /* "svm" (kvm_amd), "vmx" (kvm_intel), "" */
	char config[48];  /* the column: "kvm", "kvm-pmu-off", "kvm-mitigations-off", ... */
	char json[3072];  /* ,"kernel":...: JSON members for each record */
	char header[512]; /* one line for people */
};

void kvm_labels_read(struct kvm_labels *l);

#endif
