/* SPDX-License-Identifier: MIT */
#ifndef MHV_GUEST_CR_H
#define MHV_GUEST_CR_H

#include "lib/types.h"

struct vcpu;

/* The CR4 bits the vCPU's CPUID offers; the others raise #GP when set. */
u64 guest_cr4_valid(const struct vcpu *vcpu);

/* CR4 bits the CPU implements (its CPUID says so) that the vCPU's CPUID
 * hides: the CPU would let the guest set them, mhv must refuse them. */
u64 guest_cr4_hidden(const struct vcpu *vcpu);

#endif
