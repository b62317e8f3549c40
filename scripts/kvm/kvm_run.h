/* SPDX-License-Identifier: MIT */
/*
 * Running a KVM VM of mhv's guest to its end: vCPU 0 on the calling
 * thread, a second vCPU on a thread of its own (each pinned to a CPU of
 * its own, as mhv runs the two-vCPU VM on two physical CPUs), exits to
 * user space answered by the result channel and the devices.
 */
#ifndef MHV_KVM_RUN_H
#define MHV_KVM_RUN_H

#include "kvm_devices.h"
#include "kvm_hc.h"
#include "kvm_vm.h"

/* Set from SIGALRM: the run's time limit is over */
extern volatile int kvm_run_timed_out;

/* Until vCPU 0's HC_EXIT: 0, 124 at the time limit, else 1 (said). */
int kvm_run_vm(struct kvm_vm *v, struct kvm_hc *hc, struct kvm_devices *d, unsigned timeout);

/* How many CPUs this process may run on. */
unsigned kvm_run_cpus(void);

#endif
