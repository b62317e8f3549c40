/* SPDX-License-Identifier: MIT */
#ifndef MHV_VCPU_HALT_H
#define MHV_VCPU_HALT_H

struct vcpu;

/*
 * The guest executed HLT with nothing deliverable: wait on the host until
 * what ends the HLT (several vCPUs: an IPI, a timer, an NMI), or the
 * guest's next timer expiry (one vCPU), or the VM's stop or time limit.
 * With no timer armed and one vCPU, returns at once (the HLT completes).
 */
void vcpu_halt(struct vcpu *vcpu);

#endif
