/* SPDX-License-Identifier: MIT */
/* The model-specific MSRs a Linux guest reads at boot (core/msr_model.c). */
#ifndef MHV_MSR_MODEL_H
#define MHV_MSR_MODEL_H

#include "vcpu.h"

void model_msrs_reset(struct vcpu *vcpu);
bool microcode_rev_read(struct vcpu *vcpu, u64 *val);
bool microcode_rev_write(struct vcpu *vcpu, u64 val);
bool amd_hwcr_read(struct vcpu *vcpu, u64 *val);
bool amd_hwcr_write(struct vcpu *vcpu, u64 val);
bool amd_nb_cfg_read(struct vcpu *vcpu, u64 *val);
bool amd_nb_cfg_write(struct vcpu *vcpu, u64 val);
bool amd_osvw_read(struct vcpu *vcpu, u64 *val);
bool amd_osvw_write(struct vcpu *vcpu, u64 val);
bool amd_de_cfg_read(struct vcpu *vcpu, u64 *val);
bool amd_de_cfg_write(struct vcpu *vcpu, u64 val);

#endif
