/* SPDX-License-Identifier: MIT */
/* The model-specific MSRs a Linux guest reads at boot (core/msr_model.c). */
#ifndef MHV_MSR_MODEL_H
#define MHV_MSR_MODEL_H

#include "vcpu.h"

void model_msrs_reset(struct vcpu *vcpu);
bool microcode_rev_read(struct vcpu *vcpu, u64 *val);
bool microcode_rev_write(struct vcpu *vcpu, u64 val);
/* HWCR, NB_CFG, OSVW, DE_CFG, SYSCFG, the interrupt-pending register */
bool amd_model_msr_read(struct vcpu *vcpu, u64 *val);
bool amd_model_msr_write(struct vcpu *vcpu, u64 val);

#endif
