/* SPDX-License-Identifier: MIT */
/*
 * The KVM side's end of the result channel: mhv's hypercalls
 * (hv/lib/guest_abi.h), arriving as an OUT to GUEST_HC_PORT, answered
 * from guest RAM as mhv answers them (hv/core/hypercall.c), with the same
 * statistics (hv/lib/stats.c) and the same MHV-JSON lines (hv/lab/report.c)
 * plus the KVM side's labels.
 */
#ifndef MHV_KVM_HC_H
#define MHV_KVM_HC_H

#include <stdio.h>

#include "lib/guest_abi.h"

#define KVM_HC_MAX_TESTS 64
#define KVM_HC_PRINT_MAX 4096
#define KVM_HC_LINE_MAX 4096

struct kvm_hc {
	/* set by the caller */
	unsigned char *ram;
	unsigned long long ram_size;
	const char *suite, *config, *env, *backend;
	const char *labels; /* JSON members appended to each MHV-JSON record */
	struct hc_params params;
	const char *tests[KVM_HC_MAX_TESTS]; /* none: every test */
	unsigned nr_tests;
	/* a test's MHV-JSON record gets "not_comparable":reason (NULL: none) */
	const char *(*not_comparable)(const char *test);
	FILE *out;
	/* results */
	unsigned passed, failed, skipped, rows, malformed;
	int exited; /* HC_EXIT seen */
	long long exit_code;
	char line[256]; /* the guest's console line being collected */
	unsigned line_len;
};

/* Handle hypercall @nr with arguments @a0, @a1; its result for RAX. */
unsigned long long kvm_hc_call(struct kvm_hc *hc, unsigned long long nr, unsigned long long a0,
			       unsigned long long a1);

/* A benchmark row the guest could not run here, said as mhv says a skip. */
void kvm_hc_skip_row(struct kvm_hc *hc, const char *test, const char *why);

#endif
